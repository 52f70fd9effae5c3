#!/usr/bin/env bash
# On a GPU: the last line of every step's `--check` (its default variant), into
# docs/results/checks.txt (CHECKS=file to write elsewhere): `stepNN CARD | check: ...`.
# docs/instructors.md's expected results cite it; CHECK_TIMEOUT (s) stops a long one. Run it after `make`.
set -uo pipefail
program=checks
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
load_ladder
require_built "${LADDER[@]}"
require_gpu "${LADDER[0]}"

out=${CHECKS:-docs/results/checks.txt}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
{
    echo "# Every step's --check, its last line: bench/checks.sh, $card, $(utc_now)"
    for directory in "${LADDER[@]}"; do
        line=$(timeout "${CHECK_TIMEOUT:-600}" "./$directory/run" --check 2>&1 | tail -n 1)
        echo "$(short_name "$directory") | $line"
    done
} >"$out.part" && mv "$out.part" "$out"
note "wrote $out"
