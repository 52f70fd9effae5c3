# shellcheck shell=bash
# What ./labs/labNN/run and labs/grade.sh share: building a lab's program, and grading a
# student's kernel in it. Sourced, not run.
#
# lab_check grades one program in seven stages and prints what each found:
#   0. the host code (no GPU needed): labs/host_code.py, the kernel file's host side token for
#      token the starter's (labs/grade.sh; ./labs/labNN/run --check: the step's own file):
#      otherwise "host code: ..." and the kernel is built (for the compiler's errors), never run;
#   1. the compiled code (no GPU needed; with a GPU, read while stages 2-5 run):
#      labs/lesson.py reads the kernel's PTX for what the lesson requires and a GPU may forgive: barriers every thread of the block reaches, the
#      full mask on every warp instruction and the whole warp reaching it, the lab's own
#      instructions (lab05: the ticket's fences or memory order, in both variants, and the
#      acquire in every thread that reads); and, in a verdict of its own (LAB_LESSON, the
#      column lesson), whether the kernel uses the technique its lab teaches: lab01 whole warps
#      busy or idle (no per-thread modulo test in the tree), lab02 sequential addressing and
#      the first add during the load, lab03 every lane of the last warp working in each level,
#      lab04 loads in flight, a 64-bit index and the full mask, lab05 both fences or the
#      acquire-release order. A correct kernel that skips it fails the lesson, "lesson: ...";
#   2. the program's own --check (the correctness matrix), under a timeout, for the default
#      variant and every other variant the handout asks for (LAB_GRADED_VARIANTS), all at once:
#      correct, wrong (the first failing case; when that case is right in a fresh program,
#      state left over between launches), a hang, a CUDA error, a crash;
#   3. compute-sanitizer memcheck, racecheck and synccheck, one run each at an odd n and at
#      n = 1, for every graded variant, the tools side by side and beside --check (stopped
#      after a hang; where it is not installed: not checked, and no pass);
#   4. 64-bit indexing: one run at n = 2^32 (the largest n the programs take) with the last
#      element hot (only for a correct kernel), one program at a time per checkout (a lock):
#      about 17 GiB of GPU memory; where it is not free, "not checked" and no pass;
#   5. the time at n = 2^25 beside the step's own program, both with CUB in the same process
#      (only for a correct kernel);
#   6. the verdict, a line for people, then one JSON line for machines:
#      {"lab":..,"pass":..,"builds":..,"host_code":..,"instructions":..,"correct":..,
#       "sanitizer_clean":..,"index64":..,"ms":..,"x_reference":..,"x_cub":..,
#       "isolation":..,"lesson":..,"reason":..}
#      x_...: how many times as fast (above 1: faster); a stage that did not run is null. The
#      kernel passes only when every stage ran and found nothing: a stage that could not run
#      (no compute-sanitizer, too little GPU memory for n = 2^32) is "not checked", not a pass.
#      The reason names the cause first: the host code, then what the sanitizers saw, then
#      the compiled code, a hang or crash, and last the wrong sums they explain.
# Settings, from the environment (seconds, sizes):
#   LAB_CHECK_TIMEOUT [900]  LAB_SANITIZER_TIMEOUT [900]  LAB_TIME_TIMEOUT [300]
#   LAB_BUILD_TIMEOUT [900]  LAB_WIDE_TIMEOUT [300]  LAB_SANITIZE_N ["4099 1"]
#   LAB_TIMED_N [2^25]  LAB_WIDE_N [4294967296; empty: not checked, so no pass]
#   LAB_WIDE_LOCK [build/labs/index64.lock]: the lock the runs at n = LAB_WIDE_N share
#   COMPUTE_SANITIZER: the sanitizer's path, when it is neither on PATH nor in $CUDA_HOME/bin
#   LAB_SANDBOX (an array, set by labs/grade.sh): the command every run of a submission goes
#   through, so that it runs isolated
#   LAB_REFERENCE_ROWS (set by labs/grade.sh): a folder where the step's own timed row is
#   kept, so that the step's program is timed once a GPU for a whole class
#   LAB_GPU_LOCK (set by labs/grade.sh): a file whose lock the GPU stages of one submission
#   hold alone, so that no two submissions use the GPU at once (lab_with_gpu); with several
#   GPUs, one a GPU, and LAB_GPU_LOCK_SHARED, the lock of all of them, held shared

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_CHECK_TIMEOUT=${LAB_CHECK_TIMEOUT:-900}
LAB_SANITIZER_TIMEOUT=${LAB_SANITIZER_TIMEOUT:-900}
LAB_TIME_TIMEOUT=${LAB_TIME_TIMEOUT:-300}
LAB_BUILD_TIMEOUT=${LAB_BUILD_TIMEOUT:-900}
# 4099 = 2^12 + 3: a few whole blocks at any block size and a ragged tail, small enough to be
# quick (a sanitizer's run costs time with n) and enough to show every race and stray access of
# tests/wrong_kernels/ (the labs' tests grade them at it); 1: a single element.
LAB_SANITIZE_N=${LAB_SANITIZE_N:-4099 1}
LAB_TIMED_N=${LAB_TIMED_N:-2^25}
LAB_WIDE_TIMEOUT=${LAB_WIDE_TIMEOUT:-300}
LAB_WIDE_N=${LAB_WIDE_N-4294967296}
LAB_WIDE_LOCK=${LAB_WIDE_LOCK:-$LAB_ROOT/build/labs/index64.lock}
LAB_ISOLATION=${LAB_ISOLATION:-}      # labs/grade.sh: how each submission is isolated, for the verdict
LAB_WIDE_MARGIN_MIB=512         # device memory beside the input: block sums, CUDA's own
LAB_BYTES_PER_ELEMENT=4         # a float
LAB_BYTES_PER_MIB=$((1 << 20))
LAB_MIB_PER_GIB=1024
LAB_FRESH_RUNS=3                # a failing case rerun alone, each in a fresh program
LAB_CHECK_SEED=2026             # the programs' default --seed: --check fills its data set of
                                # n elements with seed + n (common/check.c)
LAB_SANITIZER_TOOLS=(memcheck racecheck synccheck)
LAB_ONE_RUN=(--iters 1 --warmup 0 --quiet --no-cub)
LAB_SANITIZER_FOUND=99          # compute-sanitizer's exit status when it reported something
LAB_KILL_AFTER=10               # seconds between timeout's TERM and its KILL
LAB_POLL_S=0.2                  # seconds between two looks at runs being stopped
LAB_REASON_WIDTH=300            # characters of a tool's message quoted in a failure
LAB_REASON_TOTAL=1200           # characters of the whole reason: whole failures, never part of one
LAB_REASON_SEPARATOR=$'\x1f'    # between failures while they are collected: no ';' of theirs
                                # (a compiler's 'expected a ";"') is taken for one
LAB_TIMED_OUT=(124 137)         # timeout's status: TERM worked, or KILL was needed

# ---- the lab table (labs/steps.txt) -----------------------------------------------------
lab_step() {   # LAB -> the step directory whose program the lab completes
    awk -v lab="$1" '$1 == lab {print $2; found = 1} END {exit !found}' "$LAB_ROOT/labs/steps.txt"
}

lab_names() {
    awk '/^lab/ {print $1}' "$LAB_ROOT/labs/steps.txt"
}

# The variants a lab's handout asks the student to write besides the default one: each is
# graded as the default is (labs/lab05/README.md, task 3: --variant atomic-ref).
lab_graded_variants() {   # LAB -> the variants, the default first ("" for it)
    echo ""
    case $1 in
    lab05) echo atomic-ref ;;
    esac
}

# ---- small helpers ----------------------------------------------------------------------
[ -n "${LAB_SANDBOX+set}" ] || LAB_SANDBOX=()

lab_say() { printf '%-12s %s\n' "$1" "$2"; }

# A tool's message (a compiler's error, a sanitizer's report) quoted in one line of at most
# LAB_REASON_WIDTH characters: a longer one is cut between two words, and says so.
lab_clip() {   # TEXT -> one line
    local text cut=" [cut: the log has the rest]"
    text=$(printf '%s' "$1" | tr '\n\t' '  ' | tr -s ' ')
    if [ ${#text} -gt "$LAB_REASON_WIDTH" ]; then
        text=${text:0:LAB_REASON_WIDTH-${#cut}}
        text="${text% *}$cut"
    fi
    printf '%s' "$text"
}

# Where cuobjdump is (the SASS of make labNN-sass and make ptx), or where it would be.
lab_cuobjdump_where() {
    local found candidate
    for candidate in "${CUOBJDUMP:-}" "$(command -v cuobjdump 2>/dev/null)" "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && found=$candidate && break
    done
    if [ -n "${found:-}" ]; then
        echo "$found"
    else
        echo "not installed here (${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump, package cuda-cuobjdump; CUOBJDUMP=path names one)"
    fi
}

lab_one_line() { printf '%s' "$1" | tr '\n\t' '  ' | tr -s ' '; }

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
        echo "$what needs a GPU for the rest: $(head -n 1 "$log")"
        rm -f "$log"
        return 3
    fi
    rm -f "$log"
    return 0
}

# "--variant V" for a variant other than the default, as words for a command line.
lab_variant_words() { [ -z "$1" ] || printf -- '--variant %s' "$1"; }
lab_variant_label() { [ -z "$1" ] && printf 'default variant' || printf -- '--variant %s' "$1"; }

# ---- stage 1: the compiled code ---------------------------------------------------------
# Sets LAB_INSTRUCTIONS and LAB_LESSON (1, 0, or "" when it could not be read) and adds to
# LAB_REASONS: "compiled code: ..." for what the lesson requires and a GPU may forgive,
# "lesson: TECHNIQUE: ..." for the lab's technique skipped in a kernel that may be right.
# With "read", LOGDIR/lesson.txt is already labs/lesson.py's (lab_lesson_run, beside the GPU
# stages), and only read.
lab_stage_lesson() {   # LAB PTX LOGDIR [read]
    local lab=$1 ptx=$2 log=$3/lesson.txt status line
    LAB_INSTRUCTIONS=
    LAB_LESSON=
    if ! command -v python3 >/dev/null 2>&1; then
        lab_say code "not read: python3 not found (labs/lesson.py reads the PTX)"
        return
    fi
    [ "${4:-}" = read ] || lab_lesson_run "$lab" "$ptx" "$3"
    status=$(<"$log.status")
    if [ "$status" -eq 0 ] || [ "$status" -eq 1 ]; then
        if grep -q '^missing: ' "$log"; then LAB_INSTRUCTIONS=0; else LAB_INSTRUCTIONS=1; fi
        if grep -q '^lesson: ' "$log"; then LAB_LESSON=0; else LAB_LESSON=1; fi
        [ "$LAB_INSTRUCTIONS" = 0 ] || lab_say code "$(grep -m 1 '^ok: ' "$log" | sed 's/^ok: //')"
        while IFS= read -r line; do
            lab_say code "FAILED: ${line#missing: }"
            # lesson.py's findings are sentences of its own, of bounded length: kept whole
            LAB_REASONS+=("compiled code: $(lab_one_line "${line#missing: }")")
        done < <(grep '^missing: ' "$log")
        grep '^lesson passed: ' "$log" | sed 's/^lesson passed: /ok: /' | while IFS= read -r line; do lab_say lesson "$line"; done
        while IFS= read -r line; do
            lab_say lesson "FAILED: ${line#lesson: }"
            LAB_REASONS+=("lesson: $(lab_one_line "${line#lesson: }")")
        done < <(grep '^lesson: ' "$log")
    else
        lab_say code "not read: $(head -n 1 "$log")"
    fi
}

# labs/lesson.py on the PTX: its findings into LOGDIR/lesson.txt, its exit status into .status.
lab_lesson_run() {   # LAB PTX LOGDIR
    python3 "$LAB_ROOT/labs/lesson.py" "$1" "$2" >"$3/lesson.txt" 2>&1
    echo $? >"$3/lesson.txt.status"
}

# ---- stage 2: the correctness matrix ----------------------------------------------------
# The options that rerun one case of --check alone, from its FAILED line; nothing when it
# cannot be rerun alone (an offset input, a case that compares two runs' bits).
lab_case_options() {   # FAILED-LINE
    local line=$1 n pattern offset threads blocks finish
    [[ $line != *"repeated run gave other bits"* ]] || return 1
    n=$(grep -oE 'n=[0-9]+' <<<"$line" | head -n 1) || return 1
    pattern=$(grep -oE 'pattern=[^ ]+' <<<"$line" | head -n 1)
    offset=$(grep -oE 'offset=[0-9]+' <<<"$line" | head -n 1)
    threads=$(grep -oE 'threads=[0-9]+' <<<"$line" | head -n 1)
    blocks=$(grep -oE 'blocks=[0-9]+' <<<"$line" | head -n 1)
    finish=$(grep -oE 'finish=[a-z]+' <<<"$line" | head -n 1)
    [ "${offset#offset=}" = 0 ] || return 1
    printf -- '-n %s --pattern %s --threads %s --seed %s' "${n#n=}" "${pattern#pattern=}" "${threads#threads=}" \
        "$((LAB_CHECK_SEED + ${n#n=}))"
    [ "${blocks#blocks=}" = 0 ] || printf -- ' --blocks %s' "${blocks#blocks=}"
    [ "${finish#finish=}" != cpu ] || printf -- ' --finish cpu'
}

# Is a case that failed in --check right each time it runs alone, in a fresh program?
lab_right_alone() {   # PROGRAM VARIANT FAILED-LINE LOG
    local options run
    options=$(lab_case_options "$3") || return 1
    for ((run = 0; run < LAB_FRESH_RUNS; run++)); do
        # shellcheck disable=SC2086,SC2046
        timeout -k "$LAB_KILL_AFTER" "$LAB_TIME_TIMEOUT" "${LAB_SANDBOX[@]}" "$1" $options \
            $(lab_variant_words "$2") "${LAB_ONE_RUN[@]}" >>"$4" 2>&1 || return 1
    done
}

# One variant's --check, its output into LOGDIR/check[-VARIANT].txt and its exit status into
# that file's .status.
lab_check_run() {   # PROGRAM LOGDIR VARIANT
    local log=$2/check${3:+-$3}.txt
    # shellcheck disable=SC2046
    timeout -k "$LAB_KILL_AFTER" "$LAB_CHECK_TIMEOUT" "${LAB_SANDBOX[@]}" "$1" --check \
        $(lab_variant_words "$3") >"$log" 2>&1
    echo $? >"$log.status"
}

# One variant's --check. Sets LAB_CORRECT to 0 when it fails, LAB_HUNG to 1 when it hangs.
lab_check_variant() {   # PROGRAM LOGDIR VARIANT
    lab_check_run "$@"
    lab_check_judge "$@"
}

# What one variant's --check (lab_check_run) found.
lab_check_judge() {   # PROGRAM LOGDIR VARIANT
    local program=$1 variant=$3 log status summary first cuda_error label suffix=''
    log=$2/check${variant:+-$variant}.txt
    label=$(lab_variant_label "$variant")
    [ -z "$variant" ] || suffix=" (--variant $variant)"
    status=$(<"$log.status")
    summary=$(grep -m 1 '^check: ' "$log")
    cuda_error=$(grep -m 1 '^CUDA error' "$log")
    [ "$status" -eq 0 ] || LAB_CORRECT=0
    if [ "$status" -eq 0 ]; then
        lab_say correctness "ok, $label: $summary"
    elif [ "$status" -eq 1 ]; then
        first=$(grep -m 1 '^FAILED ' "$log")
        first=${first#FAILED }
        lab_say correctness "FAILED, $label: ${summary#check: }"
        if [ -n "$first" ] && lab_right_alone "$program" "$variant" "$first" "$2/fresh${variant:+-$variant}.txt"; then
            lab_say state "FAILED: ${first%%:*} is right in a fresh program and wrong after the launches before it in --check"
            LAB_REASONS+=("state left over between launches$suffix: a second run on the same buffers gave another answer ($(lab_clip "${first%%:*}"): right in a fresh program, wrong after earlier launches): something the first launch set was not reset")
        else
            LAB_REASONS+=("wrong result$suffix: $(lab_clip "${first:-${summary#check: }}")")
        fi
    elif lab_timed_out "$status"; then
        LAB_HUNG=1
        lab_say correctness "FAILED, $label: --check did not finish within $LAB_CHECK_TIMEOUT s (a kernel that never ends: a loop that never stops, or a barrier some threads never reach)"
        LAB_REASONS+=("hang$suffix: --check did not finish within $LAB_CHECK_TIMEOUT s")
    elif [ "$status" -eq 3 ]; then
        lab_say correctness "FAILED, $label: a CUDA error: ${cuda_error:-$(head -n 1 "$log")}"
        LAB_REASONS+=("crash$suffix: $(lab_clip "${cuda_error:-$(head -n 1 "$log")}")")
    elif [ "$status" -gt 128 ]; then
        lab_say correctness "FAILED, $label: the program crashed (signal $(lab_signal_name "$status"))"
        LAB_REASONS+=("crash$suffix: signal $(lab_signal_name "$status") during --check")
    else
        lab_say correctness "FAILED, $label: --check exited with status $status: $(head -n 1 "$log")"
        LAB_REASONS+=("check$suffix: exit status $status: $(lab_clip "$(head -n 1 "$log")")")
    fi
}

# Sets LAB_CORRECT (1 or 0) and LAB_HUNG (1 or 0), adds to LAB_REASONS. Every graded variant's
# --check at once (a --check is mostly its host's work), then read in the variants' order.
lab_stage_check() {   # LAB PROGRAM LOGDIR
    local variant variants runs=()
    LAB_CORRECT=1
    LAB_HUNG=0
    mapfile -t variants < <(lab_graded_variants "$1")
    for variant in "${variants[@]}"; do
        lab_check_run "$2" "$3" "$variant" &
        runs+=($!)
    done
    wait "${runs[@]}"
    for variant in "${variants[@]}"; do
        [ "$LAB_HUNG" -eq 0 ] || break
        lab_check_judge "$2" "$3" "$variant"
    done
}

# ---- stage 3: compute-sanitizer ---------------------------------------------------------
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

# One tool on one variant, at each n of LAB_SANITIZE_N: what it found, or nothing.
lab_sanitize_variant() {   # SANITIZER TOOL PROGRAM LOGDIR VARIANT
    local sanitizer=$1 tool=$2 program=$3 logdir=$4 variant=$5 n log status count report
    local found_dir=$4/sanitizer-found
    for n in $LAB_SANITIZE_N; do
        [ ! -e "$found_dir/stop" ] || return 0
        log=$logdir/$tool${variant:+-$variant}-n$n.txt
        # shellcheck disable=SC2046
        timeout -k "$LAB_KILL_AFTER" "$LAB_SANITIZER_TIMEOUT" "${LAB_SANDBOX[@]}" "$sanitizer" --tool "$tool" \
            --error-exitcode "$LAB_SANITIZER_FOUND" "$program" -n "$n" $(lab_variant_words "$variant") \
            "${LAB_ONE_RUN[@]}" >"$log" 2>&1 &
        echo $! >"$found_dir/$tool${variant:+-$variant}.pid"
        wait $!
        status=$?
        count=$(lab_sanitizer_count "$log")
        if lab_timed_out "$status"; then
            echo "did not finish within $LAB_SANITIZER_TIMEOUT s at n = $n"
        elif [ "$status" -eq "$LAB_SANITIZER_FOUND" ] || [ "${count:-0}" != 0 ]; then
            report=$(lab_sanitizer_first_report "$log")
            echo "at n = $n: ${report:-$(grep -m 1 'SUMMARY' "$log")}"
        elif [ "$status" -gt 1 ]; then
            echo "at n = $n: the program stopped (exit status $status): $(grep -m 1 -E '^(CUDA error|[a-z0-9/]+: )' "$log")"
        elif [ -z "$count" ]; then
            echo "at n = $n: no summary from the tool (exit status $status): $(tail -n 1 "$log")"
        else
            continue
        fi
        echo "$log"
        return
    done
}

# Every tool on every graded variant at once, each into a file of its own, in the background
# (LAB_SANITIZER_RUNS): a sanitizer's run is mostly its own start-up and instrumentation on the
# host, so the runs overlap well, with each other and with --check. Sets LAB_CLEAN to 1, or to
# "" when no sanitizer is installed.
lab_sanitize_start() {   # LAB PROGRAM LOGDIR
    local sanitizer tool index variants found_dir=$3/sanitizer-found
    LAB_SANITIZER_RUNS=()
    LAB_CLEAN=
    if ! sanitizer=$(lab_find_sanitizer); then
        lab_say sanitizer "not run: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, \$COMPUTE_SANITIZER): races and out-of-bounds accesses were not checked"
        return
    fi
    LAB_CLEAN=1
    rm -rf "$found_dir"
    mkdir -p "$found_dir"
    mapfile -t variants < <(lab_graded_variants "$1")
    for tool in "${LAB_SANITIZER_TOOLS[@]}"; do
        for index in "${!variants[@]}"; do
            lab_sanitize_variant "$sanitizer" "$tool" "$2" "$3" "${variants[$index]}" \
                >"$found_dir/$tool-$index" &
            LAB_SANITIZER_RUNS+=($!)
        done
    done
}

# Stops the sanitizer runs still going (a kernel that never ends under --check would hold
# them to their timeout): no run starts after the stop mark, and each one running is sent
# TERM (timeout passes it on) until all have ended.
lab_sanitize_stop() {   # LOGDIR
    local found_dir=$1/sanitizer-found pid file alive=1
    touch "$found_dir/stop"
    while [ "$alive" -eq 1 ]; do
        alive=0
        for file in "$found_dir"/*.pid; do
            [ ! -e "$file" ] || kill -TERM "$(<"$file")" 2>/dev/null
        done
        for pid in "${LAB_SANITIZER_RUNS[@]}"; do
            ! kill -0 "$pid" 2>/dev/null || alive=1
        done
        [ "$alive" -eq 0 ] || sleep "$LAB_POLL_S"
    done
    wait "${LAB_SANITIZER_RUNS[@]}" 2>/dev/null
}

# Waits for the runs lab_sanitize_start began, and reads their findings in the tools' order,
# the first failing variant of each; after a hang under --check, stops them instead ("not
# run", LAB_CLEAN ""). Adds to LAB_REASONS.
lab_sanitize_finish() {   # LAB PROGRAM LOGDIR
    local logdir=$3 tool variant variants found failed log index found_dir=$3/sanitizer-found
    [ -n "$LAB_CLEAN" ] || return 0
    if [ "$LAB_HUNG" -eq 1 ]; then
        lab_sanitize_stop "$logdir"
        LAB_CLEAN=
        lab_say sanitizer "not run: the kernel did not finish under --check"
        return
    fi
    wait "${LAB_SANITIZER_RUNS[@]}"
    mapfile -t variants < <(lab_graded_variants "$1")
    for tool in "${LAB_SANITIZER_TOOLS[@]}"; do
        failed=
        for index in "${!variants[@]}"; do
            variant=${variants[$index]}
            found=$(cat "$found_dir/$tool-$index")
            [ -z "$found" ] || { failed=$found; break; }
        done
        if [ -n "$failed" ]; then
            log=$(tail -n 1 <<<"$failed")
            failed=$(head -n 1 <<<"$failed")
            LAB_CLEAN=0
            lab_say "$tool" "FAILED${variant:+ (--variant $variant)} $failed ($(grep -m 1 -oE '(RACECHECK|ERROR) SUMMARY: .*' "$log"); log: ${log#"$LAB_ROOT"/})"
            LAB_REASONS+=("$tool${variant:+ (--variant $variant)} $(lab_clip "$failed")")
        else
            lab_say "$tool" "clean at n = ${LAB_SANITIZE_N// /, }"
        fi
    done
}

# Sets LAB_CLEAN ("" when no sanitizer is installed or it did not run) and adds to LAB_REASONS.
lab_stage_sanitize() {   # LAB PROGRAM LOGDIR
    lab_sanitize_start "$@"
    lab_sanitize_finish "$@"
}

# ---- stage 4: 64-bit indexing -----------------------------------------------------------
# MiB of device memory free on the GPU the program uses (the first visible one); nothing
# when nvidia-smi cannot say.
lab_free_mib() {
    local device=${CUDA_VISIBLE_DEVICES-}
    device=${device%%,*}
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits ${device:+-i "$device"} 2>/dev/null |
        head -n 1 | grep -oE '^[0-9]+'
}

# Sets LAB_WIDE (1, 0, or "" when it could not run: then LAB_UNCHECKED says why) and adds
# to LAB_REASONS. One run at n = LAB_WIDE_N (2^32, the most the programs take) with only the
# last element hot: an index that wraps (an int, an unsigned product, a 32-bit grid-stride
# index) loses it or never ends. The runs of every grader of this checkout take turns (flock
# on LAB_WIDE_LOCK), so that `labs/grade.sh -j N` does not run two at once; the memory is
# looked at once the lock is held.
lab_stage_wide() {   # PROGRAM LOGDIR
    local program=$1 log=$2/index64.txt need_mib need_gib free status line lock
    LAB_WIDE=
    if [ "$LAB_CORRECT" != 1 ]; then
        lab_say index64 "not run: the kernel is not correct at the sizes of --check"
        return
    fi
    if [ -z "$LAB_WIDE_N" ]; then
        lab_say index64 "NOT CHECKED: LAB_WIDE_N is empty"
        LAB_UNCHECKED+=("64-bit index: not run (LAB_WIDE_N is empty)")
        return
    fi
    need_mib=$(((LAB_WIDE_N * LAB_BYTES_PER_ELEMENT + LAB_BYTES_PER_MIB - 1) / LAB_BYTES_PER_MIB + LAB_WIDE_MARGIN_MIB))
    need_gib=$(((need_mib + LAB_MIB_PER_GIB - 1) / LAB_MIB_PER_GIB))
    mkdir -p "$(dirname "$LAB_WIDE_LOCK")"
    exec {lock}>>"$LAB_WIDE_LOCK"
    flock "$lock"
    free=$(lab_free_mib)
    if [ -n "$free" ] && [ "$free" -lt "$need_mib" ]; then
        exec {lock}>&-
        lab_say index64 "NOT CHECKED: needs $need_gib GiB of GPU memory, $((free / LAB_MIB_PER_GIB)) GiB free (nvidia-smi)"
        LAB_UNCHECKED+=("64-bit index at n = $LAB_WIDE_N: needs $need_gib GiB of GPU memory, $((free / LAB_MIB_PER_GIB)) GiB free")
        return
    fi
    timeout -k "$LAB_KILL_AFTER" "$LAB_WIDE_TIMEOUT" "${LAB_SANDBOX[@]}" "$program" -n "$LAB_WIDE_N" \
        --pattern onehot:last --buffers 1 "${LAB_ONE_RUN[@]}" >"$log" 2>&1
    status=$?
    exec {lock}>&-
    line=$(grep -m 1 -E ' n=[0-9]+ ' "$log")
    if [ "$status" -eq 0 ]; then
        LAB_WIDE=1
        lab_say index64 "ok at n = $LAB_WIDE_N, the last element hot: $line"
    elif [ "$status" -eq 3 ] && grep -qE '^not enough (device|host) memory' "$log"; then
        lab_say index64 "NOT CHECKED: $(grep -m 1 -E '^not enough' "$log")"
        LAB_UNCHECKED+=("64-bit index at n = $LAB_WIDE_N: $(lab_clip "$(grep -m 1 -E '^not enough' "$log")")")
    elif lab_timed_out "$status"; then
        LAB_WIDE=0
        lab_say index64 "FAILED: did not finish within $LAB_WIDE_TIMEOUT s at n = $LAB_WIDE_N"
        LAB_REASONS+=("64-bit index: no result within $LAB_WIDE_TIMEOUT s at n = $LAB_WIDE_N with --pattern onehot:last: a loop whose index never reaches n (a 32-bit index wraps before 2^32): index with size_t")
    else
        LAB_WIDE=0
        [ -n "$line" ] || line="exit status $status: $(grep -m 1 -E '^CUDA error' "$log" || head -n 1 "$log")"
        lab_say index64 "FAILED at n = $LAB_WIDE_N, the last element hot: $line"
        LAB_REASONS+=("64-bit index: wrong at n = $LAB_WIDE_N with --pattern onehot:last ($(lab_clip "$line")): an element index that wraps (an int, a 32-bit product or a 32-bit grid-stride index): index with size_t")
    fi
}

# ---- stage 5: the time ------------------------------------------------------------------
# The --csv row of one program at LAB_TIMED_N: "ok ms cub_ms", or nothing. The columns are
# found by their names in the header (common/report.c), not by their places.
lab_timed_row() {   # PROGRAM LOG [isolated: a submission's]
    timeout -k "$LAB_KILL_AFTER" "$LAB_TIME_TIMEOUT" ${3:+"${LAB_SANDBOX[@]}"} "$1" --csv -n "$LAB_TIMED_N" \
        >"$2" 2>&1 || return 1
    awk -F, '/^step,/ { for (c = 1; c <= NF; c++) column[$c] = c; next }
             { last = $0 }
             END { if (!("ok" in column) || last == "") exit
                   split(last, row, ",")
                   if (row[column["ms_median"]] > 0)
                       print row[column["ok"]], row[column["ms_median"]], row[column["cub_ms_median"]] }' "$2"
}

# The step's own program's row at LAB_TIMED_N. Under labs/grade.sh (LAB_REFERENCE_ROWS, a
# folder of the grading's own), one run a GPU for the whole class: every submission is then
# compared with the same run, and a class of 30 saves 29 of them. Alone: a run each time.
lab_reference_row() {   # STEP LOG
    local row saved=${LAB_REFERENCE_ROWS:+$LAB_REFERENCE_ROWS/$1-gpu${CUDA_VISIBLE_DEVICES:-all}.row}
    if [ -n "$saved" ] && [ -s "$saved" ]; then
        cat "$saved"
        return
    fi
    row=$(lab_timed_row "$LAB_ROOT/$1/run" "$2") || return 1
    [ -z "$saved" ] || [ -z "$row" ] || echo "$row" >"$saved"
    echo "$row"
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
    if ! mine=$(lab_timed_row "$program" "$logdir/time.csv" isolated) || [ -z "$mine" ]; then
        lab_say time "FAILED: the timed run at n = $LAB_TIMED_N did not finish cleanly: $(tail -n 1 "$logdir/time.csv")"
        LAB_REASONS+=("time: the run at n = $LAB_TIMED_N failed: $(lab_clip "$(tail -n 1 "$logdir/time.csv")")")
        return
    fi
    read -r ok ms cub <<<"$mine"
    LAB_MS=$ms
    [ "$ok" = 1 ] || LAB_REASONS+=("wrong result in the timed run at n = $LAB_TIMED_N")
    LAB_X_CUB=$(awk -v mine="$ms" -v cub="$cub" 'BEGIN {if (cub > 0) printf "%.2f", cub / mine}')
    reference=$(lab_reference_row "$step" "$logdir/reference.csv")
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

# The rank of a failure in the reason: the cause before what it causes. An out-of-bounds
# read comes before the wrong sum (or the "state left over") it produces.
lab_reason_rank() {
    case $1 in
    "does not compile"*) echo 0 ;;
    "host code"*) echo 1 ;;
    memcheck*) echo 2 ;;
    racecheck* | synccheck*) echo 3 ;;
    "compiled code"*) echo 4 ;;
    lesson*) echo 8 ;;
    hang* | crash*) echo 5 ;;
    "64-bit index"*) echo 6 ;;
    "wrong result"* | "state left over"* | check*) echo 7 ;;
    "not checked"*) echo 9 ;;
    *) echo 8 ;;
    esac
}

# The failures, causes first, each once, joined with "; ". Only whole failures: those that
# do not fit in LAB_REASON_TOTAL characters are counted at the end, never cut.
lab_reason_text() {
    local reasons=("${LAB_REASONS[@]}") line
    [ ${#LAB_UNCHECKED[@]} -eq 0 ] || reasons+=("not checked: $(IFS="$LAB_REASON_SEPARATOR"; echo "${LAB_UNCHECKED[*]}")")
    [ ${#reasons[@]} -gt 0 ] || return 0
    for line in "${reasons[@]}"; do
        line=${line//$'\n'/ }
        printf '%s\t%s\n' "$(lab_reason_rank "$line")" "${line//$LAB_REASON_SEPARATOR/, }"
    done | sort -s -t $'\t' -k 1,1n | cut -f 2- | awk '!seen[$0]++' |
        awk -v total="$LAB_REASON_TOTAL" '
            function more(count) {
                return count ? "; and " count " more failure" (count > 1 ? "s" : "") " (the logs hold every one)" : ""
            }
            { failure[NR] = $0 }
            END {
                for (kept = 0; kept < NR; kept++) {   # the first whole, and each next one that fits
                    next_text = text (kept ? "; " : "") failure[kept + 1]
                    if (kept && length(next_text more(NR - kept - 1)) > total) break
                    text = next_text
                }
                printf "%s%s", text, more(NR - kept)
            }'
}

# Passed: the host code is the starter's, it built, the compiled code holds what the lesson
# requires and uses the lab's technique (LAB_LESSON), every graded variant correct, no sanitizer report, right at n = 2^32, no reason,
# and every one of those stages ran: one that could not (no python3, no compute-sanitizer,
# too little GPU memory) leaves the kernel not passed.
lab_passed() {
    [ "$LAB_HOST_CODE" != 0 ] && [ "$LAB_BUILDS" = 1 ] && [ "$LAB_INSTRUCTIONS" = 1 ] &&
        [ "$LAB_LESSON" = 1 ] && [ "$LAB_CORRECT" = 1 ] && [ "$LAB_CLEAN" = 1 ] && [ "$LAB_WIDE" = 1 ] &&
        [ ${#LAB_REASONS[@]} -eq 0 ] && [ ${#LAB_UNCHECKED[@]} -eq 0 ]
}

# 1 passed, 0 failed or not fully checked, "" not decided (no GPU: built and read, not run).
lab_pass_value() {
    if [ -z "$LAB_CORRECT" ] && [ "$LAB_BUILDS" = 1 ] && [ ${#LAB_REASONS[@]} -eq 0 ]; then echo ''
    elif lab_passed; then echo 1
    else echo 0
    fi
}

lab_verdict() {   # LAB
    if [ ${#LAB_REASONS[@]} -eq 0 ]; then   # what a failure does not already explain
        [ -n "$LAB_CLEAN" ] || [ -z "$LAB_CORRECT" ] ||
            LAB_UNCHECKED+=("races and out-of-bounds accesses: compute-sanitizer did not run")
        [ -n "$LAB_INSTRUCTIONS" ] || [ "$LAB_BUILDS" != 1 ] || LAB_UNCHECKED+=("the compiled code: not read")
        [ -n "$LAB_LESSON" ] || [ "$LAB_BUILDS" != 1 ] || [ -z "$LAB_INSTRUCTIONS" ] ||
            LAB_UNCHECKED+=("the lesson: not read")
    fi
    if [ -z "$LAB_CORRECT" ] && [ "$(lab_pass_value)" = '' ]; then
        lab_say verdict "NOT GRADED: it builds$([ "$LAB_INSTRUCTIONS" = 1 ] && echo ', and the compiled code shows no barrier or warp instruction that some threads skip and no missing instruction of the lesson'). Not checked without a GPU: the sums (--check), races and out-of-bounds accesses (compute-sanitizer), the index at n = 2^32 and the time; a race or a wrong index shows only there"
    elif lab_passed; then
        lab_say verdict "PASSED${LAB_ISOLATION:+ (isolation: $LAB_ISOLATION)}"
    elif [ ${#LAB_REASONS[@]} -eq 0 ]; then
        lab_say verdict "NOT PASSED: $(lab_reason_text)"
    else
        lab_say verdict "FAILED: $(lab_reason_text)"
    fi
    printf '{"lab":%s,"pass":%s,"builds":%s,"host_code":%s,"instructions":%s,"correct":%s,"sanitizer_clean":%s,"index64":%s,"ms":%s,"x_reference":%s,"x_cub":%s,"isolation":%s,"lesson":%s,"reason":%s}\n' \
        "$(lab_json_string "$1")" "$(lab_json_value "$(lab_pass_value)" boolean)" \
        "$(lab_json_value "$LAB_BUILDS" boolean)" "$(lab_json_value "$LAB_HOST_CODE" boolean)" \
        "$(lab_json_value "$LAB_INSTRUCTIONS" boolean)" \
        "$(lab_json_value "$LAB_CORRECT" boolean)" "$(lab_json_value "$LAB_CLEAN" boolean)" \
        "$(lab_json_value "$LAB_WIDE" boolean)" "$(lab_json_value "$LAB_MS")" \
        "$(lab_json_value "$LAB_X_REFERENCE")" "$(lab_json_value "$LAB_X_CUB")" \
        "$(lab_json_string "${LAB_ISOLATION:-none}")" "$(lab_json_value "$LAB_LESSON" boolean)" \
        "$(lab_json_string "$(lab_reason_text)")"
}

lab_reset() {
    LAB_BUILDS='' LAB_INSTRUCTIONS='' LAB_LESSON='' LAB_CORRECT='' LAB_CLEAN='' LAB_WIDE='' LAB_HUNG=0 LAB_MS=''
    LAB_X_REFERENCE='' LAB_X_CUB='' LAB_HOST_CODE=''
    LAB_REASONS=()
    LAB_UNCHECKED=()
}

# ---- stage 0: the host code -------------------------------------------------------------
# Is the host side of KERNEL (shown as NAME) the same, token for token, as that of one of the
# REFERENCES?
# Sets LAB_HOST_CODE (1, 0, or "" when python3 is missing) and adds to LAB_REASONS.
lab_stage_host() {   # KERNEL NAME LOGDIR REFERENCE...
    local kernel=$1 name=$2 log=$3/host_code.txt status line
    shift 3
    LAB_HOST_CODE=
    mkdir -p "$(dirname "$log")"
    if ! command -v python3 >/dev/null 2>&1; then
        lab_say host "NOT CHECKED: python3 not found (labs/host_code.py compares the host code)"
        LAB_UNCHECKED+=("the host code: python3 not found")
        return
    fi
    python3 "$LAB_ROOT/labs/host_code.py" --name "$name" "$kernel" "$@" >"$log" 2>&1
    status=$?
    if [ "$status" -eq 0 ]; then
        LAB_HOST_CODE=1
        lab_say host "ok: the host code is the starter's"
    elif [ "$status" -eq 1 ]; then
        LAB_HOST_CODE=0
        while IFS= read -r line; do
            lab_say host "FAILED: ${line#host: }"
            LAB_REASONS+=("host code: $(lab_clip "${line#host: }")")
        done < <(grep '^host: ' "$log")
    else
        lab_say host "NOT CHECKED: $(head -n 1 "$log")"
        LAB_UNCHECKED+=("the host code: $(lab_clip "$(head -n 1 "$log")")")
    fi
}

# A kernel whose host code is not the starter's: it built; the verdict without running it.
lab_host_code_failed() {   # LAB
    LAB_BUILDS=1
    lab_say build "ok, and not run: only device code may differ from the starter"
    lab_verdict "$1"
}

# A kernel that did not build: the verdict without running anything.
lab_build_failed() {   # LAB BUILD-LOG
    LAB_BUILDS=0
    LAB_REASONS+=("does not compile: $(lab_first_error "$2")")
    lab_say build "FAILED: $(lab_first_error "$2")"
    lab_verdict "$1"
}

# A built kernel without a GPU: its compiled code is read, nothing is run. Returns 1 when the
# code already fails, 3 otherwise.
lab_check_without_gpu() {   # LAB PTX LOGDIR
    LAB_BUILDS=1
    mkdir -p "$3"
    lab_say build ok
    lab_stage_lesson "$1" "$2" "$3"
    lab_say correctness "not run: no GPU"
    lab_verdict "$1"
    [ "$LAB_INSTRUCTIONS" = 0 ] || [ "$LAB_LESSON" = 0 ] && return 1
    return 3
}

# Grades a built program and its PTX. Logs go to LOGDIR. Prints the stages and the verdict;
# the results stay in LAB_BUILDS, LAB_HOST_CODE, LAB_INSTRUCTIONS, LAB_CORRECT, LAB_CLEAN,
# LAB_WIDE, LAB_MS, LAB_X_REFERENCE, LAB_X_CUB, LAB_REASONS, LAB_UNCHECKED. Returns 0 when the
# kernel passed. The host code stage (lab_stage_host) runs before the build, after lab_reset.
lab_check() {   # LAB PROGRAM PTX LOGDIR
    local reading
    LAB_BUILDS=1
    mkdir -p "$4"
    lab_say build ok
    # The PTX is read while the GPU stages run; their lines are printed after its.
    lab_lesson_run "$1" "$3" "$4" &
    reading=$!
    lab_with_gpu lab_gpu_stages "$1" "$2" "$4" >"$4/gpu-stages.txt"
    wait "$reading"
    lab_stage_lesson "$1" "$3" "$4" read
    cat "$4/gpu-stages.txt"
    lab_verdict "$1"
    lab_passed
}

lab_gpu_stages() {   # LAB PROGRAM LOGDIR
    lab_sanitize_start "$1" "$2" "$3"
    lab_stage_check "$1" "$2" "$3"
    lab_sanitize_finish "$1" "$2" "$3"
    lab_stage_wide "$2" "$3"
    lab_stage_time "$1" "$2" "$3"
}

# COMMAND [ARGS]: with the GPU to itself where labs/grade.sh grades several submissions at once
# (LAB_GPU_LOCK, held alone). Sharing a GPU, a kernel that never ends would slow the others'
# runs past their timeouts, and the timed runs would disturb each other.
lab_with_gpu() {
    local lock shared status
    if [ -z "${LAB_GPU_LOCK:-}" ]; then
        "$@"
        return
    fi
    mkdir -p "$(dirname "$LAB_GPU_LOCK")"
    if [ -n "${LAB_GPU_LOCK_SHARED:-}" ]; then
        exec {shared}>>"$LAB_GPU_LOCK_SHARED"
        flock -s "$shared"
    fi
    exec {lock}>>"$LAB_GPU_LOCK"
    flock -x "$lock"
    "$@"
    status=$?
    exec {lock}>&-
    [ -z "${LAB_GPU_LOCK_SHARED:-}" ] || exec {shared}>&-
    return "$status"
}

# ---- ./labs/labNN/run -------------------------------------------------------------------
lab_usage() {
    cat <<USAGE
usage: ./labs/$1/run --check     build labs/$1/reduce.cu into $(lab_step "$1")'s program and grade it:
                                 its host code (only device code may differ from the step's),
                                 its compiled code, its --check, compute-sanitizer, a run at
                                 n = 2^32, and the time beside the step
       ./labs/$1/run OPTIONS     build it and run the program with OPTIONS (listed below)
exit codes of --check: 0 passed, 1 failed or not fully checked (the verdict says why), 3 no
GPU (the host code, the build and the compiled code were checked, nothing was run)
USAGE
}

# Runs the lab's program under the lab's own name: argv[0] names it for its --help and usage
# errors (common/options.c), and the messages the step's code prefixes with the step's name
# ("step05: no CUDA device") are renamed on the way to stderr.
lab_exec_program() {   # LAB ARGUMENTS...
    local lab=$1 step status
    shift
    step=$(lab_step "$lab")
    step=${step%%_*}
    { (exec -a "labs/$lab/run" "$LAB_ROOT/labs/$lab/program" "$@") 2>&1 1>&3 3>&- |
        sed -u "s#^$step\\([: ]\\)#labs/$lab/run\\1#; s#$step/run --help#labs/$lab/run --help#" >&2; } 3>&1
    status=${PIPESTATUS[0]}
    return "$status"
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
        lab_make "$build_log" "$lab" || { cat "$build_log" >&2; echo "labs/$lab/run: the build failed (above)" >&2; return 1; }
        lab_exec_program "$lab" "$@"
        return
    fi
    [ $# -eq 1 ] || { lab_usage "$lab" >&2; return 2; }
    echo "$lab: labs/$lab/reduce.cu in $(lab_step "$lab")'s program (labs/$lab/program); logs in ${logdir#"$LAB_ROOT"/}/"
    lab_reset
    lab_stage_host "$LAB_ROOT/labs/$lab/reduce.cu" "labs/$lab/reduce.cu" "$logdir" \
        "$LAB_ROOT/$(lab_step "$lab")/reduce.cu"
    if ! lab_make "$build_log" "$lab" "$lab-ptx"; then
        head -n 40 "$build_log"
        lab_build_failed "$lab" "$build_log"
        return 1
    fi
    if [ "$LAB_HOST_CODE" = 0 ]; then
        lab_host_code_failed "$lab"
        return 1
    fi
    if ! lab_require_gpu "$lab" >&2; then
        lab_check_without_gpu "$lab" "$LAB_ROOT/build/labs/$lab/reduce.ptx" "$logdir"
        status=$?
        echo "Without a GPU: read the PTX (make $lab-ptx) and the SASS, what the GPU runs (make $lab-sass;" >&2
        echo "  make ptx writes the steps'), and do the tasks that labs/$lab/README.md marks \"no GPU\";" >&2
        echo "  run --check where there is one. The SASS needs cuobjdump, from the CUDA toolkit's bin:" >&2
        echo "  $(lab_cuobjdump_where)." >&2
        return "$status"
    fi
    lab_check "$lab" "$LAB_ROOT/labs/$lab/program" "$LAB_ROOT/build/labs/$lab/reduce.ptx" "$logdir"
}
