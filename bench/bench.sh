#!/usr/bin/env bash
# make bench (on a GPU): every step of the ladder, and cub::DeviceReduce::Sum beside it, over
# n = 2^10 .. 2^30; step13 also over 2^31 .. 2^32 where the memory allows. Each step binary
# measures itself (--csv): the L2 emptied before every run (by reading; the speed steps are
# measured a second time with the L2 emptied by writing, --flush write, docs/measuring.md), the runs rotating over up to 4
# device copies of the input, the median of the timed runs, then CUB timed the same way on
# the same copies. One CSV comes out, with a date column; then two tables: the ladder at
# n = 2^25 and step13 over every n.
#   bash bench/bench.sh
# A subset (written to build/bench/bench.csv, so that docs/results/ stays as measured):
#   BENCH_STEPS="03 10"       steps by number or name (step03,step13)
#   BENCH_SIZES=20..25        n = 2^20 .. 2^25 (or 25: only 2^25; 2^20..2^25 works too)
#   BENCH_ITERS=100           timed runs at every n (default: 200 up to 2^20, then 50)
#   BENCH_OUT=path.csv        where the CSV goes
#   BENCH_ROWS_OUT=path.csv   where step16's CSV goes (BENCH_STEPS=16 runs only step16)
# step16, the rows step, runs apart: at ROWS_SHAPES (rows x cols), both flushes, float and
# bf16, beside cub::DeviceSegmentedReduce; its rows go to docs/results/bench_rows.csv (their
# columns differ: a shape, not an n), or to build/bench/bench_rows.csv with a subset
# (BENCH_SIZES does not apply to it; BENCH_ITERS does). Where
# PyTorch sees a GPU, bench/torch_rows.py adds torch.sum(x, dim=1) at a few of the shapes.
# Exit status: 0; 1 when a step binary reported a wrong result or failed (named at the end,
# after every other step has run); 2 a usage error; 3 no GPU.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=bench
export PYTHONDONTWRITEBYTECODE=1
# shellcheck source=bench/common.sh
source bench/common.sh

FIRST_EXPONENT=10
LAST_EXPONENT=30
MAX_EXPONENT=32            # the binaries take n up to 2^32
SMALL_LAST_EXPONENT=20     # up to here a run takes microseconds: many runs cost little
SMALL_ITERS=200
LARGE_ITERS=50
SPEED_STEP=step13          # also over the largest sizes, where the memory allows
SPEED_LAST_EXPONENTS=(31 32)
SKIPPED_STEPS=(step15)     # several GPUs: not part of this sweep
ROWS_STEP=step16           # a matrix, not an n: run_rows measures it apart
WRITE_FLUSH_STEPS=(step10 step11 step12 step13)   # also measured with an L2 full of dirty lines
OPTIONAL_STEPS=(step14)    # measured where it is built
BYTES_PER_FLOAT=4
HEADROOM_MIB=1024          # beyond one copy of the input: the L2 scratch, CUB, the runtime
COMMITTED_CSV=docs/results/bench.csv
SUBSET_CSV=build/bench/bench.csv
declare -A STEP_ARGUMENTS=([step14]="--op sum --type float")
# The rows step's shapes: each class of the chooser (the warp's 8, 16, 32 lanes per row, the
# block's sizes, long rows on either side of two rows per SM), at 2^26 elements where a row is
# 32 elements or more (the bandwidth target), the two ends (2^20 x 1, 1 x 2^30), odd shapes,
# and bf16 ("SHAPE TYPE").
ROWS_SHAPES=("1048576x1 float" "2097152x32 float" "1048576x64 float" "524288x128 float"
             "262144x256 float" "131072x512 float" "65536x1024 float" "16384x4096 float"
             "4096x16384 float" "1024x65536 float" "256x262144 float" "16x4194304 float" "1x67108864 float"
             "32768x32768 float" "1x1073741824 float" "1000003x33 float" "65537x1025 float"
             "4097x16385 float" "2097152x32 bf16" "1048576x64 bf16" "65536x1024 bf16"
             "16x4194304 bf16" "1x1073741824 bf16")
ROWS_ITERS=50
ROWS_CSV=docs/results/bench_rows.csv
ROWS_SUBSET_CSV=build/bench/bench_rows.csv
TORCH_SHAPES=("2097152x32" "65536x1024" "16x4194304" "1x67108864")

# ---- what to run ----
selected_directories() {
    local directory name wanted=${BENCH_STEPS:-} token found
    if [ -z "$wanted" ]; then
        for directory in "${LADDER[@]}"; do
            name=$(short_name "$directory")
            [[ " ${SKIPPED_STEPS[*]} " != *" $name "* ]] || continue
            if [[ " ${OPTIONAL_STEPS[*]} " == *" $name "* ]] && [ ! -x "$directory/run" ]; then
                note "$directory is not built: left out"
                continue
            fi
            echo "$directory"
        done
        return
    fi
    for token in ${wanted//,/ }; do
        found=$(ladder_directory_of "$token") ||
            die 2 "BENCH_STEPS: '$token' is not a step of the ladder (make ladder lists them)"
        echo "$found"
    done
}

# BENCH_SIZES -> "FIRST LAST" exponents
size_exponents() {
    local text=${BENCH_SIZES:-$FIRST_EXPONENT..$LAST_EXPONENT} first last
    text=${text//2^/}
    first=${text%%..*}
    last=${text##*..}
    if ! [[ $first =~ ^[0-9]+$ && $last =~ ^[0-9]+$ ]] || ((first > last || last > MAX_EXPONENT)); then
        die 2 "BENCH_SIZES takes exponents of 2, as 20..25 or 25 (at most $MAX_EXPONENT)," \
            "not '${BENCH_SIZES:-}'"
    fi
    echo "$first $last"
}

iters_for() {   # exponent -> timed runs
    if [ -n "${BENCH_ITERS:-}" ]; then echo "$BENCH_ITERS"
    elif [ "$1" -le "$SMALL_LAST_EXPONENT" ]; then echo "$SMALL_ITERS"
    else echo "$LARGE_ITERS"; fi
}

# "FIRST LAST ITERS" segments of one step: one process each
segments() {
    local first=$1 last=$2 split
    split=$SMALL_LAST_EXPONENT
    if [ -n "${BENCH_ITERS:-}" ] || [ "$last" -le "$split" ] || [ "$first" -gt "$split" ]; then
        echo "$first $last $(iters_for "$first")"
    else
        echo "$first $split $(iters_for "$first")"
        echo "$((split + 1)) $last $(iters_for "$last")"
    fi
}

free_mib() {     # device memory free now (nvidia-smi), or nothing
    nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits 2>/dev/null | head -n 1 | tr -d ' '
}

available_host_mib() {
    awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo 2>/dev/null
}

# The largest of SPEED_LAST_EXPONENTS whose input (one copy: the binary makes as many as
# fit, up to 4) fits the device and the host, or nothing.
speed_extension_last() {
    local exponent need device host best=
    device=$(free_mib)
    host=$(available_host_mib)
    for exponent in "${SPEED_LAST_EXPONENTS[@]}"; do
        need=$(((BYTES_PER_FLOAT << exponent) / 1048576 + HEADROOM_MIB))
        if [ -n "$device" ] && [ "$device" -lt "$need" ]; then
            note "$SPEED_STEP at n = 2^$exponent needs $need MiB of device memory," \
                 "$device MiB are free: left out"
        elif [ -n "$host" ] && [ "$host" -lt "$need" ]; then
            note "$SPEED_STEP at n = 2^$exponent needs $need MiB of host memory," \
                 "$host MiB are available: left out"
        else
            best=$exponent
        fi
    done
    echo "$best"
}

flushes_of() {    # directory -> "read" or "read write"
    if [[ " ${WRITE_FLUSH_STEPS[*]} " == *" $(short_name "$1") "* ]]; then echo "read write"; else echo "read"; fi
}

# ---- running ----
failures=()
outputs=()
rows_outputs=()

run_segment() {   # directory first last iters [flush]
    local directory=$1 first=$2 last=$3 iters=$4 flush=${5:-read} name out status started extra=()
    name=$(short_name "$directory")
    out="$work/$name.$first-$last.$flush.csv"
    # shellcheck disable=SC2206 # the table holds words, e.g. "--op sum --type float"
    [ -z "${STEP_ARGUMENTS[$name]:-}" ] || extra=(${STEP_ARGUMENTS[$name]})
    started=$SECONDS
    "$directory/run" -n "2^$first..2^$last" --iters "$iters" --flush "$flush" --csv "${extra[@]}" \
        >"$out" 2>"$out.err"
    status=$?
    note "$name n = 2^$first .. 2^$last, --flush $flush, $iters timed runs each${extra[*]:+ (${extra[*]})}:" \
         "exit $status, $((SECONDS - started)) s"
    [ -s "$out" ] && outputs+=("$out")
    if [ "$status" -ne 0 ]; then
        sed 's/^/    | /' "$out.err" | tail -n 20 >&2
        case $status in
        1) failures+=("$name at n = 2^$first..2^$last: a wrong result (exit 1; see its ok column)") ;;
        3) failures+=("$name at n = 2^$first..2^$last: a CUDA error or too little memory (exit 3)") ;;
        *) failures+=("$name at n = 2^$first..2^$last: exit $status") ;;
        esac
    fi
}

# step16 at every shape of ROWS_SHAPES, with both flushes.
run_rows() {   # directory
    local directory=$1 entry shape type flush out status started
    for flush in read write; do
        for entry in "${ROWS_SHAPES[@]}"; do
            read -r shape type <<<"$entry"
            out="$work/rows.$shape.$type.$flush.csv"
            started=$SECONDS
            "$directory/run" -n "$shape" --type "$type" --iters "${BENCH_ITERS:-$ROWS_ITERS}" \
                --flush "$flush" --csv >"$out" 2>"$out.err"
            status=$?
            note "$ROWS_STEP $shape $type, --flush $flush: exit $status, $((SECONDS - started)) s"
            [ -s "$out" ] && rows_outputs+=("$out")
            if [ "$status" -ne 0 ]; then
                sed 's/^/    | /' "$out.err" | tail -n 20 >&2
                failures+=("$ROWS_STEP at $shape $type --flush $flush: exit $status")
            fi
        done
    done
    if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        out="$work/rows.torch.csv"
        python3 bench/torch_rows.py "${TORCH_SHAPES[@]}" >"$out" 2>"$out.err" &&
            rows_outputs+=("$out") ||
            failures+=("torch.sum(x, dim=1): $(tail -n 1 "$out.err")")
    else
        note "PyTorch is not importable here, or sees no GPU: no torch.sum(x, dim=1) rows"
    fi
}

# The rows step's CSVs as one, each row with the date column.
merge_rows() {   # out date csv...
    local out=$1 date=$2
    shift 2
    mkdir -p "$(dirname "$out")"
    { head -n 1 "$1" | sed 's/$/,date/'
      for csv in "$@"; do tail -n +2 "$csv" | sed "s/\$/,$date/"; done; } >"$out"
    note "wrote $(($(wc -l <"$out") - 1)) rows to $out"
}

main() {
    local directories=() listed directory first last exponents segment out extension date flush
    [ $# -eq 0 ] || die 2 "no arguments: BENCH_STEPS, BENCH_SIZES, BENCH_ITERS and BENCH_OUT" \
        "choose (see the top of bench/bench.sh)"
    if [ -n "${BENCH_ITERS:-}" ] && ! [[ $BENCH_ITERS =~ ^[1-9][0-9]*$ ]]; then
        die 2 "BENCH_ITERS must be a positive number, not '$BENCH_ITERS'"
    fi
    exponents=$(size_exponents) || exit $?
    read -r first last <<<"$exponents"
    load_ladder
    listed=$(selected_directories) || exit $?
    read -ra directories <<<"$(tr '\n' ' ' <<<"$listed")"
    [ ${#directories[@]} -gt 0 ] || die 2 "BENCH_STEPS selects no step"
    require_built "${directories[@]}"
    require_gpu "${directories[0]}"
    command -v python3 >/dev/null || die 3 "python3 is missing (it writes the CSV and the tables)"
    out=${BENCH_OUT:-}
    if [ -z "$out" ]; then
        out=$COMMITTED_CSV
        [ -z "${BENCH_STEPS:-}${BENCH_SIZES:-}${BENCH_ITERS:-}" ] || out=$SUBSET_CSV
    fi

    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    date=$(utc_now)
    local started=$SECONDS
    for directory in "${directories[@]}"; do
        if [ "$(short_name "$directory")" = "$ROWS_STEP" ]; then
            run_rows "$directory"
            continue
        fi
        for flush in $(flushes_of "$directory"); do
            while read -r segment; do
                # shellcheck disable=SC2086 # "first last iters"
                run_segment "$directory" $segment "$flush"
            done < <(segments "$first" "$last")
            if [ "$(short_name "$directory")" = "$SPEED_STEP" ] && [ -z "${BENCH_SIZES:-}" ]; then
                extension=$(speed_extension_last)
                [ -z "$extension" ] ||
                    run_segment "$directory" "${SPEED_LAST_EXPONENTS[0]}" "$extension" \
                        "$(iters_for "$extension")" "$flush"
            fi
        done
    done
    [ ${#outputs[@]} -gt 0 ] || [ ${#rows_outputs[@]} -gt 0 ] || die 1 "no step wrote a CSV row"
    if [ ${#outputs[@]} -gt 0 ]; then
        python3 bench/bench_tables.py merge "$out" "$date" "${outputs[@]}" || exit 1
        echo
        python3 bench/bench_tables.py summary "$out" "$SPEED_STEP"
        echo
    fi
    if [ ${#rows_outputs[@]} -gt 0 ]; then
        local rows_out=$ROWS_CSV
        [ "$out" = "$COMMITTED_CSV" ] || rows_out=$ROWS_SUBSET_CSV
        rows_out=${BENCH_ROWS_OUT:-$rows_out}
        merge_rows "$rows_out" "$date" "${rows_outputs[@]}"
        python3 bench/rows_table.py "$rows_out"
        echo
    fi
    note "$((SECONDS - started)) s in all; the CSV is $out (make charts BENCH_CSV=$out draws it)"
    if [ ${#failures[@]} -gt 0 ]; then
        note "FAILED: ${#failures[@]} run(s) did not finish correctly:"
        printf '  %s\n' "${failures[@]}" >&2
        exit 1
    fi
}

main "$@"
