#!/usr/bin/env bash
# On a host with several GPUs: make test's suites side by side, one lane a GPU (or two), each
# suite within a time limit, every test named (--verbose), one log a lane under OUT (default
# build/lanes). A lane is a list of Criterion filters run in turn:
#   LANE0="labs_gpu/*" LANE1="step14/*" LANE2="gpu/* variants/*" \
#   LANE3_GPUS=2,3 LANE3="step15/* gpu_large/*" bash bench/test_lanes.sh
# LANEk_GPUS sets lane k's CUDA_VISIBLE_DEVICES (default: k); LIMIT (s) each suite's limit
# (default 480); CRITERION_JOBS the tests at once in a lane (default 4). Run it after
# make all step13-variants mutants tests/bin/tests. It ends with each suite's synthesis.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
export NCCL_NVLS_ENABLE=0 # NVLink multicast off: it can put a shared host's GPUs out of service
export CRITERION_JOBS=${CRITERION_JOBS:-4}
LIMIT=${LIMIT:-480}
OUT=${OUT:-build/lanes}
TESTS=tests/bin/tests
MOST_LANES=8
[ -x "$TESTS" ] || { echo "test_lanes: $TESTS is not built: run make tests/bin/tests" >&2; exit 3; }
mkdir -p "$OUT"

lane() { # lane K: its filters in turn, on its GPUs, into $OUT/laneK.log
    local k=$1 filters_name="LANE$1" gpus_name="LANE$1_GPUS" filter
    local -a filters
    read -ra filters <<<"${!filters_name:-}"
    export CUDA_VISIBLE_DEVICES=${!gpus_name:-$k}
    for filter in "${filters[@]}"; do
        echo "=== $filter (GPUs $CUDA_VISIBLE_DEVICES)"
        timeout "$LIMIT" "$TESTS" --verbose --filter "$filter"
        echo "rc=$? $filter"
    done >"$OUT/lane$k.log" 2>&1
}

start=$(date +%s)
for ((k = 0; k < MOST_LANES; k++)); do
    name="LANE$k"
    [ -n "${!name:-}" ] && lane "$k" &
done
wait
echo "test_lanes: all lanes done in $(($(date +%s) - start)) s"
grep -h "^=== \|Synthesis\|^rc=\|^\[FAIL\]" "$OUT"/lane*.log
