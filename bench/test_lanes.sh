#!/usr/bin/env bash
# On a host with several GPUs: make test's suites side by side, one lane a GPU (or two), each
# suite within a time limit, every test named (--verbose), one log a lane under OUT (default
# build/lanes). A lane is a list of Criterion filters run in turn:
#   LANE0="labs_gpu/*" LANE1="step14/*" LANE2="gpu/* variants/*" \
#   LANE3_GPUS=2,3 LANE3="step15/* gpu_large/*" bash bench/test_lanes.sh
# LANEk_GPUS sets lane k's CUDA_VISIBLE_DEVICES (default: k); LIMIT (s) each suite's limit
# (default 480); CRITERION_JOBS the tests at once in a lane (default 4). Run it after
# make all step13-variants mutants tests/bin/tests. It ends with each suite's synthesis, and
# names every suite of the test binary that no lane ran (so that a run meant to be the whole
# of make test can be seen to be). Within a lane the tests' programs take turns on its GPUs
# (tests/README.md), so a lane of one GPU holds a share of make test; every suite, step15's
# two-GPU tests included, on a host of four:
#   LANE0="labs_gpu/*" LANE1="mutants_gpu/* step14/*" LANE2="gpu/* variants/* docs_reports/*
#   step16_gpu/* step16/* gpu_scratch/* device/* docs/* docs_exercises/* docs_words/* figures/*
#   gpu_lock/* labs/* labs_handouts/* low_precision/* memory/* mutants/* options/*
#   parse_size/* pattern/* report/* step16_host/* usage/* verify/*" LANE3_GPUS=3,0
#   LANE3="step15/* gpu_large/*" bash bench/test_lanes.sh
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
# The suites no lane's filter names (a filter "suite/..." names its suite).
ran=$(for ((k = 0; k < MOST_LANES; k++)); do name="LANE$k"; echo "${!name:-}"; done | tr ' ' '\n' |
    sed -n 's|^\([a-z0-9_]*\)/.*|\1|p' | sort -u)
left=$("$TESTS" --list 2>/dev/null | sed -n 's/^\([a-z0-9_]*\): [0-9]* test.*/\1/p' | sort -u |
    comm -23 - <(echo "$ran"))
echo "test_lanes: suites no lane ran: ${left:-none}" | tr '\n' ' '
echo
