# shellcheck shell=bash disable=SC2154 # `program` is set by the script that sources this
# Shared by the scripts of bench/ (sourced, not run): the ladder's step directories, the
# GPU probe, the messages. A script sets `program` (its name in messages) before sourcing.

# The options that make a step binary run its kernel once, as briefly as it can: no warm-up,
# one run, no CUB beside it, one verdict line.
ONE_RUN_ARGS=(--iters 1 --warmup 0 --quiet --no-cub)

die() { echo "$program: ${*:2}" >&2; exit "$1"; }
note() { echo "$program: $*" >&2; }
utc_now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# LADDER: the ladder's step directories in order, as the Makefile knows them (make ladder):
# only those with a source tree here. Call it in the script's own shell, not in $(...).
load_ladder() {
    local listed
    listed=$(make -s --no-print-directory ladder 2>/dev/null) ||
        die 3 "make ladder failed: run this from a checkout of the tutorial (the Makefile lists the steps)"
    read -ra LADDER <<<"$listed"
    [ ${#LADDER[@]} -gt 0 ] || die 3 "make ladder lists no step directories"
}

# The ladder loaded, every step built, and a GPU there: what a script that runs every step's
# program needs first. Call it in the script's own shell.
ladder_on_gpu() {
    load_ladder
    require_built "${LADDER[@]}"
    require_gpu "${LADDER[0]}"
}

# The first card's name, as nvidia-smi gives it.
card_name() { nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1; }

# stepNN_<name> -> stepNN
short_name() { echo "${1%%_*}"; }

# The directory in LADDER whose short name is stepNN (given as 3, 03 or step03), or status 1.
ladder_directory_of() {
    local number=${1#step} directory
    [[ $number =~ ^[0-9]{1,2}$ ]] || return 1
    number=$(printf 'step%02d' "$((10#$number))")
    for directory in "${LADDER[@]}"; do
        [ "$(short_name "$directory")" = "$number" ] && { echo "$directory"; return 0; }
    done
    return 1
}

require_built() {
    local directory
    for directory in "$@"; do
        [ -x "$directory/run" ] || die 3 "$directory/run is not built: run make first"
    done
}

# A GPU at all? Without one a step binary says "no CUDA device: ..." and exits 3.
require_gpu() {
    local probe status
    probe=$("$1/run" -n 1 "${ONE_RUN_ARGS[@]}" 2>&1)
    status=$?
    [ "$status" -ne 3 ] || die 3 "no usable GPU: $probe"
}

# The variants a step binary offers, one a line, from its --help (the lines under
# "--variant V    one of", up to the next option); nothing when it has none.
variants_of() {
    "$1/run" --help 2>/dev/null | awk '
        /^  --variant / { listing = 1; next }
        listing && /^  -/ { exit }
        listing && NF > 0 { print $1 }'
}

# Does the step binary offer this option (e.g. --op)?
offers_option() {
    "$1/run" --help 2>/dev/null | grep -qE "^  $2( |$)"
}

find_tool() {   # NAME [ENVIRONMENT_OVERRIDE]: the path of a CUDA tool, or nothing
    local candidate
    for candidate in "${2:-}" "$(command -v "$1" 2>/dev/null)" \
                     "${CUDA_HOME:-/usr/local/cuda}/bin/$1" "/usr/local/cuda/bin/$1"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}
