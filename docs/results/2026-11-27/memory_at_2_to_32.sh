#!/usr/bin/env bash
# n = 2^32 on a GPU left with the free memory of an H100 80GB: hold_memory.cu (beside this
# script) holds all of the GPU's free memory but FREE_MIB (80800 MiB; where nvidia-smi shows
# no more than that and a CUDA context's room free, an H100 80GB's case, nothing is held and
# the first line says so), then step14 runs the (op, type) pairs of RUNS at 2^32 (every op in int,
# float and double: 15 pairs), and step13 beside them, each with --pattern ones. Each run must
# end CORRECT with exit 0, or exit 3 with one line that names what it needs and what is free.
# Writes memory_at_2_to_32.txt beside this script: the holder's line, nvidia-smi's
# name, total and free memory of the GPU, then each command, the last lines of its report
# (step14's without blank lines) and its exit code.
#   bash docs/results/2026-11-27/memory_at_2_to_32.sh     (after make; CUDA_VISIBLE_DEVICES=N
#                                                          picks the GPU)
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 3
here=docs/results/2026-11-27
out=$here/memory_at_2_to_32.txt
holder=build/hold_memory
FREE_MIB=80800      # about an H100 80GB's free memory
CONTEXT_MIB=1024    # more than a CUDA context takes: the holder's own would leave too little
HOLDER_START_S=8    # long enough to allocate and zero some 60 GiB and print its line
STEP14_LINES=6      # the report's last lines, from the kernel or the finish down
STEP13_LINES=4      # from the check down
RUNS=("sum int" "sum float" "sum double" "min int" "min float" "min double" "max int"
    "max float" "max double" "sumsq int" "sumsq float" "sumsq double" "dot int" "dot float"
    "dot double")

mkdir -p build
nvcc -o "$holder" "$here/hold_memory.cu" || exit 3
gpu=${CUDA_VISIBLE_DEVICES:-0}
free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits -i "$gpu") || exit 3
{
    if [ "$free_mib" -le $((FREE_MIB + CONTEXT_MIB)) ]; then
        echo "no ballast: $free_mib MiB free, not more than $FREE_MIB + $CONTEXT_MIB"
    else
        "$holder" "$FREE_MIB" &
        holder_pid=$!
        trap 'kill "$holder_pid" 2>/dev/null' EXIT
        sleep "$HOLDER_START_S"
        kill -0 "$holder_pid" 2>/dev/null || { echo "hold_memory ended before the runs" >&2; exit 3; }
    fi
    nvidia-smi --query-gpu=name,memory.total,memory.free --format=csv -i "$gpu"
    for run in "${RUNS[@]}"; do
        read -r op type <<<"$run"
        echo "== ./step14/run -n 2^32 --op $op --type $type --pattern ones --iters 3 --warmup 1"
        ./step14/run -n 2^32 --op "$op" --type "$type" --pattern ones --iters 3 --warmup 1 2>&1 |
            grep -vE '^\s*$' | tail -n "$STEP14_LINES"
        echo "exit ${PIPESTATUS[0]}"
    done
    echo "== ./step13/run -n 2^32 --pattern ones --iters 3 --warmup 1"
    ./step13/run -n 2^32 --pattern ones --iters 3 --warmup 1 2>&1 | tail -n "$STEP13_LINES"
    echo "exit ${PIPESTATUS[0]}"
} >"$out"
grep -c '^exit 0' "$out"
