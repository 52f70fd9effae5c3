#!/usr/bin/env bash
# make charts: from a bench CSV (docs/results/<gpu>.csv, written by make bench on the GPU
# machine), regenerate README.md's results table and draw docs/ladder.svg and
# docs/scaling.svg with gnuplot. Runs anywhere: it needs python3 and gnuplot, no GPU.
#   bash bench/charts.sh [CSV]     (default: the one CSV in docs/results/)
set -euo pipefail
cd "$(dirname "$0")/.."
program=charts
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ beside the scripts

choose_csv() {
    local found=()
    shopt -s nullglob
    found=(docs/results/*.csv)
    shopt -u nullglob
    case ${#found[@]} in
    0) echo "$program: no docs/results/*.csv yet: run make bench on a GPU machine first" >&2
       exit 1 ;;
    1) echo "${found[0]}" ;;
    *) echo "$program: several CSVs in docs/results/ (${found[*]}): choose one with" \
            "make charts BENCH_CSV=docs/results/<gpu>.csv" >&2
       exit 2 ;;
    esac
}

csv=${1:-}
[ -n "$csv" ] || csv=$(choose_csv)
[ -f "$csv" ] || { echo "$program: $csv: no such file" >&2; exit 1; }
command -v python3 >/dev/null || { echo "$program: python3 is missing" >&2; exit 3; }

# The table first: it needs no gnuplot.
python3 bench/readme_table.py "$csv" README.md

if ! command -v gnuplot >/dev/null; then
    echo "$program: gnuplot is missing, so docs/ladder.svg and docs/scaling.svg were not" \
         "drawn. Install it with: apt-get install -y gnuplot-nox (then make charts again;" \
         "$csv and README.md's table are up to date)" >&2
    exit 3
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/chart_data.py "$csv" "$work" docs/ladder.svg docs/scaling.svg
gnuplot "$work/settings.gp" bench/ladder.gp
gnuplot "$work/settings.gp" bench/scaling.gp
echo "$program: drew docs/ladder.svg and docs/scaling.svg from $csv"
