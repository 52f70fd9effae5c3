#!/usr/bin/env bash
# On a GPU, from the repository root after make: the figures that the reports' kernel and
# finish columns, the atomicAdd finish of step13 and the drained ceilings need. Writes
# what_ran.txt beside this script (every command, then its output).
#   bash docs/results/2026-11-27/what_ran.sh
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 3
out=docs/results/2026-11-27/what_ran.txt
run() {
    printf '$ %s\n' "$*" >>"$out"
    "$@" >>"$out" 2>&1
    printf '(exit %d)\n\n' "$?" >>"$out"
}
: >"$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$out" 2>&1
# atomicAdd finishes on real-valued data: each run names its kernel; the bits may differ
for step in step09 step10 step11 step12 step13; do
    for repeat in 1 2 3; do
        run "./$step/run" --variant atomic-add -n 2^25 --pattern real --csv --no-cub \
            --iters 1 --warmup 0
    done
done
# step13's three finishes over the sizes its README compares (time and kernel per size)
for variant in gather ticket atomic-add; do
    run ./step13/run -n 2^10..2^30 --csv --variant "$variant"
done
# the ceilings, each write and copy drained into memory before the clock stops
run ./step12/run -n 2^25 --ceilings
run ./step12/run -n 2^30 --ceilings
run ./step13/run -n 2^25 --ceilings
# the variants program, its atomic total zeroed inside the timed region
run ./step13_gather/variants/run -n 2^20..2^30 --flush read
echo "wrote $out"
