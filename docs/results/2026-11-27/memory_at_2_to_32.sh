#!/bin/sh
# n = 2^32 on the GPU this runs on: step14 with every operator and type, and step00 and
# step13 beside it. Each run must end CORRECT, or exit 3 with one line that names what the run
# needs and what is free (not enough device memory for one copy of ...). Writes
# memory_at_2_to_32.txt beside this script; run it from the repository root after make.
out="$(dirname "$0")/memory_at_2_to_32.txt"
{
    nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version --format=csv
    for op in sum min max sumsq dot; do
        for type in int float double; do
            echo "== ./step14/run -n 2^32 --op $op --type $type --iters 3 --warmup 1"
            ./step14/run -n 2^32 --op "$op" --type "$type" --iters 3 --warmup 1 2>&1
            echo "exit $?"
        done
    done
    for step in step00 step13; do
        echo "== ./$step/run -n 2^32 --iters 3 --warmup 1"
        ./$step/run -n 2^32 --iters 3 --warmup 1 2>&1
        echo "exit $?"
    done
} >"$out"
grep -c '^exit 0' "$out"
