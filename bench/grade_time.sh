#!/usr/bin/env bash
# The time of labs/grade.sh over a class: a folder of 30 lab04 submissions, right and wrong,
# graded as an instructor grades them (docs/instructors.md, "Grading a class"), on one GPU.
#
#   bash bench/grade_time.sh [FILE]     (default FILE: docs/results/2026-11-29/grade_time_h200.txt)
#   GRADE_JOBS=4 bash bench/grade_time.sh   submissions graded at once (grade.sh -j; default 1)
#   GRADE_PART=1/2 bash bench/grade_time.sh FILE1   then GRADE_PART=2/2 ... FILE2: the class in
#                                           parts, each graded by a grade.sh of its own (part k
#                                           of m: the k-th, (k+m)-th, ... submission by name), for
#                                           a machine that gives a run less time than the whole
#                                           class takes; the class's time is the parts' sum
#
# The class: the lab's starter twice (its holes empty: wrong), one file that does not compile,
# every kernel of tests/wrong_kernels/lab04_*.cu (seven: wrong, or right but skipping the
# lesson, each for its own reason; one never ends, one never ends at n = 2^32), and copies of
# step08's own kernel (right) to make 30. FILE
# gets the GPU, the driver, the CUDA version, the date, the command, the seconds the whole
# grading took, the median of each submission's (as grade.sh prints it), how many passed, and
# the CSV. The folder is built in a scratch directory and
# removed. Needs a GPU with about 17 GiB of memory free (the run at n = 2^32). Exit codes:
# 0 graded and written, 1 grade.sh failed, 3 no GPU.
set -uo pipefail
program=grade_time.sh
cd "$(dirname "$0")/.." || exit 3
# shellcheck source=bench/common.sh
source bench/common.sh

LAB=lab04
STEP=step08_shuffle
CLASS_SIZE=30
STARTER_COPIES=2
NOT_COMPILING=1
out=${1:-docs/results/2026-11-29/grade_time_h200.txt}
jobs=${GRADE_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die 2 "GRADE_JOBS must be a positive number, not '$jobs'"
part=${GRADE_PART:-1/1}
if ! [[ $part =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
    die 2 "GRADE_PART must be K/M with 1 <= K <= M, not '$part'"
fi
part_index=${BASH_REMATCH[1]} parts=${BASH_REMATCH[2]}

if ! nvidia-smi -L >/dev/null 2>&1; then die 3 "no GPU (nvidia-smi sees none)"; fi
make -s --no-print-directory "$LAB" "$STEP" || die 1 "make $LAB $STEP failed"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
class=$scratch/$LAB
mkdir -p "$class"
mapfile -t wrong < <(printf '%s\n' tests/wrong_kernels/"$LAB"_*.cu | LC_ALL=C sort)
RIGHT_COPIES=$((CLASS_SIZE - STARTER_COPIES - NOT_COMPILING - ${#wrong[@]}))
for ((i = 1; i <= RIGHT_COPIES; i++)); do cp "$STEP/reduce.cu" "$(printf '%s/right%02d.cu' "$class" "$i")"; done
for ((i = 1; i <= STARTER_COPIES; i++)); do cp "labs/$LAB/reduce.cu" "$(printf '%s/starter%02d.cu' "$class" "$i")"; done
printf '#include "reduce.h"\nthis is not CUDA;\n' >"$class/broken.cu"
for kernel in "${wrong[@]}"; do cp "$kernel" "$class/"; done
count=$(find "$class" -name '*.cu' | wc -l)
[ "$count" -eq "$CLASS_SIZE" ] || die 1 "the class has $count submissions, not $CLASS_SIZE"
# Part k of m keeps the k-th, (k+m)-th, ... submission by name; the others wait outside.
mkdir -p "$scratch/other_parts"
mapfile -t everyone < <(cd "$class" && printf '%s\n' *.cu | LC_ALL=C sort)
for ((i = 0; i < ${#everyone[@]}; i++)); do
    [ $((i % parts)) -eq $((part_index - 1)) ] || mv "$class/${everyone[i]}" "$scratch/other_parts/"
done
graded=$(find "$class" -name '*.cu' | wc -l)

note "grading $graded of the $count submissions of $LAB (part $part), $jobs at a time (logs in $scratch/logs); this takes minutes"
start=$(date +%s.%N)
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} labs/grade.sh -j "$jobs" -o "$scratch/grades.csv" --logs "$scratch/logs" "$class" "$LAB" >/dev/null 2>"$scratch/progress.txt"
status=$?
seconds=$(awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN {printf "%.0f", end - start}')
[ "$status" -eq 0 ] || { tail -n 5 "$scratch/progress.txt" >&2; die 1 "labs/grade.sh exited with $status"; }
passed=$(awk -F, 'NR > 1 && $2 == 1' "$scratch/grades.csv" | wc -l)
# The median of the seconds grade.sh says each submission's grading took.
median=$(grep -oE '\(graded in [0-9]+ s\)$' "$scratch/progress.txt" | grep -oE '[0-9]+' | sort -n |
    awk '{ s[NR] = $1 } END { if (NR) print (NR % 2 ? s[(NR + 1) / 2] : (s[NR / 2] + s[NR / 2 + 1]) / 2) }')

mkdir -p "$(dirname "$out")"
{
    echo "# labs/grade.sh over part $part of a class of $count $LAB submissions ($graded of them), $jobs at a time"
    echo "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader -i "${CUDA_VISIBLE_DEVICES:-0}" | head -n 1) (one GPU)"
    echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)"
    echo "cuda: $(nvcc --version | grep -oE 'release [0-9.]+' | head -n 1)"
    echo "date: $(utc_now)"
    echo "command: GRADE_PART=$part: labs/grade.sh -j $jobs -o grades.csv --logs logs $LAB $LAB"
    echo "isolation: $(awk -F, 'NR == 2 {print $12}' "$scratch/grades.csv")"
    echo "submissions: $count ($RIGHT_COPIES right copies of $STEP/reduce.cu, $STARTER_COPIES starters, 1 not compiling, ${#wrong[@]} wrong kernels)"
    echo "passed: $passed"
    echo "seconds: $seconds"
    echo "median seconds a submission: ${median:-unknown}"
    echo
    cat "$scratch/grades.csv"
} >"$out"
note "$seconds s for $graded of the $count submissions (part $part), $passed of them passed: $out"
