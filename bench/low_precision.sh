#!/usr/bin/env bash
# bash bench/low_precision.sh [OUT.csv] (on a GPU): what a sum of 2^20 half or bf16 values
# loses when it is added up in that type instead of in float (docs/accuracy.md, "Low
# precision"). For each type and each of the patterns ones, uniform, real and normal, step14
# sums the same 2^20 values three ways, the L2 flushed, one run each:
#   float        --accumulate float: step14's default for half and bf16
#   input-tree   --accumulate input at step14's default grid: each thread adds about 8
#                elements, then trees of pairs; the partial sums stay small
#   input-chain  --accumulate input --blocks 1 --threads 32: each of 32 lanes adds 8192 groups
#                of 4 elements one after another, a long chain like a running sum
# and float itself (--type float) as the baseline. Writes OUT (default
# docs/results/<today, UTC>/step14_low_precision.csv): a column `accumulation` (float,
# input-tree, input-chain), then step14's own --csv columns. A run that exits 1 (a result
# beyond its bound, or one with no bound at all) is a measurement like any other and is
# kept; the script fails only when a run could not happen (exit 2 or 3), and exits 0 once
# OUT is written.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=low_precision
# shellcheck source=bench/common.sh
source bench/common.sh

N=2^20
TYPES=(bf16 half)
PATTERNS=(ones uniform real normal)
ONE_RUN=(--csv --no-cub --iters 1 --warmup 0 --buffers 1 -n "$N")
CHAIN=(--blocks 1 --threads 32)
STEP=step14_generic

out=${1:-docs/results/$(date -u +%Y-%m-%d)/step14_low_precision.csv}
rows=0

# accumulation, then step14's arguments: one CSV row into $out, or the reason it failed
run() {
    local accumulation=$1 csv status
    shift
    csv=$("$STEP/run" "${ONE_RUN[@]}" "$@" 2>&1)
    status=$?
    if [ "$status" -gt 1 ]; then
        die "$status" "$STEP/run $* exited $status: $csv"
    fi
    [ "$rows" -gt 0 ] || echo "$csv" | sed -n '1s/^/accumulation,/p' >"$out"
    echo "$csv" | sed -n "2s/^/$accumulation,/p" >>"$out"
    rows=$((rows + 1))
}

# The columns that tell the story, aligned, on stdout. They all come before the kernel's name,
# the one quoted field with commas in it, so splitting a row at its commas finds them.
summary() {
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i }
        { printf "%-12s %-26s %-8s %14s %20s %16s %14s %s\n", $at["accumulation"], $at["variant"],
                 $at["pattern"], $at["result"], $at["expected"], $at["error"], $at["bound"], $at["ok"] }' "$1"
}

main() {
    local type pattern
    [ $# -le 1 ] || die 2 "one argument at most: the CSV to write"
    require_built "$STEP"
    require_gpu "$STEP"
    mkdir -p "$(dirname "$out")"
    for pattern in "${PATTERNS[@]}"; do
        note "--pattern $pattern, n = $N"
        run float --type float --pattern "$pattern"
        for type in "${TYPES[@]}"; do
            run float --type "$type" --pattern "$pattern"
            run input-tree --type "$type" --accumulate input --pattern "$pattern"
            run input-chain --type "$type" --accumulate input "${CHAIN[@]}" --pattern "$pattern"
        done
    done
    note "wrote $rows rows to $out"
    summary "$out" || note "could not print $out; it is written"
}

main "$@"
