# shellcheck shell=bash
# What ./labs/labNN/run and labs/grade.sh share: building a lab's program, and grading a
# student's kernel in it. Sourced, not run.
#
# lab_check grades one program in four stages and prints what each found:
#   1. the program's own --check (the correctness matrix), under a timeout: correct, wrong
#      (the first failing case), a hang, a CUDA error, a crash;
#   2. compute-sanitizer memcheck, racecheck and synccheck where it is installed, one run
#      each at an odd n and at n = 1 (not after a hang);
#   3. the time at n = 2^25 beside the step's own program, both with CUB in the same process
#      (only for a correct kernel);
#   4. the verdict, a line for people, then one JSON line for machines:
#      {"lab":..,"builds":..,"correct":..,"sanitizer_clean":..,"ms":..,"x_reference":..,
#       "x_cub":..,"reason":..}   x_...: how many times as fast (above 1: faster).
# Settings, from the environment (seconds, sizes):
#   LAB_CHECK_TIMEOUT [900]  LAB_SANITIZER_TIMEOUT [900]  LAB_TIME_TIMEOUT [300]
#   LAB_BUILD_TIMEOUT [900]  LAB_SANITIZE_N ["1000003 1"]  LAB_TIMED_N [2^25]
#   COMPUTE_SANITIZER: the sanitizer's path, when it is neither on PATH nor in $CUDA_HOME/bin

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_CHECK_TIMEOUT=${LAB_CHECK_TIMEOUT:-900}
LAB_SANITIZER_TIMEOUT=${LAB_SANITIZER_TIMEOUT:-900}
LAB_TIME_TIMEOUT=${LAB_TIME_TIMEOUT:-300}
LAB_BUILD_TIMEOUT=${LAB_BUILD_TIMEOUT:-900}
LAB_SANITIZE_N=${LAB_SANITIZE_N:-1000003 1}
LAB_TIMED_N=${LAB_TIMED_N:-2^25}
LAB_SANITIZER_TOOLS=(memcheck racecheck synccheck)
LAB_ONE_RUN=(--iters 1 --warmup 0 --quiet --no-cub)
LAB_SANITIZER_FOUND=99          # compute-sanitizer's exit status when it reported something
LAB_KILL_AFTER=10               # seconds between timeout's TERM and its KILL
LAB_REASON_WIDTH=240            # characters of one failure kept for the CSV and the JSON
LAB_TIMED_OUT=(124 137)         # timeout's status: TERM worked, or KILL was needed
# The CSV columns of common/report.c that the time uses (1-based)
LAB_COLUMN_OK=9
LAB_COLUMN_MS=10
LAB_COLUMN_CUB_MS=14

# ---- the lab table (labs/steps.txt) -----------------------------------------------------
lab_step() {   # LAB -> the step directory whose program the lab completes
    awk -v lab="$1" '$1 == lab {print $2; found = 1} END {exit !found}' "$LAB_ROOT/labs/steps.txt"
}

lab_names() {
    awk '/^lab/ {print $1}' "$LAB_ROOT/labs/steps.txt"
}

# ---- small helpers ----------------------------------------------------------------------
lab_say() { printf '%-12s %s\n' "$1" "$2"; }

lab_clip() {   # TEXT -> one line of at most LAB_REASON_WIDTH characters
    local text
    text=$(printf '%s' "$1" | tr '\n\t' '  ' | tr -s ' ')
    [ ${#text} -le "$LAB_REASON_WIDTH" ] || text="${text:0:LAB_REASON_WIDTH-3}..."
    printf '%s' "$text"
}

lab_timed_out() { [[ " ${LAB_TIMED_OUT[*]} " == *" $1 "* ]]; }

lab_signal_name() { kill -l "$(($1 - 128))" 2>/dev/null || echo "$(($1 - 128))"; }

# The first line a compiler or linker complains with, else the log's last line.
lab_first_error() {
    local line
    line=$(grep -m 1 -E '(error:|undefined reference|No rule to make)' "$1")
    [ -n "$line" ] || line=$(grep -m 1 -F '***' "$1")
    [ -n "$line" ] || line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
    lab_clip "$line"
}

# make in the repository root. The caller's make flags (a jobserver that is not ours) stay
# out; variables given on make's command line reach us through the environment anyway.
lab_make() {   # LOG TARGET-AND-VARIABLES...
    local log=$1
    shift
    (cd "$LAB_ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        timeout -k "$LAB_KILL_AFTER" "$LAB_BUILD_TIMEOUT" make --no-print-directory -s "$@") >"$log" 2>&1
}

lab_find_sanitizer() {
    local candidate
    for candidate in "${COMPUTE_SANITIZER:-}" "$(command -v compute-sanitizer 2>/dev/null)" \
                     "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}

# ---- a GPU ------------------------------------------------------------------------------
# Runs the step's own program once at n = 1. Prints why there is no usable GPU and returns 3,
# or succeeds quietly.
lab_require_gpu() {   # LAB [WHAT NEEDS IT]
    local step log status what=${2:-"$1 --check"}
    step=$(lab_step "$1")
    log=$(mktemp)
    timeout -k "$LAB_KILL_AFTER" "$LAB_TIME_TIMEOUT" "$LAB_ROOT/$step/run" -n 1 "${LAB_ONE_RUN[@]}" >"$log" 2>&1
    status=$?
    if lab_timed_out "$status"; then
        echo "$what: $step/run did not finish at n = 1 within $LAB_TIME_TIMEOUT s: is the GPU busy?"
        rm -f "$log"
        return 3
    fi
    if [ "$status" -eq 3 ]; then
        echo "$what needs a GPU: $(head -n 1 "$log")"
        echo "  Without one: build the lab (make $1), read the PTX and SASS (make ptx), and do the"
        echo "  tasks that labs/$1/README.md marks \"no GPU\"."
        rm -f "$log"
        return 3
    fi
    rm -f "$log"
    return 0
}

# ---- stage 1: the correctness matrix ----------------------------------------------------
# Sets LAB_CORRECT (1 or 0), LAB_HUNG (1 or 0) and adds to LAB_REASONS.
lab_stage_check() {   # PROGRAM LOGDIR
    local program=$1 log=$2/check.txt status summary first cuda_error
    timeout -k "$LAB_KILL_AFTER" "$LAB_CHECK_TIMEOUT" "$program" --check >"$log" 2>&1
    status=$?
    LAB_CORRECT=0
    LAB_HUNG=0
    summary=$(grep -m 1 '^check: ' "$log")
    cuda_error=$(grep -m 1 '^CUDA error' "$log")
    if [ "$status" -eq 0 ]; then
        LAB_CORRECT=1
        lab_say correctness "ok: $summary"
    elif [ "$status" -eq 1 ]; then
        first=$(grep -m 1 '^FAILED ' "$log")
        lab_say correctness "FAILED: ${summary#check: }"
        first=${first#FAILED }
        LAB_REASONS+=("wrong result: $(lab_clip "${first:-${summary#check: }}")")
    elif lab_timed_out "$status"; then
        LAB_HUNG=1
        lab_say correctness "FAILED: --check did not finish within $LAB_CHECK_TIMEOUT s (a kernel that never ends: a loop that never stops, or a barrier some threads never reach)"
        LAB_REASONS+=("hang: --check did not finish within $LAB_CHECK_TIMEOUT s")
    elif [ "$status" -eq 3 ]; then
        lab_say correctness "FAILED: a CUDA error: ${cuda_error:-$(head -n 1 "$log")}"
        LAB_REASONS+=("crash: $(lab_clip "${cuda_error:-$(head -n 1 "$log")}")")
    elif [ "$status" -gt 128 ]; then
        lab_say correctness "FAILED: the program crashed (signal $(lab_signal_name "$status"))"
        LAB_REASONS+=("crash: signal $(lab_signal_name "$status") during --check")
    else
        lab_say correctness "FAILED: --check exited with status $status: $(head -n 1 "$log")"
        LAB_REASONS+=("check: exit status $status: $(lab_clip "$(head -n 1 "$log")")")
    fi
}

# ---- stage 2: compute-sanitizer ---------------------------------------------------------
# "RACECHECK SUMMARY: 3 hazards displayed (0 errors, 3 warnings)" or "ERROR SUMMARY: 2 errors":
# the count; nothing when the tool printed no summary.
lab_sanitizer_count() {
    local count
    count=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$1" | grep -oE '[0-9]+' | tail -n 1)
    [ -n "$count" ] || count=$(grep -oE 'ERROR SUMMARY: [0-9]+ error' "$1" | grep -oE '[0-9]+' | tail -n 1)
    echo "$count"
}

# The tool's first report: its headline and the line that says where ("at kernel+0x.. in file:line").
lab_sanitizer_first_report() {
    awk '/^========= / && !/COMPUTE-SANITIZER/ && !/SUMMARY/ && !/^=========[[:space:]]*$/ {
             text = $0; sub(/^=========[[:space:]]+/, "", text)
             if (headline == "") { headline = text; next }
             if (text ~ /^at /) { print headline ", " text; done = 1; exit }
         }
         END { if (!done && headline != "") print headline }' "$1"
}

# Sets LAB_CLEAN ("" when no sanitizer is installed or it did not run) and adds to LAB_REASONS.
lab_stage_sanitize() {   # PROGRAM LOGDIR
    local program=$1 logdir=$2 sanitizer tool n log status count report failed
    LAB_CLEAN=
    if [ "$LAB_HUNG" -eq 1 ]; then
        lab_say sanitizer "not run: the kernel did not finish under --check"
        return
    fi
    if ! sanitizer=$(lab_find_sanitizer); then
        lab_say sanitizer "not run: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, \$COMPUTE_SANITIZER): races and out-of-bounds accesses were not checked"
        return
    fi
    LAB_CLEAN=1
    for tool in "${LAB_SANITIZER_TOOLS[@]}"; do
        failed=
        for n in $LAB_SANITIZE_N; do
            log=$logdir/$tool-n$n.txt
            timeout -k "$LAB_KILL_AFTER" "$LAB_SANITIZER_TIMEOUT" "$sanitizer" --tool "$tool" \
                --error-exitcode "$LAB_SANITIZER_FOUND" "$program" -n "$n" "${LAB_ONE_RUN[@]}" >"$log" 2>&1
            status=$?
            count=$(lab_sanitizer_count "$log")
            if lab_timed_out "$status"; then
                failed="did not finish within $LAB_SANITIZER_TIMEOUT s at n = $n"
            elif [ "$status" -eq "$LAB_SANITIZER_FOUND" ] || [ "${count:-0}" != 0 ]; then
                report=$(lab_sanitizer_first_report "$log")
                failed="at n = $n: ${report:-$(grep -m 1 'SUMMARY' "$log")}"
            elif [ "$status" -gt 1 ]; then
                failed="at n = $n: the program stopped (exit status $status): $(grep -m 1 -E '^(CUDA error|[a-z0-9]+: )' "$log")"
            elif [ -z "$count" ]; then
                failed="at n = $n: no summary from the tool (exit status $status): $(tail -n 1 "$log")"
            fi
            [ -z "$failed" ] || break
        done
        if [ -n "$failed" ]; then
            LAB_CLEAN=0
            lab_say "$tool" "FAILED $failed ($(grep -m 1 -oE '(RACECHECK|ERROR) SUMMARY: .*' "$log"); log: ${log#"$LAB_ROOT"/})"
            LAB_REASONS+=("$tool $(lab_clip "$failed")")
        else
            lab_say "$tool" "clean at n = ${LAB_SANITIZE_N// /, }"
        fi
    done
}

# ---- stage 3: the time ------------------------------------------------------------------
# The --csv row of one program at LAB_TIMED_N: "ok ms cub_ms", or nothing.
lab_timed_row() {   # PROGRAM LOG
    timeout -k "$LAB_KILL_AFTER" "$LAB_TIME_TIMEOUT" "$1" --csv -n "$LAB_TIMED_N" >"$2" 2>&1 || return 1
    tail -n 1 "$2" | awk -F, -v ok="$LAB_COLUMN_OK" -v ms="$LAB_COLUMN_MS" -v cub="$LAB_COLUMN_CUB_MS" \
        'NF > cub && $ms > 0 {print $ok, $ms, $cub}'
}

# Sets LAB_MS, LAB_X_REFERENCE, LAB_X_CUB ("" when not measured).
lab_stage_time() {   # LAB PROGRAM LOGDIR
    local step program=$2 logdir=$3 mine reference ok ms cub reference_ms
    LAB_MS='' LAB_X_REFERENCE='' LAB_X_CUB=''
    step=$(lab_step "$1")
    if [ "$LAB_CORRECT" -ne 1 ]; then
        lab_say time "not measured: the kernel is not correct"
        return
    fi
    if ! mine=$(lab_timed_row "$program" "$logdir/time.csv") || [ -z "$mine" ]; then
        lab_say time "FAILED: the timed run at n = $LAB_TIMED_N did not finish cleanly: $(tail -n 1 "$logdir/time.csv")"
        LAB_REASONS+=("time: the run at n = $LAB_TIMED_N failed: $(lab_clip "$(tail -n 1 "$logdir/time.csv")")")
        return
    fi
    read -r ok ms cub <<<"$mine"
    LAB_MS=$ms
    [ "$ok" = 1 ] || LAB_REASONS+=("wrong result in the timed run at n = $LAB_TIMED_N")
    LAB_X_CUB=$(awk -v mine="$ms" -v cub="$cub" 'BEGIN {if (cub > 0) printf "%.2f", cub / mine}')
    reference=$(lab_timed_row "$LAB_ROOT/$step/run" "$logdir/reference.csv")
    reference_ms=${reference#* }
    reference_ms=${reference_ms%% *}
    [ -z "$reference" ] ||
        LAB_X_REFERENCE=$(awk -v mine="$ms" -v theirs="$reference_ms" 'BEGIN {printf "%.2f", theirs / mine}')
    lab_say time "$ms ms at n = $LAB_TIMED_N: ${LAB_X_REFERENCE:-?}x the speed of $step/run (${reference_ms:-not measured} ms), ${LAB_X_CUB:-?}x CUB's (${cub} ms, same process)"
}

# ---- the verdict ------------------------------------------------------------------------
lab_json_string() {
    local text=$1
    text=${text//\\/\\\\}
    text=${text//\"/\\\"}
    printf '"%s"' "$text"
}

lab_json_value() {   # "" -> null; 1/0 -> true/false with BOOLEAN; numbers as they are
    if [ -z "$1" ]; then printf null
    elif [ "${2:-}" = boolean ]; then [ "$1" = 1 ] && printf true || printf false
    else printf '%s' "$1"
    fi
}

lab_reason_text() {
    local IFS=';'
    local joined="${LAB_REASONS[*]}"
    printf '%s' "${joined//;/; }"
}

lab_passed() {
    [ "$LAB_BUILDS" = 1 ] && [ "$LAB_CORRECT" = 1 ] && [ "$LAB_CLEAN" != 0 ] && [ ${#LAB_REASONS[@]} -eq 0 ]
}

lab_verdict() {   # LAB
    if lab_passed; then
        lab_say verdict "PASSED$([ -z "$LAB_CLEAN" ] && echo ' (without compute-sanitizer: races and out-of-bounds accesses not checked)')"
    else
        lab_say verdict "FAILED: $(lab_reason_text)"
    fi
    printf '{"lab":%s,"builds":%s,"correct":%s,"sanitizer_clean":%s,"ms":%s,"x_reference":%s,"x_cub":%s,"reason":%s}\n' \
        "$(lab_json_string "$1")" "$(lab_json_value "$LAB_BUILDS" boolean)" \
        "$(lab_json_value "$LAB_CORRECT" boolean)" "$(lab_json_value "$LAB_CLEAN" boolean)" \
        "$(lab_json_value "$LAB_MS")" "$(lab_json_value "$LAB_X_REFERENCE")" \
        "$(lab_json_value "$LAB_X_CUB")" "$(lab_json_string "$(lab_reason_text)")"
}

lab_reset() {
    LAB_BUILDS='' LAB_CORRECT='' LAB_CLEAN='' LAB_HUNG=0 LAB_MS='' LAB_X_REFERENCE='' LAB_X_CUB=''
    LAB_REASONS=()
}

# A kernel that did not build: the verdict without running anything.
lab_build_failed() {   # LAB BUILD-LOG
    lab_reset
    LAB_BUILDS=0
    LAB_REASONS=("does not compile: $(lab_first_error "$2")")
    lab_say build "FAILED: $(lab_first_error "$2")"
    lab_verdict "$1"
}

# Grades a built program. Logs go to LOGDIR. Prints the stages and the verdict; the
# results stay in LAB_BUILDS, LAB_CORRECT, LAB_CLEAN, LAB_MS, LAB_X_REFERENCE, LAB_X_CUB,
# LAB_REASONS. Returns 0 when the kernel passed.
lab_check() {   # LAB PROGRAM LOGDIR
    lab_reset
    LAB_BUILDS=1
    mkdir -p "$3"
    lab_say build ok
    lab_stage_check "$2" "$3"
    lab_stage_sanitize "$2" "$3"
    lab_stage_time "$1" "$2" "$3"
    lab_verdict "$1"
    lab_passed
}

# ---- ./labs/labNN/run -------------------------------------------------------------------
lab_usage() {
    cat <<EOF
usage: ./labs/$1/run --check     build labs/$1/reduce.cu into $(lab_step "$1")'s program and grade it:
                                 its --check, compute-sanitizer, and the time beside the step
       ./labs/$1/run OPTIONS     build it and run the program with OPTIONS (--help lists them)
exit codes of --check: 0 passed, 1 failed (the verdict says why), 3 no GPU
EOF
}

lab_run() {   # LAB ARGUMENTS...
    local lab=$1 logdir build_log status
    shift
    logdir=$LAB_ROOT/build/labs/$lab/check
    rm -rf "$logdir"
    mkdir -p "$logdir"
    build_log=$logdir/build.txt
    if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
        lab_usage "$lab"
        echo
    fi
    if [ "${1:-}" != --check ]; then
        lab_make "$build_log" "$lab" || { cat "$build_log" >&2; echo "$lab: the build failed (above)" >&2; return 1; }
        exec "$LAB_ROOT/labs/$lab/program" "$@"
    fi
    [ $# -eq 1 ] || { lab_usage "$lab" >&2; return 2; }
    echo "$lab: labs/$lab/reduce.cu in $(lab_step "$lab")'s program (labs/$lab/program); logs in ${logdir#"$LAB_ROOT"/}/"
    if ! lab_make "$build_log" "$lab"; then
        head -n 40 "$build_log"
        lab_build_failed "$lab" "$build_log"
        return 1
    fi
    lab_require_gpu "$lab" >&2
    status=$?
    [ "$status" -eq 0 ] || return "$status"
    lab_check "$lab" "$LAB_ROOT/labs/$lab/program" "$logdir"
}
