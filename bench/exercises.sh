#!/usr/bin/env bash
# bash bench/exercises.sh (on a GPU): every measurement that the answers to the step READMEs'
# exercises in docs/instructors.md cite, into docs/results/<today>/exercises.txt. Each
# measurement is a section headed `## stepNN-what` (the command, its output, its exit status);
# an answer cites that heading, and its figures are read from the lines under it.
#
# What it runs:
#   - the steps as they are, at the sizes, block sizes, variants and options the exercises name;
#   - copies of steps with the one edit an exercise asks for (stepNN_ex_<what>/, made from the
#     step, built with make, removed at the end; the diff of each is the first section);
#   - compute-sanitizer and --check on the copies that break something, and Nsight Compute
#     (ncu) for the counters that four exercises ask about.
# The untimed runs (--check, the sanitizers) run EXERCISES_JOBS at a time; every timed run and
# every ncu run has the GPU to itself, one after another. Meant to take under 4 minutes on one
# H100; the file's header says how long the runs took.
#
#   bash bench/exercises.sh              all of it (needs `make` first: the steps and variants)
#   EXERCISES_EDITS_ONLY=1 bash bench/exercises.sh
#                                        no GPU: make the copies, apply the edits, print the
#                                        diffs and remove the copies (do the edits still apply?)
#   EXERCISES_OUT=file                   write there instead
# Needs the steps built (make), compute-sanitizer, ncu with the permission to read the GPU's
# counters (root), and nvcc.
# Exit status: 0 when every section ran (a section's own exit status is part of its output:
# several copies are meant to fail), 3 without a GPU or a built step.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=exercises
# shellcheck source=bench/common.sh
source bench/common.sh

OUT=${EXERCISES_OUT:-docs/results/$(date -u +%Y-%m-%d)/exercises.txt}
JOBS=${EXERCISES_JOBS:-8}
SECTION_TIMEOUT=300           # seconds: a copy that hangs (exercise 2 of step08) is cut off
HEAD_LINES=12                 # a sanitizer's report: its first lines, then its summary
ONE=(--iters 1 --warmup 0 --no-cub)
work=$(mktemp -d)
COPIES=()
declare -A SOURCE_OF=()       # copy -> the step it was made from
cleanup() {
    local copy
    for copy in "${COPIES[@]}"; do rm -rf "$copy" "build/$copy"; done
    rm -rf "$work"
}
trap cleanup EXIT

# ---- the copies: one edit each, checked to apply exactly once ----
# copy_of STEP_DIRECTORY COPY_NAME: a fresh copy of the step, without its binary
copy_of() {
    rm -rf "$2" "build/$2"
    cp -r "$1" "$2" || die 3 "cannot copy $1 to $2"
    rm -f "$2/run"
    COPIES+=("$2")
    SOURCE_OF[$2]=$1
}
# edit FILE OLD NEW: replace the one occurrence of OLD in FILE by NEW
edit() {
    python3 - "$1" "$2" "$3" <<'PYTHON' || die 3 "an exercise's edit no longer applies (see above)"
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
found = text.count(old)
if found != 1:
    sys.exit(f"{path}: the text to replace occurs {found} times, not once:\n{old}")
open(path, "w").write(text.replace(old, new))
PYTHON
}

make_copies() {
    copy_of step00_global step00_ex_restore
    edit step00_ex_restore/host.c \
        'if (!CUDA_OK(cudaMemcpy(work, copy, n * sizeof(float), cudaMemcpyDeviceToDevice)))' \
        'if (!(run > 0 || CUDA_OK(cudaMemcpy(work, copy, n * sizeof(float), cudaMemcpyDeviceToDevice))))'
    copy_of step00_global step00_ex_bounds
    edit step00_ex_bounds/reduce.cu 'if (threadIdx.x % (2 * len) == 0 && i + len < n)' \
        'if (threadIdx.x % (2 * len) == 0)'
    copy_of step01_shared step01_ex_barrier
    edit step01_ex_barrier/reduce.cu $'partial[t] += partial[t + len];\n        __syncthreads();\n' \
        $'partial[t] += partial[t + len];\n'
    copy_of step03_bank step03_ex_reverse
    edit step03_ex_reverse/reduce.cu 'if (t < len) partial[t] += partial[t + len];' \
        'if (t < len) partial[t] += partial[2 * len - 1 - t];'
    copy_of step04_idle step04_ex_four
    edit step04_ex_four/host.c 'ELEMENTS_PER_THREAD = 2 }' 'ELEMENTS_PER_THREAD = 4 }'
    edit step04_ex_four/reduce.cu '(PLAN_A ? blockDim.x : 2 * blockDim.x)' '(PLAN_A ? blockDim.x : 4 * blockDim.x)'
    edit step04_ex_four/reduce.cu '    partial[t] = first + second;' \
        $'    for (unsigned k = 2; !PLAN_A && k < 4; k++)\n        second += i + k * blockDim.x < n ? in[i + k * blockDim.x] : 0.0f;\n    partial[t] = first + second;'
    copy_of step05_unroll_warp step05_ex_plain
    edit step05_ex_plain/reduce.cu \
        $'    float sum = partial[t];\n    for (unsigned len = WARP_SIZE / 2; len > 0; len /= 2) {\n        sum += partial[t + len];\n        __syncwarp();\n        partial[t] = sum;\n        __syncwarp();\n    }' \
        $'    for (unsigned len = WARP_SIZE / 2; len > 0; len /= 2) {\n        partial[t] += partial[t + len];\n        __syncwarp();\n    }'
    copy_of step05_unroll_warp step05_ex_volatile_loop
    edit step05_ex_volatile_loop/reduce.cu 'void last_warp_wrong_loop(float *partial' \
        'void last_warp_wrong_loop(volatile float *partial'
    copy_of step05_unroll_warp step05_ex_cut32
    edit step05_ex_cut32/reduce.cu 'len >= WARP_SIZE; len /= 2)' 'len > WARP_SIZE; len /= 2)'
    edit step05_ex_cut32/reduce.cu \
        $'    for (unsigned len = WARP_SIZE / 2; len > 0; len /= 2) {\n        sum += partial[t + len];' \
        $'    for (unsigned len = WARP_SIZE; len > 0; len /= 2) {\n        sum += partial[t + len];'
    copy_of step06_full_unroll step06_ex_no512barrier
    edit step06_ex_no512barrier/reduce.cu \
        $'        if (t < 256) partial[t] += partial[t + 256];\n        __syncthreads();\n' \
        $'        if (t < 256) partial[t] += partial[t + 256];\n'
    copy_of step06_full_unroll step06_ex_no1024
    edit step06_ex_no1024/reduce.cu \
        $'    if (BLOCK_SIZE >= 1024) {\n        if (t < 512) partial[t] += partial[t + 512];\n        __syncthreads();\n    }\n' ''
    for loads in 1 8; do
        copy_of step07_blocks "step07_ex_loads$loads"
        edit "step07_ex_loads$loads/reduce.cu" 'LOADS_IN_FLIGHT = 4 }' "LOADS_IN_FLIGHT = $loads }"
        copy_of step10_vector_loads "step10_ex_loads$loads"
        edit "step10_ex_loads$loads/reduce.cu" 'LOADS_IN_FLIGHT = 4 }' "LOADS_IN_FLIGHT = $loads }"
    done
    copy_of step08_shuffle step08_ex_xor
    edit step08_ex_xor/reduce.cu '__shfl_down_sync(FULL_WARP_MASK, value, offset)' \
        '__shfl_xor_sync(FULL_WARP_MASK, value, offset)'
    copy_of step08_shuffle step08_ex_mask
    edit step08_ex_mask/reduce.cu \
        'if (warp == 0) sum = warp_sum(lane < BLOCK_SIZE / WARP_SIZE ? warp_sums[lane] : 0.0f);' \
        'if (warp == 0 && lane < BLOCK_SIZE / WARP_SIZE) sum = warp_sum(warp_sums[lane]);'
    copy_of step09_last_block step09_ex_reset
    edit step09_ex_reset/reduce.cu \
        $'        *ticket_counter = 0; /* every other block has its ticket: nobody else reads it */\n' ''
    copy_of step09_last_block step09_ex_acquire
    edit step09_ex_acquire/reduce.cu $'    if (last) __threadfence();\n' ''
    copy_of step10_vector_loads step10_ex_nohead
    edit step10_ex_nohead/reduce.cu \
        'size_t past_boundary = reinterpret_cast<uintptr_t>(in) % sizeof(float4) / sizeof(float);' \
        'size_t past_boundary = 0; /* the exercise: assume an aligned input */'
    copy_of step11_in_flight step11_ex_one_branch
    edit step11_ex_one_branch/reduce.cu \
        $'    if (first + (VECTORS_PER_THREAD - 1) * BLOCK_SIZE < split.body_vectors) { /* all in bounds */\n#pragma unroll\n        for (unsigned k = 0; k < VECTORS_PER_THREAD; k++)\n            loaded[k] = __ldg(split.body + first + k * BLOCK_SIZE);\n    } else {\n' \
        $'    {\n'
    for vectors in 4 16; do
        copy_of step11_in_flight "step11_ex_vectors$vectors"
        edit "step11_ex_vectors$vectors/reduce.h" 'VECTORS_PER_THREAD = 8 }' "VECTORS_PER_THREAD = $vectors }"
    done
    copy_of step11_in_flight step11_ex_ldg_sums
    edit step11_ex_ldg_sums/reduce.cu 'loaded[k] = i + k * stride < count ? vectors[i + k * stride] : zero;' \
        'loaded[k] = i + k * stride < count ? __ldg(vectors + i + k * stride) : zero;'
    copy_of step12_small_n step12_ex_one_block8
    edit step12_ex_one_block8/reduce.h 'ONE_BLOCK_VECTORS = 4 }' 'ONE_BLOCK_VECTORS = 8 }'
    copy_of step13_gather step13_ex_gather_all
    edit step13_ex_gather_all/reduce.h 'GATHER_MOST_BLOCKS = 2048 }' 'GATHER_MOST_BLOCKS = 65536 }'
}

print_diffs() {
    local copy
    echo "## diffs"
    echo "The edited copies, each against its step (diff -u)."
    for copy in "${COPIES[@]}"; do
        diff -ru -x run "${SOURCE_OF[$copy]}" "$copy" | sed -E 's/^(---|\+\+\+) ([^\t]*)\t.*/\1 \2/'
    done
}

if [ -n "${EXERCISES_EDITS_ONLY:-}" ]; then
    make_copies
    print_diffs
    echo "$program: every edit applies (copies removed again)" >&2
    exit 0
fi

load_ladder
for directory in "${LADDER[@]}"; do   # step15 only where NCCL let it build
    case $directory in step15*) ;; *) require_built "$directory" ;; esac
done
require_gpu step13_gather
SANITIZER=$(find_tool compute-sanitizer "${COMPUTE_SANITIZER:-}") || die 3 "compute-sanitizer not found"
NCU=$(find_tool ncu "${NCU:-}") || die 3 "ncu (Nsight Compute) not found"
NVCC=$(find_tool nvcc "${NVCC:-}") || die 3 "nvcc not found"
make -s step13-variants >/dev/null || die 3 "make step13-variants failed"

make_copies
note "building ${#COPIES[@]} edited copies"
make -s -j"$(nproc)" "${COPIES[@]}" >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2
    die 3 "an edited copy does not build"
}

# ---- the sections ----
# Each is a line of $work/sections: KIND<TAB>HEADING<TAB>COMMAND, run in the order given.
# KIND: timed (alone on the GPU), free (may run beside other free ones), head (free; the
# output's first HEAD_LINES lines and its last 3, for a sanitizer's long report).
add() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$work/sections"; }
timed() { add timed "$1" "$2"; }
untimed() { add free "$1" "$2"; }
sanitized() { add head "$1" "$2"; }
ncu_metrics() { # HEADING METRICS COMMAND: the first launch of a kernel named reduce*
    timed "$1" "$NCU --metrics $2 -k regex:^reduce -c 1 $3"
}
registers() { # HEADING DIRECTORY: ptxas's registers per kernel
    untimed "$1" "$NVCC -std=c++17 -O3 -arch=sm_90 -Icommon -I$2 -Xptxas -v -c $2/reduce.cu -o /dev/null 2>&1 | grep -E 'Compiling entry|Used [0-9]+ registers'"
}
TRAFFIC=lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
CONFLICTS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
RACECHECK="$SANITIZER --tool racecheck"

# step00
for threads in 32 256 1024; do timed "step00-threads-$threads" "./step00/run --threads $threads"; done
timed step00-restore "./step00_ex_restore/run -n 4096 --pattern ones --warmup 0 --iters 2"
untimed step00-restore-check "./step00_ex_restore/run --check"
sanitized step00-bounds-memcheck "$SANITIZER ./step00_ex_bounds/run -n 1000003 ${ONE[*]}"
timed step00-bounds-2^25 "./step00_ex_bounds/run --iters 1 --warmup 0"
# step01
ncu_metrics step01-traffic-step00 "$TRAFFIC" "./step00/run -n 2^25 ${ONE[*]} --quiet"
ncu_metrics step01-traffic-step01 "$TRAFFIC" "./step01/run -n 2^25 ${ONE[*]} --quiet"
timed step01-barrier-ones "./step01_ex_barrier/run --pattern ones"
untimed step01-barrier-check "./step01_ex_barrier/run --check"
sanitized step01-barrier-racecheck "$RACECHECK ./step01_ex_barrier/run -n 4096 ${ONE[*]}"
for n in 2^25 2^14; do
    for finish in gpu cpu; do timed "step01-finish-$finish-$n" "./step01/run -n $n --finish $finish"; done
done
# step02 (and step03's exercise 3)
ncu_metrics step02-conflicts-1024 "$CONFLICTS" "./step02/run -n 2^18 --threads 1024 ${ONE[*]} --quiet"
for step in step01 step02 step03; do
    for threads in 256 1024; do timed "step02-$step-threads-$threads" "./$step/run --csv --threads $threads"; done
done
# step03
ncu_metrics step03-conflicts-step02 "$CONFLICTS" "./step02/run -n 2^20 ${ONE[*]} --quiet"
ncu_metrics step03-conflicts-step03 "$CONFLICTS" "./step03/run -n 2^20 ${ONE[*]} --quiet"
untimed step03-reverse-check "./step03_ex_reverse/run --check"
for threads in 1024 32 96; do timed "step03-threads-$threads" "./step03/run --threads $threads"; done
# step04
timed step04-plan-a-ones-cpu "./step04/run --variant plan-a --pattern ones --finish cpu"
timed step04-plan-a-ones "./step04/run --variant plan-a --pattern ones"
timed step04-plan-a-onehot-last-cpu "./step04/run --variant plan-a --pattern onehot:last --finish cpu"
timed step04-plan-a-uniform "./step04/run --variant plan-a"
timed step04-plan-a-uniform-cpu "./step04/run --variant plan-a --finish cpu"
timed step04-threads-256 "./step04/run --iters 100"
timed step04-threads-128 "./step04/run --iters 100 --threads 128"
timed step04-step03 "./step03/run --iters 100"
timed step04-four "./step04_ex_four/run --iters 100"
untimed step04-four-check "./step04_ex_four/run --check"
ncu_metrics step04-dram-pairs dram__bytes_read.sum "./step04/run -n 2^25 ${ONE[*]} --quiet"
ncu_metrics step04-dram-plan-a dram__bytes_read.sum "./step04/run -n 2^25 --variant plan-a ${ONE[*]} --quiet"
# step05
for variant in syncwarp volatile wrong-loop wrong-unrolled; do
    sanitized "step05-racecheck-$variant" "$RACECHECK ./step05/run -n 1000003 ${ONE[*]} --variant $variant"
done
sanitized step05-plain-racecheck "$RACECHECK ./step05_ex_plain/run -n 1000003 ${ONE[*]}"
untimed step05-plain-check "./step05_ex_plain/run --check"
untimed step05-volatile-loop-check "./step05_ex_volatile_loop/run --check --variant wrong-loop"
sanitized step05-volatile-loop-racecheck "$RACECHECK ./step05_ex_volatile_loop/run -n 1000003 ${ONE[*]} --variant wrong-loop"
untimed step05-cut32-check "./step05_ex_cut32/run --check"
timed step05-cut32 "./step05_ex_cut32/run"
timed step05-default "./step05/run"
# step06
untimed step06-no512barrier-check "./step06_ex_no512barrier/run --check"
sanitized step06-no512barrier-racecheck "$RACECHECK ./step06_ex_no512barrier/run -n 1000003 ${ONE[*]} --threads 512"
for hot in 100 600 1600; do
    timed "step06-no1024-onehot-$hot" "./step06_ex_no1024/run --threads 1024 -n 2048 --pattern onehot:$hot"
done
for n in 1M 2^25; do
    for step in step05 step06; do timed "step06-$step-$n" "./$step/run --csv -n $n"; done
done
# step07
for blocks in 32 64 128 256 512 1024 1056 2048 4096 8192; do
    timed "step07-blocks-$blocks" "./step07/run --csv --blocks $blocks"
done
for blocks in 264 4096 8192; do timed "step07-threads-1024-blocks-$blocks" "./step07/run --threads 1024 --blocks $blocks"; done
registers step07-registers-loads4 step07_blocks
for loads in 1 8; do
    registers "step07-registers-loads$loads" "step07_ex_loads$loads"
    timed "step07-loads$loads" "./step07_ex_loads$loads/run --csv"
    timed "step07-loads$loads-blocks-128" "./step07_ex_loads$loads/run --csv --blocks 128"
done
for blocks in 1056 32; do
    for variant in tree thread0; do timed "step07-$variant-blocks-$blocks" "./step07/run --csv --variant $variant --blocks $blocks"; done
done
timed step07-clock "./step07/run --clock"
timed step07-clock-blocks-32 "./step07/run --clock --blocks 32"
for blocks in 32 256 1056 8192; do
    for finish in gpu cpu; do timed "step07-finish-$finish-blocks-$blocks" "./step07/run --csv --no-cub --blocks $blocks --finish $finish"; done
done
# step08
untimed step08-xor-check "./step08_ex_xor/run --check"
timed step08-xor "./step08_ex_xor/run"
timed step08-default "./step08/run"
timed step08-mask "./step08_ex_mask/run -n 1M"
sanitized step08-mask-synccheck "$SANITIZER --tool synccheck ./step08_ex_mask/run -n 1M ${ONE[*]}"
for threads in 32 64 128 256 512 1024; do timed "step08-threads-$threads" "./step08/run --csv --threads $threads"; done
# step09
timed step09-reset "./step09_ex_reset/run"
untimed step09-reset-check "./step09_ex_reset/run --check"
untimed step09-acquire-check "./step09_ex_acquire/run --check"
for variant in fence atomic-ref atomic-add; do
    timed "step09-sizes-$variant" "./step09/run --csv -n 2^10..2^22 --variant $variant"
    timed "step09-bits-$variant" "for run in 1 2 3 4 5; do ./step09/run -n 1000003 --iters 1 --warmup 0 --quiet --variant $variant; done"
done
untimed step09-atomic-add-check "./step09/run --check --variant atomic-add"
timed step09-floor-step12 "./step12/run --csv -n 1024"
# step10
ncu_metrics step10-loads-step09 smsp__inst_executed_op_global_ld.sum "./step09/run -n 2^25 ${ONE[*]} --quiet"
ncu_metrics step10-loads-step10 smsp__inst_executed_op_global_ld.sum "./step10/run -n 2^25 ${ONE[*]} --quiet"
untimed step10-nohead-check "./step10_ex_nohead/run --check"
timed step10-loads4-2^30 "./step10/run -n 2^30"
for loads in 1 8; do timed "step10-loads$loads-2^30" "./step10_ex_loads$loads/run -n 2^30"; done
# step11
registers step11-registers step11_in_flight
registers step11-one-branch-registers step11_ex_one_branch
timed step11-2^30 "./step11/run --csv -n 2^30"
timed step11-one-branch-2^30 "./step11_ex_one_branch/run --csv -n 2^30"
for vectors in 4 16; do
    registers "step11-vectors$vectors-registers" "step11_ex_vectors$vectors"
    for n in 2^25 2^30; do timed "step11-vectors$vectors-$n" "./step11_ex_vectors$vectors/run --csv -n $n"; done
done
for n in 2^25 2^30; do timed "step11-atomic-add-$n" "./step11/run --csv -n $n --variant atomic-add"; done
timed step11-2^25 "./step11/run --csv -n 2^25"
untimed step11-ldg-sums-check "./step11_ex_ldg_sums/run --check"
# step12
timed step12-small "./step12/run --csv -n 2^10..2^14"
timed step12-one-block8-small "./step12_ex_one_block8/run --csv -n 2^10..2^14"
timed step12-ceilings "./step12/run -n 2^20..2^30 --ceilings"
for variant in ticket atomic-add; do
    timed "step12-bits-$variant" "for run in 1 2 3 4 5; do ./step12/run -n 4096 --pattern real --quiet --variant $variant; done"
done
# step13
for variant in gather ticket; do timed "step13-sizes-$variant" "./step13/run --csv -n 2^20..2^25 --variant $variant"; done
for threads in 512 1024; do
    timed "step13-gather-all-threads-$threads" "./step13_ex_gather_all/run --csv -n 2^25..2^30 --threads $threads --vectors 8"
    timed "step13-ticket-threads-$threads" "./step13/run --csv -n 2^25..2^30 --threads $threads --variant ticket"
done
for flush in read write; do
    timed "step13-2^25-flush-$flush" "./step13/run -n 2^25 --flush $flush"
    timed "step13-variants-flush-$flush" "./step13_gather/variants/run -n 2^23..2^30 --flush $flush"
done
untimed step13-real "./step13/run --pattern real"
# step14
for type in int float double; do timed "step14-sum-$type-2^28" "./step14/run --csv --op sum --type $type -n 2^28"; done
timed step14-step10-2^28 "./step10/run --csv -n 2^28"
timed step14-dot-blocks-32-cpu "./step14/run --op dot --blocks 32 --threads 256 --finish cpu"
timed step14-dot "./step14/run --op dot"
# step15, where it was built: one GPU
if [ -x step15_multi_gpu/run ]; then
    timed step15-one-gpu "./step15/run -n 2^31"
fi

# ---- run them: the free ones JOBS at a time, then the timed ones one after another ----
run_section() { # INDEX: section INDEX of $work/sections -> $work/INDEX.out
    local kind command status
    IFS=$'\t' read -r kind _ command <<<"$(sed -n "$(($1 + 1))p" "$work/sections")"
    {
        echo "\$ $command"
        if [ "$kind" = head ]; then
            timeout "$SECTION_TIMEOUT" bash -c "$command" >"$work/$1.full" 2>&1
            status=$?
            if [ "$(wc -l <"$work/$1.full")" -gt $((HEAD_LINES + 3)) ]; then
                head -n "$HEAD_LINES" "$work/$1.full"
                echo "[... $(($(wc -l <"$work/$1.full") - HEAD_LINES - 3)) lines left out ...]"
                tail -n 3 "$work/$1.full"
            else
                cat "$work/$1.full"
            fi
        else
            timeout "$SECTION_TIMEOUT" bash -c "$command" 2>&1
            status=$?
        fi
        echo "exit $status"
    } >"$work/$1.out"
}
export -f run_section
export work SECTION_TIMEOUT HEAD_LINES
count=$(wc -l <"$work/sections")
started=$(date +%s)
note "$count sections"
for index in $(seq 0 $((count - 1))); do
    kind=$(sed -n "$((index + 1))p" "$work/sections" | cut -f1)
    [ "$kind" = timed ] || echo "$index"
done | OMP_NUM_THREADS=2 xargs -P "$JOBS" -I{} bash -c 'run_section {}'
for index in $(seq 0 $((count - 1))); do
    kind=$(sed -n "$((index + 1))p" "$work/sections" | cut -f1)
    [ "$kind" = timed ] && run_section "$index"
done

mkdir -p "$(dirname "$OUT")"
{
    echo "# The measurements that docs/instructors.md's answers to the step READMEs' exercises cite."
    echo "# Written by bash bench/exercises.sh on $(utc_now), $(($(date +%s) - started)) s of runs."
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# GPU: /'
    "$NVCC" --version | tail -n 2 | sed 's/^/# /'
    "$SANITIZER" --version | head -n 1 | sed 's/^/# /'
    "$NCU" --version | tail -n 1 | sed 's/^/# ncu: /'
    echo
    print_diffs
    for index in $(seq 0 $((count - 1))); do
        echo
        echo "## $(sed -n "$((index + 1))p" "$work/sections" | cut -f2)"
        cat "$work/$index.out"
    done
} >"$OUT"
note "wrote $OUT"
