#!/usr/bin/env bash
# make profile STEP=NN [PROFILE_N=n] (on a GPU): Nsight Compute on the first launch of stepNN's
# kernel and of step(NN-1)'s, and a table of the counters that show the lessons, side by
# side: shared-memory bank conflicts, threads per warp instruction, instructions, global load
# instructions, barrier and long-scoreboard stalls, occupancy, DRAM throughput, duration. Also
# written to docs/results/profile_stepNN.txt.
#   bash bench/profile.sh NN [N]      (NN: 03, 3 or step03; N: elements, default 2^20,
#                                      the documents' 4096 blocks of 256 for steps 00-03)
# Each binary runs its default variant once: --iters 1 --warmup 0 --quiet --no-cub. Its L2
# flush (read_to_evict, common/timing.cu) runs too; ncu is told to profile only the kernels
# defined in the step's own .cu files (profile_table.py finds their names).
# Needs a GPU, ncu (Nsight Compute) and the permission to read its counters (root).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=profile
export PYTHONDONTWRITEBYTECODE=1
# shellcheck source=bench/common.sh
source bench/common.sh
DEFAULT_N=1048576

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
    smsp__inst_executed_op_global_ld.sum
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
)
BARRIER_CANDIDATES=(
    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    smsp__warp_issue_stalled_barrier_per_warp_active.pct
    smsp__average_warp_latency_issue_stalled_barrier.ratio
)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    die 2 "usage: bash bench/profile.sh NN [N] (make profile STEP=NN [PROFILE_N=n])"
fi
step_argument=$1
n=${2:-$DEFAULT_N}
[ -n "$step_argument" ] || die 2 "which step? make profile STEP=NN, e.g. make profile STEP=03"
[[ $n =~ ^[1-9][0-9]*$ ]] || die 2 "PROFILE_N must be a count of elements above 0, not '$n'"
load_ladder
current=$(ladder_directory_of "$step_argument") ||
    die 2 "STEP must name a step of the ladder (make ladder lists them), like 03, not '$step_argument'"
number=$((10#${current:4:2}))
steps=()
if [ "$number" -gt 0 ]; then
    previous=$(ladder_directory_of $((number - 1))) ||
        die 2 "$current is compared with step$(printf %02d $((number - 1))), which is not here"
    steps+=("$previous")
fi
steps+=("$current")
require_built "${steps[@]}"

ncu=$(find_tool ncu "${NCU:-}") || die 3 "Nsight Compute (ncu) is missing: looked in \$NCU, on" \
    "PATH and in ${CUDA_HOME:-/usr/local/cuda}/bin. It comes with the CUDA toolkit (package" \
    "nsight-compute); make profile needs a machine with a GPU."
require_gpu "$current"

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
        --metrics "$list" "$directory/run" -n "$n" "${ONE_RUN_ARGS[@]}" \
        >"$work/$name.log" 2>&1
}

# One step under ncu: only the first launch of one of its own kernels (the first pass of
# the default variant), then the report as a raw CSV page in base units.
profile_step() {
    local directory=$1 name=${1%%_*} regex
    regex=$(python3 bench/profile_table.py kernels "$directory")
    local filter=()
    if [ -n "$regex" ]; then filter=(--kernel-name "$regex"); else
        note "no __global__ function found in $directory: profiling its first kernel"
    fi
    local list
    list=$(IFS=,; echo "${metrics[*]}")
    note "$ncu ${filter[*]} --launch-count 1 ... $directory/run -n $n ${ONE_RUN_ARGS[*]}"
    run_ncu "$directory" "$name" "$list" "${filter[@]}"
    local status=$?
    if [ ! -f "$work/$name.ncu-rep" ] && grep -q "$barrier" "$work/$name.log"; then
        # this ncu refused the barrier counter's name: the table goes without that row
        note "ncu does not know $barrier; profiling without it"
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
    [ "$status" -eq 0 ] || note "$directory/run under ncu exited $status"
    "$ncu" --import "$work/$name.ncu-rep" --csv --page raw --print-units base >"$work/$name.csv" \
        || die 3 "ncu could not read back its report for $directory"
}

for directory in "${steps[@]}"; do profile_step "$directory"; done

columns=()
for directory in "${steps[@]}"; do columns+=("${directory%%_*}=$work/${directory%%_*}.csv"); done
out=docs/results/profile_$(printf step%02d "$number").txt
version=$("$ncu" --version 2>/dev/null | grep -oE '[0-9]{4}\.[0-9.]+' | head -n 1)
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
title="make profile STEP=$(printf %02d "$number"): first launch of each step's kernel (default"
title+=" variant), n = $n, ${device:-GPU}, Nsight Compute ${version:-(version unknown)},"
title+=" $(date -u +%Y-%m-%d)"
python3 bench/profile_table.py table "$out" "$title" "${columns[@]}" || exit 1
note "wrote $out"
