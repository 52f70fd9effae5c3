#!/usr/bin/env bash
# step15 on two GPUs (a machine with two or more): its three ways (--variant local, gather,
# elementwise), each in one process (--gpus 2) and under mpirun (-np 2, one process per GPU),
# and one GPU alone (--gpus 1) as the yardstick, over n = 2^16 .. 2^32 with --csv --no-cub
# --pattern ones.
# The step's README shows 2^26 .. 2^32 and the crossover, where two GPUs start to beat one
# (the smaller sizes are there to find it). One CSV comes out:
#   mode,gpus, then the columns of common/report.c, then date (UTC, ISO 8601)
# mode: one-gpu | one-process | mpirun. Then bench/step15_table.py prints the README's table.
#   bash bench/step15_two_gpus.sh     STEP15_OUT=file.csv writes elsewhere
#   STEP15_MODES="one-gpu one-process"   only those modes (one machine with four GPUs can run
#                                        the mpirun rows beside them, on the other two GPUs)
# The CSV is written as each run ends: a sweep stopped early keeps the runs it finished.
# NCCL_NVLS_ENABLE is passed on as the environment has it (mpirun -x), never set or unset.
# Exit status: 0; 1 a run was wrong or failed (named at the end); 2 usage; 3 no two GPUs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=step15_two_gpus
export PYTHONDONTWRITEBYTECODE=1
# shellcheck source=bench/common.sh
source bench/common.sh

STEP=step15_multi_gpu
SIZES=2^16..2^32
PATTERN=ones       # the data do not change the time, and ones are the quickest to write
VARIANTS=(local gather elementwise)
GPUS=2
BYTES_PER_FLOAT=4
LARGEST_N=$((1 << 32))
MPIRUN_LIMIT_S=600 # one mpirun over every size; a hung one is ended and named
OUT=${STEP15_OUT:-docs/results/$(date -u +%Y-%m-%d)/step15_two_gpus.csv}
MODES=${STEP15_MODES:-one-gpu one-process mpirun}

# mpirun's words for two processes on this machine, forwarding NCCL_NVLS_ENABLE where set.
mpirun_words() {
    MPIRUN=(mpirun)
    [ "$(id -u)" -ne 0 ] || MPIRUN+=(--allow-run-as-root)
    [ -z "${NCCL_NVLS_ENABLE+set}" ] || MPIRUN+=(-x NCCL_NVLS_ENABLE)
    MPIRUN+=(-np "$GPUS")
}

# Every GPU holds up to all n (GPU 0, gather), the host one copy per process.
check_memory() {
    local need_mib=$((LARGEST_N * BYTES_PER_FLOAT / 1024 / 1024)) free_mib host_mib
    free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits 2>/dev/null |
        head -n 1)
    host_mib=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
    [ -z "$free_mib" ] || [ "$free_mib" -gt "$need_mib" ] ||
        die 3 "n = 2^32 needs $need_mib MiB on GPU 0 and it has $free_mib MiB free"
    [ "$host_mib" -gt $((GPUS * need_mib)) ] ||
        die 3 "n = 2^32 under mpirun needs $((GPUS * need_mib)) MiB of host memory, $host_mib MiB available"
}

# One run over every size: its CSV rows, prefixed with mode and K, appended to OUT (its
# header first, from the first run).
measure() {
    local mode=$1 gpus=$2 started status
    shift 2
    [[ " $MODES " == *" $mode "* ]] || return 0
    started=$(utc_now)
    note "$mode, $gpus GPU(s): $*"
    "$@" -n "$SIZES" --pattern "$PATTERN" --csv --no-cub >"$work/out" 2>"$work/err"
    status=$?
    [ -s "$OUT" ] || [ ! -s "$work/out" ] || echo "mode,gpus,$(head -n 1 "$work/out"),date" >"$OUT"
    sed 1d "$work/out" | sed "s/^/$mode,$gpus,/; s/\$/,$started/" >>"$OUT"
    if [ "$status" -ne 0 ]; then
        sed 's/^/    | /' "$work/err" >&2
        failed+=("$mode $gpus GPU(s) ${*:2} (exit $status)")
    fi
}

main() {
    local variant mode failed=() with_mpi=true
    [ $# -eq 0 ] || die 2 "no arguments (STEP15_OUT=file.csv chooses where the CSV goes)"
    require_built "$STEP"
    "$STEP/run" --gpus "$GPUS" -n 1 "${ONE_RUN_ARGS[@]}" >/dev/null 2>"$work/err" ||
        die 3 "needs $GPUS GPUs: $(head -n 1 "$work/err")"
    check_memory
    command -v mpirun >/dev/null || { note "no mpirun on PATH: the mpirun rows are left out"; with_mpi=false; }
    mpirun_words

    for mode in $MODES; do
        [[ " one-gpu one-process mpirun " == *" $mode "* ]] ||
            die 2 "STEP15_MODES: '$mode' is not one-gpu, one-process or mpirun"
    done
    mkdir -p "$(dirname "$OUT")"
    : >"$OUT"
    measure one-gpu 1 "$STEP/run" --gpus 1
    for variant in "${VARIANTS[@]}"; do
        measure one-process "$GPUS" "$STEP/run" --gpus "$GPUS" --variant "$variant"
        ! $with_mpi ||
            measure mpirun "$GPUS" timeout "$MPIRUN_LIMIT_S" "${MPIRUN[@]}" "$STEP/run" --variant "$variant"
    done

    note "wrote $OUT"
    python3 bench/step15_table.py "$OUT" --print
    [ ${#failed[@]} -eq 0 ] || die 1 "these runs failed or were wrong: ${failed[*]}"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
main "$@"
