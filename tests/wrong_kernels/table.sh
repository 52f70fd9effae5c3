#!/usr/bin/env bash
# Grades every kernel of tests/wrong_kernels/, each lab's model answer and a file that does not
# compile with labs/grade.sh, through the GPU tests of tests/labs_checker.c, and writes one
# table: lab, kernel, the reason expected, what the grader said, ok or WRONG. The lazy kernels
# (labNN_lazy_*.cu) are expected to fail the lesson only (the CSV's lesson column 0, the
# reason "lesson: ..."), every other column as a right kernel's (lab04's: and index64 0, lab05's:
# and instructions 0); every right kernel must have lesson 1.
#
#   bash tests/wrong_kernels/table.sh [FILE]      (default FILE: build/labs/wrong_kernels.md)
#   WRONG_KERNELS_LABS="lab04 lab05" bash tests/wrong_kernels/table.sh   only those labs (the
#                                                 hanging kernels are lab02's and lab04's)
#   WRONG_KERNELS_JOBS=8 bash tests/wrong_kernels/table.sh   8 submissions of a lab at once
#                                                 (labs/grade.sh -j 8; default 2)
#
# Needs a GPU with about 17 GiB of its memory free (each correct kernel's run at n = 2^32,
# one at a time), 16 GiB of host memory, and compute-sanitizer for the rows only it decides. Exit codes: 0 every row as expected,
# 1 some row not, 3 no GPU (nothing graded). The tests' own output is kept beside FILE
# (FILE.log).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${1:-build/labs/wrong_kernels.md}
mkdir -p "$(dirname "$out")" build/labs
make -s --no-print-directory labs tests/bin/tests || exit 2
rm -rf build/labs/wrong_kernels
export WRONG_KERNELS_LABS=${WRONG_KERNELS_LABS:-} WRONG_KERNELS_JOBS=${WRONG_KERNELS_JOBS:-}
CRITERION_JOBS=${CRITERION_JOBS:-2} tests/bin/tests --filter '@(labs_gpu/grade_tells_*|labs_gpu/grade_reports_*)' \
    >"$out.log" 2>&1
status=$?
if ! compgen -G 'build/labs/wrong_kernels/*.md' >/dev/null; then
    echo "table.sh: nothing was graded (no CUDA device?): see $out.log" >&2
    tail -n 3 "$out.log" >&2
    exit 3
fi
{
    echo "| lab | kernel | expected reason | got (pass: reason) | verdict |"
    echo "|---|---|---|---|---|"
    cat build/labs/wrong_kernels/*.md
    echo
    grep -E '^\[====\] Synthesis' "$out.log"
} >"$out"
cat "$out"
[ "$status" -eq 0 ] && ! grep -q '| WRONG |$' "$out"
