#!/usr/bin/env bash
# make test's only set-up step: make sure Criterion's headers and library are there.
# Installs Debian/Ubuntu's libcriterion-dev when missing (as root, or through sudo),
# otherwise stops with the one command to run.
set -euo pipefail
probe() {
    printf '#include <criterion/criterion.h>\nTest(a, b) {}\n' |
        "${CC:-cc}" -x c - -o /dev/null -lcriterion >/dev/null 2>&1
}
probe && exit 0
install_command="apt-get install -y libcriterion-dev"
if [ "$(id -u)" -eq 0 ]; then
    run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    run=(sudo)
else
    echo "Criterion is missing. Install it once with: sudo $install_command" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "Criterion is missing and this is not a Debian/Ubuntu system:" \
         "install Criterion (https://github.com/Snaipe/Criterion) and run make test again" >&2
    exit 1
fi
echo "Criterion is missing; installing it: ${run[*]:+${run[*]} }apt-get update && ${run[*]:+${run[*]} }$install_command"
"${run[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${run[@]}" $install_command >/dev/null
probe || { echo "Criterion still cannot be compiled against after installing it" >&2; exit 1; }
