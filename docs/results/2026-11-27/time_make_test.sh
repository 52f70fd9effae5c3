#!/usr/bin/env bash
# How long README.md's test command takes from a fresh clone: clones this repository into a
# temporary directory, runs `make -j4 test` there and appends one row to make_test_time.csv
# beside this script (the machine's cores, its GPU or "none", the 1-minute load average before
# and after, which says how much else the machine was doing, and the seconds it took).
#   bash docs/results/2026-11-27/time_make_test.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repository=$(git -C "$here" rev-parse --show-toplevel)
out="$here/make_test_time.csv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repository" "$work/clone"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
nvcc_version=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
load_before=$(cut -d' ' -f1 /proc/loadavg)
start=$(date +%s)
status=0
(cd "$work/clone" && make -j4 test >"$work/log" 2>&1) || status=$?
seconds=$(($(date +%s) - start))
load_after=$(cut -d' ' -f1 /proc/loadavg)
tail -n 3 "$work/log"
[ -f "$out" ] || echo "command,exit_code,seconds,cores,gpu,nvcc,load_before,load_after,date" >"$out"
echo "make -j4 test,$status,$seconds,$(nproc),${gpu:-none},$nvcc_version,$load_before,$load_after,$(date -u +%Y-%m-%d)" >>"$out"
echo "time_make_test: make -j4 test exited $status after $seconds s; row added to $out"
