#!/usr/bin/env bash
# Writes one oracle mutant's kernel (tests/mutants/README.md): the step's reduce.cu with the
# mutant's edit applied. Called by make (tests/mutants/mutants.mk), one mutant at a time.
#
#   bash tests/mutants/mutate.sh tests/mutants/STEP-WHAT.mutant OUT.cu
#
# The mutant's file name starts with the step's directory (step13_gather-...): its source is
# STEP/reduce.cu. The file holds comment lines (#), then "--- find" and the lines to change,
# exactly as the source has them, then "--- replace" and the lines that take their place (none:
# the lines are removed). The lines to change must occur in the source exactly once: a refactor
# that moves or rewords them stops the build here, rather than building the step unchanged and
# testing nothing. Exit codes: 0 written, 1 the edit no longer applies, 2 usage error.
set -uo pipefail

fail() { echo "mutate.sh: $*" >&2; exit 1; }
usage_error() { echo "mutate.sh: $*" >&2; exit 2; }

[ $# -eq 2 ] || usage_error "usage: bash tests/mutants/mutate.sh tests/mutants/STEP-WHAT.mutant OUT.cu"
mutant=$1 out=$2
name=$(basename "$mutant" .mutant)
shown=${name%%-*}/reduce.cu
source=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/$shown
[ -f "$mutant" ] || usage_error "$mutant: no such file"
[ "$name" != "${name%%-*}" ] || usage_error "$mutant: the name is STEP-WHAT.mutant, the step's directory first"
[ -f "$source" ] || fail "$name: $shown, the file it edits, does not exist"

find_text='' replace_text='' section=comments
while IFS= read -r line || [ -n "$line" ]; do
    case $section:$line in
    comments:'--- find') section='find' ;;
    find:'--- replace') section='replace' ;;
    comments:'#'* | comments:'') ;;
    comments:*) usage_error "$mutant: '$line' before '--- find' (comments start with #)" ;;
    find:*) find_text+=$line$'\n' ;;
    replace:*) replace_text+=$line$'\n' ;;
    esac
done <"$mutant"
[ "$section" = replace ] || usage_error "$mutant: no '--- find' and '--- replace' sections"
[ -n "$find_text" ] || usage_error "$mutant: nothing under '--- find'"
[ "$find_text" != "$replace_text" ] || usage_error "$mutant: the replacement is the text itself"

# The source as it is, its last newline kept (command substitution would drop it), and a
# newline before it and before each text, so that only whole lines match.
text=$(cat "$source" && printf x) || fail "$name: cannot read $shown"
text=$'\n'${text%x}
find_lines=$'\n'$find_text
[[ $text == *"$find_lines"* ]] ||
    fail "$name: the lines it changes are not in $shown (moved or reworded?): the mutant would test nothing:
$find_text"
after=${text#*"$find_lines"}
[[ $after != *"$find_lines"* ]] ||
    fail "$name: the lines it changes are in $shown more than once: say which with a line beside them:
$find_text"
mutated=${text%%"$find_lines"*}$'\n'$replace_text$after
if ! printf '%s' "${mutated#$'\n'}" >"$out.partial" || ! mv "$out.partial" "$out"; then
    fail "$name: cannot write $out"
fi
