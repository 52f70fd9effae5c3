#!/usr/bin/env bash
# On a GPU: every step's report with its default options, as a student's first run prints it
# (`make stepNN && ./stepNN/run`), into docs/results/reports.txt (REPORTS=file to write
# elsewhere). Each report follows a line `## stepNN CARD, CUDA V, DATE`; `make docs` copies
# them into the step READMEs' "Run it" sections. Run it after `make`.
set -uo pipefail
program=reports
cd "$(dirname "$0")/.." || exit 3
# shellcheck source=bench/common.sh
source bench/common.sh
ladder_on_gpu

out=${REPORTS:-docs/results/reports.txt}
card=$(card_name)
cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
day=$(utc_now)
{
    echo "# Every step's report with its default options: bench/reports.sh, $day"
    for directory in "${LADDER[@]}"; do
        echo
        echo "## $(short_name "$directory") $card, CUDA $cuda, ${day:0:10}"
        "./$directory/run" 2>&1
        status=$?
        [ "$status" -eq 0 ] || note "$directory exited $status"
    done
} >"$out.part" && mv "$out.part" "$out"
note "wrote $out"
