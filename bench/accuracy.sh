#!/usr/bin/env bash
# bash bench/accuracy.sh (on a GPU): how far each step's float total lies from the exact sum,
# for the real-valued patterns (real, normal, wide, cancel) and for ones, at n = 2^25. Every
# step of the ladder from step00 to step13 runs its default once per pattern; the atomic-add
# of steps 09 to 13 runs twice, to show that its bits change from run to run. Beside them,
# build/bench/cpu_sums adds the same data on the CPU three ways (a naive float loop, a
# pairwise float sum, Kahan's compensated float sum): on ones, the naive loop stops at 2^24.
# Writes docs/results/accuracy.csv (columns: step,variant,run,n,pattern,result,expected,error,
# bound,ok,device,cuda,date) and prints it as a table.
#   bash bench/accuracy.sh        ACCURACY_N=2^20 (another size: written to build/bench/)
# Exit status: 0; 1 when a step's total fell outside its error bound (named at the end).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=accuracy
export PYTHONDONTWRITEBYTECODE=1
# shellcheck source=bench/common.sh
source bench/common.sh

PATTERNS=(real normal wide cancel ones)
DEFAULT_N=2^25
LAST_STEP=step13                  # steps after it take other types and GPUs
REPEATED_VARIANTS=(step09:atomic-add step10:atomic-add step11:atomic-add step12:atomic-add step13:atomic-add)
REPEATS=2
ONE_RUN=(--csv --no-cub --iters 1 --warmup 0 --buffers 1)
CPU_SUMS=build/bench/cpu_sums
COMMITTED_CSV=docs/results/accuracy.csv
SUBSET_CSV=build/bench/accuracy.csv

failures=()
specs=()

run_step() {   # directory pattern run [variant]
    local directory=$1 pattern=$2 run=$3 variant=${4:-} name out status arguments
    name=$(short_name "$directory")
    out="$work/$name.$pattern.${variant:-default}.$run.csv"
    arguments=(-n "$n" --pattern "$pattern" "${ONE_RUN[@]}")
    [ -z "$variant" ] || arguments+=(--variant "$variant")
    "$directory/run" "${arguments[@]}" >"$out" 2>"$out.err"
    status=$?
    [ -s "$out" ] && specs+=("$run=$out")
    if [ "$status" -ne 0 ]; then
        sed 's/^/    | /' "$out.err" | tail -n 10 >&2
        failures+=("$name ${variant:-(default)} --pattern $pattern: exit $status")
    fi
}

main() {
    local directory name pattern key run directories=() out date
    [ $# -eq 0 ] || die 2 "no arguments (ACCURACY_N chooses another size)"
    n=${ACCURACY_N:-$DEFAULT_N}
    out=$COMMITTED_CSV
    [ -z "${ACCURACY_N:-}" ] || out=$SUBSET_CSV
    load_ladder
    for directory in "${LADDER[@]}"; do
        directories+=("$directory")
        [ "$(short_name "$directory")" != "$LAST_STEP" ] || break
    done
    require_built "${directories[@]}"
    if [ ! -x "$CPU_SUMS" ]; then
        make -s --no-print-directory "$CPU_SUMS" >&2 ||
            die 3 "$CPU_SUMS could not be built: the Makefile needs its rule (see bench/README.md)"
    fi
    "$CPU_SUMS" -n "$n" >/dev/null || die 2 "ACCURACY_N: $CPU_SUMS refused -n $n"
    require_gpu "${directories[0]}"

    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    date=$(utc_now)
    for pattern in "${PATTERNS[@]}"; do
        note "--pattern $pattern, n = $n"
        for directory in "${directories[@]}"; do
            name=$(short_name "$directory")
            run_step "$directory" "$pattern" 1
            for key in "${REPEATED_VARIANTS[@]}"; do
                [ "${key%%:*}" = "$name" ] || continue
                for ((run = 1; run <= REPEATS; run++)); do
                    run_step "$directory" "$pattern" "$run" "${key#*:}"
                done
            done
        done
        "$CPU_SUMS" -n "$n" --pattern "$pattern" >"$work/cpu.$pattern.csv" ||
            die 3 "$CPU_SUMS failed on --pattern $pattern"
        specs+=("1=$work/cpu.$pattern.csv")
    done
    [ ${#specs[@]} -gt 0 ] || die 1 "no step wrote a CSV row"
    python3 bench/bench_tables.py accuracy "$out" "$date" "${specs[@]}" || exit 1
    note "wrote $out"
    if [ ${#failures[@]} -gt 0 ]; then
        note "FAILED: ${#failures[@]} run(s) did not finish correctly:"
        printf '  %s\n' "${failures[@]}" >&2
        exit 1
    fi
}

main "$@"
