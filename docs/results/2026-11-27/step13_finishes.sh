#!/usr/bin/env bash
# On a GPU, from the repository root after make: step13's three finishes over 2^20 .. 2^30,
# and its atomicAdd finish with 4 float4 a thread, with both flushes, two rounds. Writes
# step13_finishes_h100.csv beside this script (or the file named as the first argument):
# the round, the --vectors asked for, then step13's --csv row.
#   bash docs/results/2026-11-27/step13_finishes.sh
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 3
out=${1:-docs/results/2026-11-27/step13_finishes_h100.csv}
header=$(./step13/run -n 2^10 --csv --no-cub --iters 1 | head -n 1) || exit 3
echo "round,vectors,$header" >"$out"
for round in 1 2; do
    for flush in read write; do
        for config in "gather auto" "ticket auto" "atomic-add auto" "atomic-add 4" "gather 4"; do
            read -r variant vectors <<<"$config"
            ./step13/run -n 2^20..2^30 --csv --no-cub --iters 50 --flush "$flush" \
                --variant "$variant" --vectors "$vectors" |
                tail -n +2 | sed "s/^/$round,$vectors,/" >>"$out" ||
                echo "failed: --variant $variant --vectors $vectors --flush $flush" >&2
        done
    done
done
