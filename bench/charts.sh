#!/usr/bin/env bash
# make charts: from a bench CSV (default docs/results/bench.csv, written by make bench on a
# GPU), rewrite the scoreboards of README.md and docs/results.md (bench/docs_tables.py, as make
# docs does) and
# draw docs/ladder.svg and docs/scaling.svg with gnuplot. Needs python3 (and gnuplot for the charts), no GPU.
#   bash bench/charts.sh [CSV]            make charts BENCH_CSV=build/bench/bench.csv
# The outputs can be moved for a trial run: CHARTS_PAGES ("README.md docs/results.md"),
# CHARTS_DIR (docs).
set -euo pipefail
cd "$(dirname "$0")/.."
program=charts
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ beside the scripts
DEFAULT_CSV=docs/results/bench.csv

[ $# -le 1 ] || { echo "$program: usage: bash bench/charts.sh [CSV]" >&2; exit 2; }
csv=${1:-$DEFAULT_CSV}
read -ra pages <<<"${CHARTS_PAGES:-README.md docs/results.md}"
charts=${CHARTS_DIR:-docs}
if [ ! -f "$csv" ]; then
    echo "$program: $csv: no such file. make bench writes $DEFAULT_CSV on a machine with a" \
         "GPU; a subset run writes build/bench/bench.csv (make charts BENCH_CSV=that file)." >&2
    exit 1
fi
command -v python3 >/dev/null || { echo "$program: python3 is missing" >&2; exit 3; }

# The table first: it needs no gnuplot.
python3 bench/docs_tables.py --bench-csv "$csv" "${pages[@]}"

if ! command -v gnuplot >/dev/null; then
    echo "$program: gnuplot is missing, so $charts/ladder.svg and $charts/scaling.svg were not" \
         "drawn. Install it (Debian, Ubuntu: apt-get install -y gnuplot-nox) and run make charts" \
         "again; the tables of ${pages[*]} are up to date." >&2
    exit 3
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/chart_data.py "$csv" "$work" "$charts/ladder.svg" "$charts/scaling.svg"
gnuplot "$work/settings.gp" bench/ladder.gp
gnuplot "$work/settings.gp" bench/scaling.gp
echo "$program: drew $charts/ladder.svg and $charts/scaling.svg from $csv"
