#!/usr/bin/env bash
# make sanitize: compute-sanitizer's memcheck, racecheck, synccheck and initcheck on every
# step binary (stepNN_*/run), at an odd n and at n = 1, one timed run each. It passes when
#   - every correct variant (and every step without variants) is clean under all four
#     tools: exit code 0 and no error or hazard in the tool's summary, and
#   - racecheck reports hazards for the deliberately racy step05 variants (RACY_VARIANTS):
#     the tool catching them is the lesson. They may also give wrong sums and exit 1.
# Other variants marked incorrect in the registry get memcheck only (their sums are wrong
# on purpose; what must hold is that they touch no memory they should not).
# The table goes to stdout and docs/results/sanitize.txt.
#   bash bench/sanitize.sh            SANITIZE_JOBS=4 runs at once; COMPUTE_SANITIZER=path
set -uo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
program=sanitize

SIZES=(1000003 1)                 # odd: a partial last block and warp; 1: a single element
RACY_SIZE=1000003
TOOLS=(memcheck racecheck synccheck initcheck)
RACY_VARIANTS=(step05:volatile step05:wrong-loop step05:wrong-unrolled)
OWN_FLOW_RUNS=("" "--op dot --type double")   # steps with their own runner (step10)
RUN_ARGS=(--iters 1 --warmup 0 --quiet)
ERROR_EXIT=1

die() { echo "$program: ${*:2}" >&2; exit "$1"; }

find_sanitizer() {
    local candidate
    for candidate in "${COMPUTE_SANITIZER:-}" "$(command -v compute-sanitizer 2>/dev/null)" \
                     "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
                     /usr/local/cuda/bin/compute-sanitizer; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}

# ---- one case (run in parallel by xargs): CASE_FILE line INDEX -> RESULT_DIR/INDEX ----
# A case line: directory|variant|tool|n|expect|extra arguments
run_case() {
    local work=$1 index=$2 sanitizer=$3
    local line directory variant tool n expect extra
    line=$(sed -n "$((index + 1))p" "$work/cases")
    IFS='|' read -r directory variant tool n expect extra <<<"$line"
    local arguments=(-n "$n" "${RUN_ARGS[@]}")
    [ "$variant" = - ] || arguments+=(--variant "$variant")
    # shellcheck disable=SC2206 # extra holds words such as "--op dot --type double"
    [ -z "$extra" ] || arguments+=($extra)
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
    [ -n "$count" ] || count=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$log" | grep -oE '[0-9]+' | tail -n 1)
    echo "$count"
}

found_text() {
    local log=$1 summary
    summary=$(grep -oE '(RACECHECK|ERROR) SUMMARY: .*' "$log" | tail -n 1)
    echo "${summary:-no summary}"
}

# expect: clean | hazards | no-memory-errors -> "ok" or "FAIL"
verdict() {
    local expect=$1 status=$2 count=$3
    case $expect in
    clean) [ "$status" -eq 0 ] && [ "${count:-x}" = 0 ] ;;
    hazards) [ -n "$count" ] && [ "$count" -gt 0 ] ;;
    no-memory-errors) [ "${count:-x}" = 0 ] ;;
    esac && echo ok || echo FAIL
}

# ---- the cases ----
variants_of() {     # "variant correctness" lines of one step, from bench/run --list
    local name=$1
    awk -v step="$name" '$1 == step { print $2, $3, $4 }' "$work/registry"
}

is_racy() {
    local key=$1 racy
    for racy in "${RACY_VARIANTS[@]}"; do [ "$racy" = "$key" ] && return 0; done
    return 1
}

add_clean_cases() {   # directory variant extra
    local tool n
    for n in "${SIZES[@]}"; do
        for tool in "${TOOLS[@]}"; do echo "$1|$2|$tool|$n|clean|$3"; done
    done
}

cases_of_step() {
    local directory=$1 name=${1%%_*} variant correctness flow extra
    local listed
    listed=$(variants_of "$name")
    if [ -z "$listed" ]; then
        add_clean_cases "$directory" - ""
        return
    fi
    while read -r variant correctness flow; do
        if [ "$flow" = own-flow ]; then
            for extra in "${OWN_FLOW_RUNS[@]}"; do add_clean_cases "$directory" - "$extra"; done
        elif is_racy "$name:$variant"; then
            echo "$directory|$variant|racecheck|$RACY_SIZE|hazards|"
        elif [ "$variant" = - ] || [ "$correctness" = correct ]; then
            add_clean_cases "$directory" "$variant" ""
        else
            for n in "${SIZES[@]}"; do echo "$directory|$variant|memcheck|$n|no-memory-errors|"; done
        fi
    done <<<"$listed"
}

# ---- the summary ----
print_table() {
    local count=$1 index failures=0
    printf '%-8s %-22s %-10s %8s  %-17s %-6s %s\n' step "variant or arguments" tool n \
        expected result "exit, summary"
    for ((index = 0; index < count; index++)); do
        local directory variant tool n expect extra status found result
        IFS='|' read -r directory variant tool n expect extra <<<"$(sed -n "$((index + 1))p" "$work/cases")"
        status=$(cat "$work/$index.status" 2>/dev/null || echo 255)
        found=$(found_count "$work/$index.log")
        result=$(verdict "$expect" "$status" "$found")
        [ "$result" = ok ] || failures=$((failures + 1))
        if [ -n "$extra" ]; then variant=$extra; elif [ "$variant" = - ]; then variant=default; fi
        printf '%-8s %-22s %-10s %8s  %-17s %-6s %s\n' "${directory%%_*}" "$variant" "$tool" "$n" \
            "$expect" "$result" "exit $status, $(found_text "$work/$index.log")"
        [ "$result" = ok ] || sed 's/^/    | /' "$work/$index.log" | head -n 30 >&2
    done
    echo
    if [ "$failures" -eq 0 ]; then
        echo "sanitize: PASSED: all $count checks as expected"
    else
        echo "sanitize: FAILED: $failures of $count checks not as expected (logs above, on stderr)"
    fi
    [ "$failures" -eq 0 ]
}

# ---- main ----
shopt -s nullglob
binaries=(step[0-9][0-9]_*/run)
directories=(step[0-9][0-9]_*/)
shopt -u nullglob
[ ${#directories[@]} -gt 0 ] || die 3 "no step directories here"
[ ${#binaries[@]} -eq ${#directories[@]} ] || die 3 "some step binaries are not built: run make first"
sanitizer=$(find_sanitizer) || die 3 "compute-sanitizer is missing: looked on PATH, in" \
    "\$COMPUTE_SANITIZER and in ${CUDA_HOME:-/usr/local/cuda}/bin. It comes with the CUDA" \
    "toolkit; make sanitize needs a machine with a GPU."
probe_output=$("${binaries[0]}" -n 1 "${RUN_ARGS[@]}" 2>&1)
[ $? -ne 3 ] || die 3 "no usable GPU: $probe_output"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! bench/run --list >"$work/registry" 2>/dev/null; then
    die 3 "bench/run --list failed: build it with make (it tells which variants are correct)"
fi
for directory in "${directories[@]}"; do cases_of_step "${directory%/}"; done >"$work/cases"
count=$(wc -l <"$work/cases")
jobs=${SANITIZE_JOBS:-4}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die 2 "SANITIZE_JOBS must be a positive number, not '$jobs'"
echo "$program: $count runs of $sanitizer, $jobs at a time" >&2
seq 0 $((count - 1)) | xargs -P "$jobs" -I{} bash "$script" --case "$work" {} "$sanitizer"

mkdir -p docs/results
{
    echo "make sanitize: $("$sanitizer" --version 2>/dev/null | grep -m1 -i version)," \
         "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "run: compute-sanitizer --tool TOOL --error-exitcode $ERROR_EXIT stepNN/run -n N ${RUN_ARGS[*]} [--variant V]"
    echo
    print_table "$count"
} >"$work/table.txt"
status=$?
cp "$work/table.txt" docs/results/sanitize.txt
cat "$work/table.txt"
echo "$program: wrote docs/results/sanitize.txt" >&2
[ "$status" -eq 0 ] || exit 1
