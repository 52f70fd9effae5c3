#!/usr/bin/env bash
# On a GPU: the last line of every step's `--check` (its default variant), then of every other
# variant of the steps in VARIANT_STEPS (default: the steps whose variants the labs and READMEs
# show), into docs/results/checks.txt (CHECKS=file to write elsewhere), a line each:
# `stepNN | check: ...` and `stepNN VARIANT | check: ...`.
# docs/instructors.md's expected results cite it; CHECK_TIMEOUT (s) stops a long one. Run it after `make`.
set -uo pipefail
program=checks
cd "$(dirname "$0")/.." || exit 3
# shellcheck source=bench/common.sh
source bench/common.sh
ladder_on_gpu

out=${CHECKS:-docs/results/checks.txt}
card=$(card_name)
{
    echo "# bench/checks.sh on $card, $(utc_now)"
    for directory in "${LADDER[@]}"; do
        line=$(timeout "${CHECK_TIMEOUT:-600}" "./$directory/run" --check 2>&1 | tail -n 1)
        echo "$(short_name "$directory") | $line"
    done
    for number in ${VARIANT_STEPS:-04 05 07 09 10 11 12 13}; do
        directory=$(ladder_directory_of "$number") || die 2 "no step $number in the ladder"
        mapfile -t variants < <(variants_of "$directory")
        for variant in "${variants[@]:1}"; do
            line=$(timeout "${CHECK_TIMEOUT:-600}" "./$directory/run" --check --variant "$variant" \
                   2>&1 | tail -n 1)
            echo "$(short_name "$directory") $variant | $line"
        done
    done
} >"$out.part" && mv "$out.part" "$out"
note "wrote $out"
