#!/usr/bin/env bash
# Grades a folder of student kernels for one lab: one CSV row per student.
#
#   labs/grade.sh [-j N] [-o FILE] [--logs DIR] SUBMISSIONS [labNN]
#   make grade SUBMISSIONS=dir LAB=labNN [GRADE_JOBS=N]
#
# SUBMISSIONS holds one kernel per student: SUBMISSIONS/<student>.cu or
# SUBMISSIONS/<student>/reduce.cu, each a complete reduce.cu for the lab's step (the lab's
# starter with its holes filled). The lab is the second argument, or else the folder's name
# when it contains one (e.g. submissions/lab03). Each kernel is copied into a scratch folder,
# built there with the step's host code (labs/labs.mk: lab-submission) and graded as
# ./labs/labNN/run --check grades (labs/check.sh), with timeouts at every stage. A kernel that
# does not compile, hangs, crashes or reads or writes out of bounds gets its row and the
# reason, and the next one is graded. labs/labNN/ itself is never written to.
#
# The CSV goes to stdout, a row as each submission finishes (so a run stopped half-way keeps
# every row it graded), and the same rows to FILE with -o and to DIR/grades.csv; each
# student's full verdict and tool logs go to DIR/<student>/ (default build/labs/grades/labNN/).
# Progress goes to stderr. Columns:
#   student,pass,builds,instructions,correct,sanitizer_clean,index64,ms,x_reference,x_cub,reason
#   pass: 1 passed, 0 failed, empty not decided (no GPU). builds, instructions (the compiled
#   code holds what the lesson requires: labs/lesson.py), correct (every graded variant's
#   --check), sanitizer_clean, index64 (right past 2^31 elements): 1 or 0; empty where the
#   stage did not run (no build, a hang, no GPU, no compute-sanitizer, too little GPU memory
#   for the 2^31 case). ms: median time at n = 2^25; x_reference and x_cub: how many times as
#   fast as the step's own kernel and as CUB (above 1: faster).
# One submission at a time on the GPU unless -j N asks for N at once (the times then disturb
# each other). A kernel that hangs costs about two minutes: grading stops its --check after
# LAB_CHECK_TIMEOUT = 100 s (the other runs after at most 100 s, the sanitizers after
# 300 s); set them in the environment to change that (labs/check.sh lists them all).
# Without a GPU every submission is still built and its compiled code read: the CSV has
# builds, instructions, pass (0 where either failed) and the compiler's first error; the rest
# needs a GPU (docs/instructors.md, "Running a lab on a shared cluster").
# Exit codes: 0 every submission graded, 2 usage error, 3 no GPU (built and read only).
set -uo pipefail
# Grading a class: a hang must not cost a quarter of an hour.
export LAB_CHECK_TIMEOUT=${LAB_CHECK_TIMEOUT:-100} LAB_TIME_TIMEOUT=${LAB_TIME_TIMEOUT:-100}
export LAB_WIDE_TIMEOUT=${LAB_WIDE_TIMEOUT:-100} LAB_SANITIZER_TIMEOUT=${LAB_SANITIZER_TIMEOUT:-300}
# shellcheck source=labs/check.sh
source "$(dirname "$0")/check.sh" || exit 3

CSV_HEADER=student,pass,builds,instructions,correct,sanitizer_clean,index64,ms,x_reference,x_cub,reason
SUBMISSIONS=                   # the folder being graded, absolute
SCRATCH=                       # where the submissions are built; removed at the end
ROW_FILES=()                   # where each finished row is appended
GPU=1                          # 0: build and read only

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
}

die() { echo "grade.sh: $*" >&2; exit 2; }

csv_field() {   # quoted when it holds a comma, a quote or a space
    local text=$1
    if [[ $text == *[\",\ ]* ]]; then printf '"%s"' "${text//\"/\"\"}"; else printf '%s' "$text"; fi
}

# Student name <TAB> path of the kernel, one line each, sorted by name.
list_submissions() {
    local entry
    for entry in "$1"/*; do
        if [ -f "$entry" ] && [[ $entry == *.cu ]]; then
            printf '%s\t%s\n' "$(basename "$entry" .cu)" "$entry"
        elif [ -d "$entry" ] && [ -f "$entry/reduce.cu" ]; then
            printf '%s\t%s\n' "$(basename "$entry")" "$entry/reduce.cu"
        elif [ -e "$entry" ]; then
            echo "grade.sh: skipping $entry: neither <student>.cu nor <student>/reduce.cu" >&2
        fi
    done | LC_ALL=C sort
}

# The compiler names the scratch copy; the log should name the student's file.
name_in_log() {   # LOG SCRATCH-PATH SUBMITTED-PATH
    local text
    text=$(<"$1")
    printf '%s\n' "${text//"$2"/"$3"}" >"$1"
}

# One submission: scratch copy, build, check; its CSV row appended to every ROW_FILES and
# printed, as soon as it is known.
grade_one() {   # LAB INDEX STUDENT KERNEL SCRATCH LOGS
    local lab=$1 index=$2 student=$3 kernel=$4 work=$5/$2 logdir=$6/$3 verdict row file
    rm -rf "$logdir"
    mkdir -p "$work" "$logdir"
    cp "$kernel" "$work/reduce.cu"
    if lab_make "$logdir/build.txt" lab-submission LAB="$lab" LAB_KERNEL="$work/reduce.cu" LAB_OUT="$work"; then
        if [ "$GPU" = 1 ]; then
            lab_check "$lab" "$work/program" "$work/reduce.ptx" "$logdir" >"$logdir/verdict.txt" 2>&1
        else
            lab_check_without_gpu "$lab" "$work/reduce.ptx" "$logdir" >"$logdir/verdict.txt" 2>&1
        fi
    else
        name_in_log "$logdir/build.txt" "$work/reduce.cu" "${kernel#"$SUBMISSIONS"/}"
        lab_build_failed "$lab" "$logdir/build.txt" >"$logdir/verdict.txt" 2>&1
    fi
    row=$(
        csv_field "$student"
        printf ',%s,%s,%s,%s,%s,%s,%s,%s,%s,' "$(lab_pass_value)" "$LAB_BUILDS" "$LAB_INSTRUCTIONS" \
            "$LAB_CORRECT" "$LAB_CLEAN" "$LAB_WIDE" "$LAB_MS" "$LAB_X_REFERENCE" "$LAB_X_CUB"
        csv_field "$(lab_reason_text)"
    )
    for file in "${ROW_FILES[@]}"; do printf '%s\n' "$row" >>"$file"; done
    printf '%s\n' "$row"
    verdict=$(grep -m 1 '^verdict' "$logdir/verdict.txt" | sed 's/^verdict *//')
    echo "grade.sh: $student: $verdict" >&2
    rm -rf "$work"
}

main() {
    local jobs=1 out='' logs='' lab step lines=() line twice index=0 running=0 file
    while [ $# -gt 0 ]; do
        case $1 in
        -j) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "-j takes a positive number"; jobs=$2; shift 2 ;;
        -o) [ -n "${2:-}" ] || die "-o takes a file"; out=$2; shift 2 ;;
        --logs) [ -n "${2:-}" ] || die "--logs takes a folder"; logs=$2; shift 2 ;;
        -h | --help) usage ;;
        -*) die "unknown option '$1' (labs/grade.sh --help)" ;;
        *) break ;;
        esac
    done
    if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
    SUBMISSIONS=$(cd "$1" 2>/dev/null && pwd) || die "no folder '$1'"
    lab=${2:-$(basename "$SUBMISSIONS" | grep -oE 'lab[0-9][0-9]' | head -n 1)}
    [ -n "$lab" ] || die "which lab? Name it: labs/grade.sh $1 labNN ($(lab_names | tr '\n' ' '))"
    lab_step "$lab" >/dev/null || die "'$lab' is not a lab: $(lab_names | tr '\n' ' ')"
    logs=${logs:-$LAB_ROOT/build/labs/grades/$lab}
    mkdir -p "$logs" || die "cannot write to $logs"
    logs=$(cd "$logs" && pwd)

    mapfile -t lines < <(list_submissions "$SUBMISSIONS")
    [ ${#lines[@]} -gt 0 ] || die "no submissions in $SUBMISSIONS (<student>.cu or <student>/reduce.cu)"
    twice=$(printf '%s\n' "${lines[@]%%$'\t'*}" | uniq -d | head -n 1)
    [ -z "$twice" ] || die "two submissions for '$twice' ($twice.cu and $twice/reduce.cu): keep one"
    step=$(lab_step "$lab")
    echo "grade.sh: building $step's program, whose host code every submission shares (make $step)" >&2
    lab_make "$logs/build-$step.txt" "$step" || { cat "$logs/build-$step.txt" >&2; die "make $step failed"; }
    lab_require_gpu "$lab" "grading $lab" >&2 || GPU=0

    SCRATCH=$(mktemp -d)
    trap 'rm -rf "$SCRATCH"' EXIT
    ROW_FILES=("$logs/grades.csv")
    [ -z "$out" ] || ROW_FILES+=("$out")
    for file in "${ROW_FILES[@]}"; do echo "$CSV_HEADER" >"$file" || die "cannot write to $file"; done
    echo "$CSV_HEADER"
    echo "grade.sh: ${#lines[@]} submission(s) for $lab, $jobs at a time; logs in $logs" >&2
    for line in "${lines[@]}"; do
        if [ "$running" -ge "$jobs" ]; then
            wait -n
            running=$((running - 1))
        fi
        grade_one "$lab" "$(printf '%04d' "$index")" "${line%%$'\t'*}" "${line#*$'\t'}" "$SCRATCH" "$logs" &
        running=$((running + 1))
        index=$((index + 1))
    done
    wait
    if [ "$GPU" = 0 ]; then
        echo "grade.sh: no GPU here: every submission was built and its compiled code read (columns" >&2
        echo "  builds and instructions); correctness, the sanitizers and the time need a GPU. On a" >&2
        echo "  cluster: docs/instructors.md, \"Running a lab on a shared cluster\"." >&2
        exit 3
    fi
}

main "$@"
