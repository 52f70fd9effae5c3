#!/usr/bin/env bash
# Grades a folder of student kernels for one lab: one CSV row per student.
#
#   labs/grade.sh [-j N] [-o FILE] [--logs DIR] SUBMISSIONS [labNN]
#   make grade SUBMISSIONS=dir LAB=labNN [GRADE_JOBS=N]
#
# SUBMISSIONS holds one kernel per student: SUBMISSIONS/<student>.cu or
# SUBMISSIONS/<student>/reduce.cu, each a complete reduce.cu for the lab's step (the lab's
# starter with its holes filled). The lab is the second argument, or else the folder's name
# when it contains one (e.g. submissions/lab03). Each kernel's host code is first compared
# with the starter's (labs/host_code.py: only device code may differ; otherwise it is neither
# built nor run). Then it is copied into a scratch folder, built there with the step's host
# code (labs/labs.mk: lab-submission) and graded as ./labs/labNN/run --check grades
# (labs/check.sh), with timeouts at every stage. A kernel that does not compile, hangs,
# crashes or reads or writes out of bounds gets its row and the reason, and the next one is
# graded. labs/labNN/ itself is never written to.
# Each build and run of a submission is isolated: bubblewrap (bwrap) gives it a read-only
# view of the machine in which the class folder, the logs, the other scratch folders and the
# CSV files are hidden, its own folder the only one it may write, no network, and no view of
# the grader's processes; where bwrap cannot run, as root, it runs as a user of its own (an id
# no account has; the user nobody, one submission at a time, where an account has one of those
# ids; the class folder must then be closed to other users); the column isolation says which, and
# "none" where neither was possible (docs/instructors.md, "What the grader guards against").
# GRADE_ISOLATION=bwrap, user or none in the environment chooses instead.
#
# The CSV goes to stdout, a row as each submission finishes (so a run stopped half-way keeps
# every row it graded), and the same rows to FILE with -o and to DIR/grades.csv; each
# student's full verdict and tool logs go to DIR/<student>/ (default build/labs/grades/labNN/).
# Progress goes to stderr: each verdict with the seconds its grading took, and at the end the
# whole class's. Columns:
#   student,pass,builds,host_code,instructions,correct,sanitizer_clean,index64,ms,x_reference,
#   x_cub,isolation,lesson,reason
#   pass: 1 passed, 0 failed or not fully checked, empty not decided (no GPU). builds,
#   host_code (only device code differs from the starter), instructions (the compiled code
#   holds what the lesson requires: labs/lesson.py), correct (every graded variant's --check),
#   sanitizer_clean, index64 (right at n = 2^32): 1 or 0; empty where the stage did not run
#   (host code not the starter's, no build, a hang, no GPU, no compute-sanitizer, too little
#   GPU memory for n = 2^32: the reason then says "not checked"). ms: median time at n = 2^25;
#   x_reference and x_cub: how many times as fast as the step's own kernel and as CUB (above
#   1: faster). isolation: bwrap, user ID, user nobody, or none. lesson: 1 when the compiled code uses
#   the technique the lab teaches (labs/lesson.py: lab01 whole warps busy or idle, lab02
#   sequential addressing and the first add during the load, lab03 every lane of the last
#   warp in each level, lab04 loads in flight, a 64-bit index and the full mask, lab05 both
#   fences or the acquire-release order), 0 when a kernel, right or not, skips it (the reason
#   then says "lesson: TECHNIQUE: ..." and pass is 0), empty where it was not read. It comes
#   before reason so that the columns before it keep their places.
# One submission at a time unless -j N asks for N at once: their builds and the reading of
# their compiled code then overlap, but the GPU stages of one submission hold the GPU alone
# (labs/check.sh, lab_with_gpu): beside a kernel that never ends, the others' runs would pass
# their timeouts, and timed runs would disturb each other. With several GPUs (those
# CUDA_VISIBLE_DEVICES names, else every GPU nvidia-smi lists), submission k runs on GPU
# k mod their number, each GPU in turns of its own. Before the first submission the step's own
# --check runs once (it must pass: a broken GPU or build stops the grading, exit 3), and a run
# of a submission that outlasts 10 times as long, at least 20 s, is a hang: grading stops its
# --check, its run at n = 2^32 or its timed run then (LAB_CHECK_TIMEOUT, LAB_WIDE_TIMEOUT,
# LAB_TIME_TIMEOUT), the sanitizers after 300 s; set them in the environment to change that
# (labs/check.sh lists them all).
# Without a GPU every submission is still built and its compiled code read: the CSV has
# builds, instructions, lesson, pass (0 where any failed) and the compiler's first error; the rest
# needs a GPU (docs/instructors.md, "Running a lab on a shared cluster").
# Exit codes: 0 every submission graded, 2 usage error, 3 no GPU (built and read only) or the
# step's own --check fails here.
set -uo pipefail
# Grading a class: a hang must not cost a quarter of an hour. The timeouts of the runs a hang
# stops (--check, the run at n = 2^32, the timed runs) come from the step's own --check, timed
# once here (hang_timeouts); one the caller set is kept. Until then (the run at n = 1), 100 s.
UNSET_TIMEOUTS=()
for timeout_name in LAB_CHECK_TIMEOUT LAB_TIME_TIMEOUT LAB_WIDE_TIMEOUT; do
    [ -n "${!timeout_name:-}" ] || UNSET_TIMEOUTS+=("$timeout_name")
done
unset timeout_name
export LAB_CHECK_TIMEOUT=${LAB_CHECK_TIMEOUT:-100} LAB_TIME_TIMEOUT=${LAB_TIME_TIMEOUT:-100}
export LAB_WIDE_TIMEOUT=${LAB_WIDE_TIMEOUT:-100} LAB_SANITIZER_TIMEOUT=${LAB_SANITIZER_TIMEOUT:-300}
HANG_FACTOR=10   # a run stopped after 10 times the step's own whole --check is a hang
HANG_FLOOR_S=20  # and never sooner than this
# shellcheck source=labs/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/check.sh" || exit 3
# One submission's GPU stages at a time on each GPU (per GPU: use_gpu_of).
export LAB_GPU_LOCK=${LAB_GPU_LOCK:-$LAB_ROOT/build/labs/gpu.lock}

CSV_HEADER=student,pass,builds,host_code,instructions,correct,sanitizer_clean,index64,ms,x_reference,x_cub,isolation,lesson,reason
SUBMISSIONS=                   # the folder being graded, absolute
SCRATCH=                       # where the submissions are built; removed at the end
ROW_FILES=()                   # where each finished row is appended
GPU=1                          # 0: build and read only
LOGS=                          # the logs' folder, absolute
ISOLATION=none                 # bwrap, user, or none: how each submission runs (isolation_kind)
GPUS=()                        # the GPUs submissions are spread over (visible_gpus)
NOBODY=65534                   # the unprivileged user and group of the user fallback
OWN_IDS_FROM=2100000000        # as root without bwrap, submission k runs as user and group
                               # OWN_IDS_FROM + k, ids no account has (own_ids_free), so that
                               # submissions graded at once cannot read each other's folders;
                               # empty: every one as nobody, one at a time
USER_LABEL='user nobody'       # the column isolation under the user fallback
SUBMISSION_BUILD_JOBS=2        # a submission's program and its PTX, compiled side by side

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

# ---- isolation ----------------------------------------------------------------------------
# bwrap's options that hide the class folder, the logs, the scratch folders and the CSV files
# and leave WORK the only folder it may write to.
bwrap_options() {   # WORK
    local hidden file
    printf '%s\0' --unshare-user --uid "$NOBODY" --gid "$NOBODY" --cap-drop ALL \
        --unshare-pid --unshare-ipc --unshare-net --unshare-uts --die-with-parent --new-session \
        --ro-bind / / --dev-bind /dev /dev --tmpfs /dev/shm --proc /proc --tmpfs /tmp
    # the repository again, read-only, should it lie under /tmp (a clone made there)
    printf '%s\0' --ro-bind "$LAB_ROOT" "$LAB_ROOT"
    while IFS= read -r hidden; do printf '%s\0' --tmpfs "$hidden"; done < <(
        printf '%s\n' "$SUBMISSIONS" "$LOGS" "$SCRATCH" | awk '{print length, $0}' | sort -n | cut -d' ' -f2-)
    for file in "${ROW_FILES[@]}"; do
        case $file in "$LOGS"/*) ;; *) printf '%s\0' --ro-bind /dev/null "$file" ;; esac
    done
    printf '%s\0' --bind "$1" "$1" --setenv HOME "$1" --setenv TMPDIR /tmp --
}

# How submissions can be isolated here: bwrap when it can start a sandbox; else, as root,
# the user nobody; else none; or what GRADE_ISOLATION names. Sets ISOLATION.
isolation_kind() {
    local probe options
    case ${GRADE_ISOLATION:-} in
    bwrap | user | none) ISOLATION=$GRADE_ISOLATION; return ;;
    '') ;;
    *) die "GRADE_ISOLATION is bwrap, user or none, not '$GRADE_ISOLATION'" ;;
    esac
    probe=$(mktemp -d)
    if command -v bwrap >/dev/null 2>&1 &&
        mapfile -d '' -t options < <(bwrap_options "$probe") && bwrap "${options[@]}" true 2>/dev/null; then
        ISOLATION=bwrap
    elif [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
        setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups true 2>/dev/null; then
        ISOLATION=user
    fi
    rm -rf "$probe"
}

# As another user, the class folder and the CSV must be closed to other users: what the
# user can still reach, said in the verdict.
user_leaks() {   # ID
    local what=() file
    setpriv --reuid="$1" --regid="$1" --clear-groups ls "$SUBMISSIONS" >/dev/null 2>&1 &&
        what+=("the class folder is readable by other users (chmod o-rwx it)")
    for file in "${ROW_FILES[@]}"; do
        setpriv --reuid="$1" --regid="$1" --clear-groups test -w "$file" 2>/dev/null &&
            what+=("$file is writable by other users")
    done
    (IFS=';'; echo "${what[*]}")
}

# Are the ids OWN_IDS_FROM .. OWN_IDS_FROM + COUNT - 1 no account's and no group's?
own_ids_free() {   # COUNT
    local id
    for ((id = OWN_IDS_FROM; id < OWN_IDS_FROM + $1; id++)); do
        if getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; then return 1; fi
    done
}

# Sets LAB_SANDBOX (the command each build and run of this submission goes through) and
# LAB_ISOLATION (what it is, for the verdict).
isolate() {   # WORK [INDEX]
    local leaks id=$NOBODY
    case $ISOLATION in
    bwrap)
        mapfile -d '' -t LAB_SANDBOX < <(bwrap_options "$1")
        LAB_SANDBOX=(bwrap "${LAB_SANDBOX[@]}")
        LAB_ISOLATION="bwrap: the class folder, the logs and the CSV hidden, only its own folder writable"
        ;;
    user)
        [ -z "$OWN_IDS_FROM" ] || id=$((OWN_IDS_FROM + 10#${2:-0}))
        chown -R "$id:$id" "$1"
        chmod 700 "$1"
        LAB_SANDBOX=(setpriv --reuid="$id" --regid="$id" --clear-groups --no-new-privs
                     env HOME="$1")
        leaks=$(user_leaks "$id")
        [ "$id" = "$NOBODY" ] || USER_LABEL="user $id"
        LAB_ISOLATION="$USER_LABEL${leaks:+ (NOT isolated: ${leaks//;/; })}"
        ;;
    *)
        LAB_SANDBOX=()
        LAB_ISOLATION="none: neither bubblewrap nor root here; it ran with the grader's rights"
        ;;
    esac
}

# The GPUs this grading may use, one per line: CUDA_VISIBLE_DEVICES's list, else every GPU
# nvidia-smi lists (nothing without a GPU).
visible_gpus() {
    if [ -n "${CUDA_VISIBLE_DEVICES-}" ]; then
        tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES"
    elif command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null
    fi
}

# Submission number INDEX on its GPU: k mod the number of GPUs, with that GPU's own lock for
# the run at n = 2^32 (one GPU: nothing changes).
use_gpu_of() {   # INDEX
    [ ${#GPUS[@]} -gt 1 ] || return 0
    local gpu=${GPUS[$((10#$1 % ${#GPUS[@]}))]}
    # the GPU's own lock, and the one for all of them shared: a holder of that one alone (the
    # tests' programs, tests/harness.c) waits for the submissions on every GPU
    export CUDA_VISIBLE_DEVICES=$gpu LAB_WIDE_LOCK=$LAB_WIDE_LOCK.gpu$gpu \
        LAB_GPU_LOCK_SHARED=$LAB_GPU_LOCK LAB_GPU_LOCK=$LAB_GPU_LOCK.gpu$gpu
}

# The timeouts in UNSET_TIMEOUTS, from the step's own --check timed once on the first GPU: a
# right kernel's --check costs about as much as the step's own (its time is mostly the host's
# filling and summing of the data sets, the same in every program), so 10 times as long is a
# kernel that never ends. The step's own --check must pass: otherwise the GPU or the build is
# broken and every submission would be judged against it.
hang_timeouts() {   # PROGRAM LOG
    local started seconds limit name
    [ ${#UNSET_TIMEOUTS[@]} -gt 0 ] || return 0
    started=$(date +%s.%N)
    if ! CUDA_VISIBLE_DEVICES=${GPUS[0]:-${CUDA_VISIBLE_DEVICES-}} lab_with_gpu \
        timeout -k "$LAB_KILL_AFTER" "$LAB_CHECK_TIMEOUT" "$1" --check >"$2" 2>&1; then
        echo "grade.sh: ${1#"$LAB_ROOT"/} --check fails here, so no submission can be judged: $(tail -n 1 "$2") (log: $2)" >&2
        return 1
    fi
    seconds=$(awk -v start="$started" -v end="$(date +%s.%N)" 'BEGIN {s = end - start; print (s == int(s)) ? s : int(s) + 1}')
    limit=$((HANG_FACTOR * seconds > HANG_FLOOR_S ? HANG_FACTOR * seconds : HANG_FLOOR_S))
    for name in "${UNSET_TIMEOUTS[@]}"; do export "$name=$limit"; done
    echo "grade.sh: ${1#"$LAB_ROOT"/} --check took $seconds s here: a run of a submission stopped after $limit s is a hang (${UNSET_TIMEOUTS[*]})" >&2
}

# One submission's build in its scratch folder, isolated, with the step's objects: its
# program and the PTX that labs/lesson.py reads, two compilations side by side.
build_isolated() {   # LOG LAB WORK
    (cd "$LAB_ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        timeout -k "$LAB_KILL_AFTER" "$LAB_BUILD_TIMEOUT" "${LAB_SANDBOX[@]}" \
        make --no-print-directory -s -j "$SUBMISSION_BUILD_JOBS" lab-submission LAB="$2" \
        LAB_KERNEL="$3/reduce.cu" LAB_OUT="$3") >"$1" 2>&1
}

# One submission: its host code, scratch copy, build, check (not when the host code is not
# the starter's: such a kernel is built, for the compiler's errors, and never run); its CSV
# row appended to every ROW_FILES and printed, as soon as it is known.
grade_one() {   # LAB INDEX STUDENT KERNEL SCRATCH LOGS
    local lab=$1 index=$2 student=$3 kernel=$4 work=$5/$2 logdir=$6/$3 verdict row file step
    local started=$SECONDS
    rm -rf "$logdir"
    mkdir -p "$work" "$logdir"
    cp "$kernel" "$work/reduce.cu"
    step=$(lab_step "$lab")
    lab_reset
    use_gpu_of "$index"
    isolate "$work" "$index"
    lab_stage_host "$work/reduce.cu" "${kernel#"$SUBMISSIONS"/}" "$logdir" "$LAB_ROOT/labs/$lab/reduce.cu" \
        "$LAB_ROOT/$step/reduce.cu" >"$logdir/host.txt" 2>&1
    if build_isolated "$logdir/build.txt" "$lab" "$work"; then
        rm -f "$work/reduce.cu"
        if [ "$LAB_HOST_CODE" = 0 ]; then
            { cat "$logdir/host.txt"; lab_host_code_failed "$lab"; } >"$logdir/verdict.txt" 2>&1
        elif [ "$GPU" = 1 ]; then
            { cat "$logdir/host.txt"; lab_check "$lab" "$work/program" "$work/reduce.ptx" "$logdir"; } >"$logdir/verdict.txt" 2>&1
        else
            { cat "$logdir/host.txt"; lab_check_without_gpu "$lab" "$work/reduce.ptx" "$logdir"; } >"$logdir/verdict.txt" 2>&1
        fi
    else
        name_in_log "$logdir/build.txt" "$work/reduce.cu" "${kernel#"$SUBMISSIONS"/}"
        { cat "$logdir/host.txt"; lab_build_failed "$lab" "$logdir/build.txt"; } >"$logdir/verdict.txt" 2>&1
    fi
    row=$(
        csv_field "$student"
        printf ',%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,' "$(lab_pass_value)" "$LAB_BUILDS" "$LAB_HOST_CODE" \
            "$LAB_INSTRUCTIONS" "$LAB_CORRECT" "$LAB_CLEAN" "$LAB_WIDE" "$LAB_MS" "$LAB_X_REFERENCE" \
            "$LAB_X_CUB"
        csv_field "${ISOLATION/user/$USER_LABEL}"
        printf ',%s,' "$LAB_LESSON"
        csv_field "$(lab_reason_text)"
    )
    for file in "${ROW_FILES[@]}"; do printf '%s\n' "$row" >>"$file"; done
    printf '%s\n' "$row"
    verdict=$(grep -m 1 '^verdict' "$logdir/verdict.txt" | sed 's/^verdict *//')
    echo "grade.sh: $student: $verdict (graded in $((SECONDS - started)) s)" >&2
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
    LOGS=$logs

    mapfile -t lines < <(list_submissions "$SUBMISSIONS")
    [ ${#lines[@]} -gt 0 ] || die "no submissions in $SUBMISSIONS (<student>.cu or <student>/reduce.cu)"
    twice=$(printf '%s\n' "${lines[@]%%$'\t'*}" | uniq -d | head -n 1)
    [ -z "$twice" ] || die "two submissions for '$twice' ($twice.cu and $twice/reduce.cu): keep one"
    step=$(lab_step "$lab")
    echo "grade.sh: building $step's program, whose host code every submission shares (make $step)" >&2
    lab_make "$logs/build-$step.txt" "$step" || { cat "$logs/build-$step.txt" >&2; die "make $step failed"; }
    lab_require_gpu "$lab" "grading $lab" >&2 || GPU=0

    SCRATCH=$(mktemp -d)
    chmod 711 "$SCRATCH"
    trap 'rm -rf "$SCRATCH"' EXIT
    export LAB_REFERENCE_ROWS=$SCRATCH/reference-rows # the step's own time, once a GPU
    mkdir -p "$LAB_REFERENCE_ROWS"
    ROW_FILES=("$logs/grades.csv")
    [ -z "$out" ] || ROW_FILES+=("$out")
    for file in "${ROW_FILES[@]}"; do echo "$CSV_HEADER" >"$file" || die "cannot write to $file"; done
    echo "$CSV_HEADER"
    isolation_kind
    if [ "$ISOLATION" = user ]; then
        chmod 700 "$logs"
        if own_ids_free "${#lines[@]}"; then
            echo "grade.sh: each submission as a user of its own (ids $OWN_IDS_FROM and up, no account's)" >&2
        else
            # Every submission runs as the same user: one at a time, so that none reads
            # another's scratch folder while it is graded.
            [ "$jobs" -eq 1 ] || echo "grade.sh: as the user nobody, one submission at a time (not -j $jobs: an account has an id from $OWN_IDS_FROM up; with bubblewrap, package bubblewrap, $jobs at a time)" >&2
            OWN_IDS_FROM=
            jobs=1
        fi
    fi
    if [ "$GPU" = 1 ]; then
        # nvidia-smi's indices are the PCI bus order; CUDA_VISIBLE_DEVICES then means the same.
        [ -n "${CUDA_VISIBLE_DEVICES-}" ] || export CUDA_DEVICE_ORDER=PCI_BUS_ID
        mapfile -t GPUS < <(visible_gpus)
        hang_timeouts "$LAB_ROOT/$step/run" "$logs/own-check.txt" || exit 3
    fi
    echo "grade.sh: ${#lines[@]} submission(s) for $lab, $jobs at a time$([ ${#GPUS[@]} -le 1 ] || echo " over GPUs ${GPUS[*]}"); logs in $logs; isolation: $ISOLATION" >&2
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
    echo "grade.sh: ${#lines[@]} submission(s) graded in $SECONDS s, $jobs at a time" >&2
    if [ "$GPU" = 0 ]; then
        echo "grade.sh: no GPU here: every submission was built and its compiled code read (columns" >&2
        echo "  builds, instructions and lesson); correctness, the sanitizers and the time need a GPU. On a" >&2
        echo "  cluster: docs/instructors.md, \"Running a lab on a shared cluster\"." >&2
        exit 3
    fi
}

# Sourced (by the tests, for the isolation alone), it only defines its functions.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
