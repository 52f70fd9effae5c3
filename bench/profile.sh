#!/usr/bin/env bash
# make profile STEP=NN [PROFILE_N=n]: Nsight Compute on the first launch of stepNN's kernel
# and of step(NN-1)'s, and a table of the counters that show the lessons, side by side:
# shared-memory bank conflicts, threads per warp instruction, instructions, barrier stalls,
# occupancy, DRAM throughput, duration. Also written to docs/results/profile_stepNN.txt.
#   bash bench/profile.sh NN [N]      (NN: 03, 3 or step03; N: elements, default 2^20,
#                                      the documents' 4096 blocks of 256 for steps 00-03)
# Needs a GPU, ncu (Nsight Compute) and the permission to read its counters (root).
set -uo pipefail
cd "$(dirname "$0")/.."
program=profile
export PYTHONDONTWRITEBYTECODE=1

# The counters, in the table's order. The barrier-stall counter's name has changed between
# Nsight Compute versions: the first of BARRIER_CANDIDATES this ncu offers is used.
METRICS=(
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    smsp__thread_inst_executed_per_inst_executed.ratio
    smsp__inst_executed.sum
    sm__warps_active.avg.pct_of_peak_sustained_active
    dram__throughput.avg.pct_of_peak_sustained_elapsed
    gpu__time_duration.sum
)
BARRIER_CANDIDATES=(
    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    smsp__warp_issue_stalled_barrier_per_warp_active.pct
    smsp__average_warp_latency_issue_stalled_barrier.ratio
)

die() { echo "$program: ${*:2}" >&2; exit "$1"; }

step_argument=${1:-}
n=${2:-1048576}
[ -n "$step_argument" ] || die 2 "which step? make profile STEP=NN, e.g. make profile STEP=03"
number=${step_argument#step}
[[ $number =~ ^[0-9]{1,2}$ ]] || die 2 "STEP must be a step number like 03, not '$step_argument'"
[[ $n =~ ^[0-9]+$ ]] || die 2 "PROFILE_N must be a count of elements, not '$n'"
number=$((10#$number))

step_directory() {
    local found=(step"$(printf %02d "$1")"_*/)
    [ -d "${found[0]}" ] && echo "${found[0]%/}"
}

find_ncu() {
    local candidate
    for candidate in "${NCU:-}" "$(command -v ncu 2>/dev/null)" "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" \
                     /usr/local/cuda/bin/ncu; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}

current=$(step_directory "$number") || die 2 "there is no step$(printf %02d "$number")_* directory"
steps=()
if [ "$number" -gt 0 ]; then
    previous=$(step_directory $((number - 1))) || die 2 "there is no step before $current"
    steps+=("$previous")
fi
steps+=("$current")
for directory in "${steps[@]}"; do
    [ -x "$directory/run" ] || die 3 "$directory/run is not built: run make first"
done

ncu=$(find_ncu) || die 3 "Nsight Compute (ncu) is missing: looked on PATH, in \$NCU and in" \
    "${CUDA_HOME:-/usr/local/cuda}/bin. It comes with the CUDA toolkit (package" \
    "nsight-compute); make profile needs a machine with a GPU."

# A GPU at all? The step binary says "no CUDA device: ..." and exits 3 without one.
probe_output=$("$current/run" -n 1 --iters 1 --warmup 0 --quiet 2>&1)
[ $? -ne 3 ] || die 3 "no usable GPU: $probe_output"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The barrier counter this ncu knows, by its base name in `ncu --query-metrics`; when the
# query says nothing useful, the first candidate.
barrier=${BARRIER_CANDIDATES[0]}
if "$ncu" --query-metrics >"$work/query.txt" 2>&1; then
    for candidate in "${BARRIER_CANDIDATES[@]}"; do
        if grep -qw "${candidate%%.*}" "$work/query.txt"; then barrier=$candidate; break; fi
    done
fi
metrics=("${METRICS[@]:0:4}" "$barrier" "${METRICS[@]:4}")

# ncu on one step binary: directory name metric-list [kernel filter...]
run_ncu() {
    local directory=$1 name=$2 list=$3
    shift 3
    "$ncu" --export "$work/$name" --force-overwrite --kernel-name-base function \
        --launch-count 1 "$@" \
        --metrics "$list" "$directory/run" -n "$n" --iters 1 --warmup 0 --quiet \
        >"$work/$name.log" 2>&1
}

# One step under ncu: only the first launch of one of its own kernels (the first pass of
# the default variant), then the report as a raw CSV page in base units.
profile_step() {
    local directory=$1 name=${1%%_*} regex
    regex=$(python3 bench/profile_table.py kernels "$directory")
    local filter=()
    if [ -n "$regex" ]; then filter=(--kernel-name "$regex"); else
        echo "$program: no __global__ function found in $directory: profiling its first kernel" >&2
    fi
    local list
    list=$(IFS=,; echo "${metrics[*]}")
    echo "$program: $ncu ${filter[*]} --launch-count 1 ... $directory/run -n $n --iters 1 --warmup 0 --quiet" >&2
    run_ncu "$directory" "$name" "$list" "${filter[@]}"
    local status=$?
    if [ ! -f "$work/$name.ncu-rep" ] && grep -q "$barrier" "$work/$name.log"; then
        # this ncu refused the barrier counter's name: the table goes without that row
        echo "$program: note: ncu does not know $barrier; profiling without it" >&2
        metrics=("${metrics[@]/$barrier}")
        list=$(IFS=,; echo "${metrics[*]}" | sed 's/,,*/,/g; s/^,//; s/,$//')
        run_ncu "$directory" "$name" "$list" "${filter[@]}"
        status=$?
    fi
    if [ ! -f "$work/$name.ncu-rep" ]; then
        cat "$work/$name.log" >&2
        if grep -q ERR_NVGPUCTRPERM "$work/$name.log"; then
            die 3 "ncu may not read the GPU's performance counters: run as root, or allow" \
                "it (NVreg_RestrictProfilingToAdminUsers=0)"
        fi
        die 3 "ncu wrote no report for $directory (exit $status; its log is above)"
    fi
    [ "$status" -eq 0 ] || echo "$program: note: $directory/run under ncu exited $status" >&2
    "$ncu" --import "$work/$name.ncu-rep" --csv --page raw --print-units base >"$work/$name.csv" \
        || die 3 "ncu could not read back its report for $directory"
}

for directory in "${steps[@]}"; do profile_step "$directory"; done

columns=()
for directory in "${steps[@]}"; do columns+=("${directory%%_*}=$work/${directory%%_*}.csv"); done
out=docs/results/profile_$(printf step%02d "$number").txt
version=$("$ncu" --version 2>/dev/null | grep -oE '[0-9]{4}\.[0-9.]+' | head -n 1)
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
title="make profile STEP=$(printf %02d "$number"): first launch of each step's kernel, n = $n"
title+=", ${device:-GPU}, Nsight Compute ${version:-(version unknown)}"
python3 bench/profile_table.py table "$out" "$title" "${columns[@]}" || exit 1
echo "$program: wrote $out" >&2
