#!/usr/bin/env bash
# make sanitize (on a GPU): compute-sanitizer's memcheck, racecheck, synccheck and initcheck
# on every step binary of the ladder (step14 and step15 where built, their default variant),
# at an odd n and at n = 1, one run each (--iters 1 --warmup 0 --quiet --no-cub). It passes when
#   - every correct variant (and every step without variants) is clean under all four
#     tools: exit code 0 and no error or hazard in the tool's summary;
#   - racecheck reports hazards for step05's racy variants (EXPECTED below): the tool
#     catching them is the lesson. Their sums may be wrong too, so their exit code is free;
#     memcheck must still find no bad access;
#   - the variants that are wrong by design but stay in bounds get memcheck only;
#   - step15 is clean but for NCCL's start-up probe (nccl-probe below): while NCCL starts it
#     calls cudaFuncGetAttributes on the kernels of its library, some of which have no image
#     for this GPU, and takes the answer cudaErrorNoKernelImageForDevice to mean "not for this
#     GPU". The tool reports each such call as an API error (the table counts them). Every
#     error it reports must be one of these, there must be no hazard, and the program's
#     verdict must be CORRECT.
# A variant the table below does not name must be clean: a new variant is correct until
# someone says otherwise here. The variants come from each binary's --help.
# The table goes to stdout and docs/results/sanitize.txt.
#   bash bench/sanitize.sh      SANITIZE_JOBS=4 runs at once; COMPUTE_SANITIZER=path;
#                               SANITIZE_STEPS="04 05": a subset, written to build/bench/
set -uo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.." || exit 3
program=sanitize
# shellcheck source=bench/common.sh
source bench/common.sh

SIZES=(1000003 1)                 # odd: a partial last block and warp; 1: a single element
RACY_SIZE=1000003                 # enough blocks and warps for the races to happen
TOOLS=(memcheck racecheck synccheck initcheck)
ERROR_EXIT=99                     # the sanitizer's exit code when it found something
DEFAULT_JOBS=4
# step:variant -> racy (racecheck must report hazards) | wrong (memcheck only)
declare -A EXPECTED=(
    [step04:plan-a]=wrong
    [step05:volatile]=racy
    [step05:wrong-loop]=racy
    [step05:wrong-unrolled]=racy
)
# Steps checked with their default variant only (small runs of the later steps)
DEFAULT_ONLY=(step14 step15)
# Steps whose start-up makes NCCL's probe calls, and the tool's line for each such call; and
# the line for a poll of a stream still busy (step15 polls instead of blocking), should the
# tool report that answer too: it means "not yet", not an error
NCCL_STEPS=(step15)
NCCL_PROBE='Program hit cudaErrorNoKernelImageForDevice .*cudaFuncGetAttributes'
BUSY_POLL='Program hit cudaErrorNotReady .*cudaStreamQuery'
# step15's --timeout for them: under memcheck and initcheck, with other runs beside it, NCCL's
# set-up takes longer than the program's default 60 s (4 of 227 runs were stopped by it on an
# H200 with SANITIZE_JOBS=8, 2026-11-28); a stopped rank is not what these runs look for
NCCL_SETUP_TIMEOUT_S=900
# Runs beside a step's default, where the binary offers the options: "step|option|arguments"
EXTRA_RUNS=("step14|--op|--op dot --type double")
COMMITTED_TABLE=docs/results/sanitize.txt
SUBSET_TABLE=build/bench/sanitize.txt

# ---- one case (run in parallel by xargs): line INDEX of WORK/cases -> WORK/INDEX.* ----
# A case line: directory|variant|tool|n|expect|extra arguments   (variant "-": none given)
run_case() {
    local work=$1 index=$2 sanitizer=$3
    local directory variant tool n expect extra
    IFS='|' read -r directory variant tool n expect extra <<<"$(sed -n "$((index + 1))p" "$work/cases")"
    local arguments=(-n "$n" "${ONE_RUN_ARGS[@]}")
    [ "$variant" = - ] || arguments+=(--variant "$variant")
    # shellcheck disable=SC2206 # extra holds words such as "--op dot --type double"
    [ -z "$extra" ] || arguments+=($extra)
    # step15 on one GPU, whatever the machine has: the same runs, and the same reports, everywhere
    [[ " ${NCCL_STEPS[*]} " != *" $(short_name "$directory") "* ]] ||
        arguments+=(--gpus 1 --timeout "$NCCL_SETUP_TIMEOUT_S")
    "$sanitizer" --tool "$tool" --error-exitcode "$ERROR_EXIT" "$directory/run" "${arguments[@]}" \
        >"$work/$index.log" 2>&1
    echo "$?" >"$work/$index.status"
}

if [ "${1:-}" = --case ]; then
    run_case "$2" "$3" "$4"
    exit 0
fi

# ---- reading a log ----
# "RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings)" or
# "ERROR SUMMARY: 2 errors": the count, or nothing when the tool printed no summary.
found_count() {
    local log=$1 count
    count=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | tail -n 1)
    [ -n "$count" ] ||
        count=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$log" | grep -oE '[0-9]+' | tail -n 1)
    echo "$count"
}

found_text() {
    local summary
    summary=$(grep -oE '(RACECHECK|ERROR) SUMMARY: .*' "$1" | tail -n 1)
    echo "${summary:-no summary}"
}

# Reports of NCCL's start-up probe in a log, and of any failed API call.
probe_count() { grep -cE "$NCCL_PROBE" "$1"; }
expected_api_count() { grep -cE "$NCCL_PROBE|$BUSY_POLL" "$1"; }
api_error_count() { grep -c 'Program hit ' "$1"; }

# nccl-probe: no hazard; every error the tool reports is NCCL's probe (or a busy poll); the
# verdict CORRECT
# (the tool's exit code stands for the program's once it has reported something).
only_nccl_probe() {
    local log=$1 status=$2 hazards errors expected
    hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | tail -n 1)
    errors=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$log" | grep -oE '[0-9]+' | tail -n 1)
    expected=$(expected_api_count "$log")
    [ -n "$hazards$errors" ] && [ "${hazards:-0}" = 0 ] &&
        [ "$(api_error_count "$log")" = "$expected" ] && [ "${errors:-$expected}" = "$expected" ] &&
        grep -qE ' CORRECT$' "$log" && { [ "$status" -eq 0 ] || [ "$status" -eq "$ERROR_EXIT" ]; }
}

# expect: clean | hazards | no-memory-errors | nccl-probe -> "ok" or "FAIL"
verdict() {
    local expect=$1 status=$2 count=$3 log=$4
    case $expect in
    clean) [ "$status" -eq 0 ] && [ "${count:-x}" = 0 ] ;;
    hazards) [ -n "$count" ] && [ "$count" -gt 0 ] ;;
    no-memory-errors) [ "${count:-x}" = 0 ] && [ "$status" -ne "$ERROR_EXIT" ] ;;
    nccl-probe) only_nccl_probe "$log" "$status" ;;
    *) false ;;
    esac && echo ok || echo FAIL
}

# ---- the cases ----
clean_cases() {   # directory variant extra
    local tool n expect=clean
    [[ " ${NCCL_STEPS[*]} " != *" $(short_name "$1") "* ]] || expect=nccl-probe
    for n in "${SIZES[@]}"; do
        for tool in "${TOOLS[@]}"; do echo "$1|$2|$tool|$n|$expect|$3"; done
    done
}

memcheck_cases() {   # directory variant
    local n
    for n in "${SIZES[@]}"; do echo "$1|$2|memcheck|$n|no-memory-errors|"; done
}

cases_of_step() {
    local directory=$1 name variant run step option arguments
    name=$(short_name "$directory")
    local variants=()
    read -ra variants <<<"$(variants_of "$directory" | tr '\n' ' ')"
    [ ${#variants[@]} -gt 0 ] || variants=(-)
    [[ " ${DEFAULT_ONLY[*]} " != *" $name "* ]] || variants=("${variants[0]}")
    for variant in "${variants[@]}"; do
        case ${EXPECTED[$name:$variant]:-correct} in
        racy) echo "$directory|$variant|racecheck|$RACY_SIZE|hazards|"
              memcheck_cases "$directory" "$variant" ;;
        wrong) memcheck_cases "$directory" "$variant" ;;
        *) clean_cases "$directory" "$variant" "" ;;
        esac
    done
    for run in "${EXTRA_RUNS[@]}"; do
        IFS='|' read -r step option arguments <<<"$run"
        if [ "$step" = "$name" ] && offers_option "$directory" "$option"; then
            clean_cases "$directory" - "$arguments"
        fi
    done
    return 0
}

# ---- the summary ----
print_table() {
    local count=$1 index failures=0
    printf '%-8s %-24s %-10s %8s  %-17s %-6s %s\n' step "variant or arguments" tool n \
        expected result "exit, summary"
    for ((index = 0; index < count; index++)); do
        local directory variant tool n expect extra status found result shown
        IFS='|' read -r directory variant tool n expect extra <<<"$(sed -n "$((index + 1))p" "$work/cases")"
        status=$(cat "$work/$index.status" 2>/dev/null || echo 255)
        found=$(found_count "$work/$index.log")
        result=$(verdict "$expect" "$status" "$found" "$work/$index.log")
        [ "$result" = ok ] || failures=$((failures + 1))
        shown=${extra:-$variant}
        [ "$shown" != - ] || shown=default
        local probes=""
        [ "$expect" != nccl-probe ] || probes=", $(probe_count "$work/$index.log") of NCCL's probe"
        printf '%-8s %-24s %-10s %8s  %-17s %-6s %s\n' "$(short_name "$directory")" "$shown" "$tool" \
            "$n" "$expect" "$result" "exit $status, $(found_text "$work/$index.log")$probes"
        [ "$result" = ok ] || sed 's/^/    | /' "$work/$index.log" | head -n 30 >&2
    done
    echo
    if [ "$failures" -eq 0 ]; then
        echo "sanitize: PASSED: all $count checks as expected"
    else
        echo "sanitize: FAILED: $failures of $count checks not as expected (their logs are on stderr)"
    fi
    [ "$failures" -eq 0 ]
}

# ---- main ----
main() {
    local directories=() directory token found jobs sanitizer count status out
    [ $# -eq 0 ] || die 2 "no arguments: SANITIZE_JOBS, SANITIZE_STEPS and COMPUTE_SANITIZER choose"
    jobs=${SANITIZE_JOBS:-$DEFAULT_JOBS}
    [[ $jobs =~ ^[1-9][0-9]*$ ]] || die 2 "SANITIZE_JOBS must be a positive number, not '$jobs'"
    load_ladder
    if [ -n "${SANITIZE_STEPS:-}" ]; then
        for token in ${SANITIZE_STEPS//,/ }; do
            found=$(ladder_directory_of "$token") ||
                die 2 "SANITIZE_STEPS: '$token' is not a step of the ladder (make ladder lists them)"
            directories+=("$found")
        done
        out=$SUBSET_TABLE
    else
        # step14 and step15 only where they are built; the rest must be
        for directory in "${LADDER[@]}"; do
            case $(short_name "$directory") in
            step14 | step15)
                [ -x "$directory/run" ] || { note "$directory is not built: left out"; continue; } ;;
            esac
            directories+=("$directory")
        done
        out=$COMMITTED_TABLE
    fi
    require_built "${directories[@]}"
    sanitizer=$(find_tool compute-sanitizer "${COMPUTE_SANITIZER:-}") ||
        die 3 "compute-sanitizer is missing: looked in \$COMPUTE_SANITIZER, on PATH and in" \
            "${CUDA_HOME:-/usr/local/cuda}/bin. It comes with the CUDA toolkit; make sanitize" \
            "needs a machine with a GPU."
    require_gpu "${directories[0]}"

    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    for directory in "${directories[@]}"; do cases_of_step "$directory"; done >"$work/cases"
    count=$(wc -l <"$work/cases")
    note "$count runs of $sanitizer, $jobs at a time"
    seq 0 $((count - 1)) | xargs -P "$jobs" -I{} bash "$script" --case "$work" {} "$sanitizer"

    {
        echo "make sanitize: $("$sanitizer" --version 2>/dev/null | grep -m1 -i version)," \
             "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)," \
             "$(date -u +%Y-%m-%d)"
        echo "run: compute-sanitizer --tool TOOL --error-exitcode $ERROR_EXIT stepNN/run -n N" \
             "${ONE_RUN_ARGS[*]} [--variant V] (step15 with --gpus 1 --timeout $NCCL_SETUP_TIMEOUT_S)"
        echo "nccl-probe: every error reported is NCCL's start-up call of cudaFuncGetAttributes" \
             "on a kernel with no image for this GPU (cudaErrorNoKernelImageForDevice), which NCCL" \
             "handles; no hazard; verdict CORRECT"
        echo
        print_table "$count"
    } >"$work/table.txt"
    status=$?
    mkdir -p "$(dirname "$out")"
    cp "$work/table.txt" "$out"
    cat "$work/table.txt"
    note "wrote $out"
    [ "$status" -eq 0 ] || exit 1
}

main "$@"
