#!/usr/bin/env bash
# Builds the oracle mutants (tests/mutants/README.md): build/mutants/NAME/run for each NAME
# given, else for every tests/mutants/*.mutant, as many compilations at once as there are
# cores. One build at a time per checkout (a lock): the tests that run the mutants build them
# too, and Criterion may start several of them together.
#
#   bash tests/mutants/build.sh [NAME...]        NAME: STEP-WHAT, a .mutant file's name
#
# Exit status: make's (0 every program built).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
targets=(mutants)
if [ $# -gt 0 ]; then
    targets=("${@/#/build/mutants/}")
    targets=("${targets[@]/%//run}")
fi
mkdir -p build/mutants
exec {lock}>>build/mutants/build.lock
flock -x "$lock"
# The make that runs the tests passes on flags (a jobserver) that are not this make's.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s -k -j "$(nproc)" "${targets[@]}"
