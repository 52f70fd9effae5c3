#!/usr/bin/env bash
# step16_rows on a GPU: what its README's tables come from. Run from the repository root after
# `make step16` (and `make tests/bin/tests` for the tests); writes into this folder:
#   step16_check.txt          ./step16/run --check (every shape class, kernel, type, alignment)
#   step16_tests.txt          the Criterion tests of step16 (host and GPU)
#   step16_kernels.csv        every kernel forced at the shapes of the README's exercise 3 and
#                             the chooser's borders, --flush read, beside CUB's segmented sum
#   ../bench_rows.csv         BENCH_STEPS=16 bench/bench.sh: 21 shapes, both flushes
# STEP16_PARTS picks the parts (default: all four, "check tests kernels bench").
#
# What has run: the bench part's command, on 2026-11-27 on an NVIDIA H100 80GB HBM3, CUDA 13.0
# (../bench_rows.csv; every step16 row of it has rows_wrong 0). The check, tests and kernels
# parts have yet to run: their files are not in this folder. To run only them:
#   STEP16_PARTS="check tests kernels" bash docs/results/2026-11-27/step16_rows.sh
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 3
here=docs/results/2026-11-27
parts=" ${STEP16_PARTS:-check tests kernels bench} "

if [[ $parts == *" check "* ]]; then
    ./step16/run --check >"$here/step16_check.txt" 2>&1
    echo "check: exit $?"
fi
if [[ $parts == *" tests "* ]]; then
    tests/bin/tests --filter 'step16*' >"$here/step16_tests.txt" 2>&1
    echo "tests: exit $?"
fi
if [[ $parts == *" kernels "* ]]; then
    first=1
    for shape in 2097152x32 1048576x64 262144x256 131072x512 65536x1024 16384x4096 4096x16384 \
                 1024x65536 300x1048576 16x4194304 1x67108864; do
        for kernel in warp block split auto; do
            ./step16/run -n "$shape" --kernel "$kernel" --csv --iters 50 |
                if [ "$first" = 1 ]; then cat; else tail -n +2; fi
            first=0
        done
    done >"$here/step16_kernels.csv"
    echo "kernels: $(($(wc -l <"$here/step16_kernels.csv") - 1)) rows"
fi
if [[ $parts == *" bench "* ]]; then
    BENCH_STEPS=16 BENCH_ROWS_OUT=docs/results/bench_rows.csv bash bench/bench.sh
fi
