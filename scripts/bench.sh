#!/usr/bin/env bash
# make bench: run every Google Benchmark program of a build (one core, pinned when taskset exists) and
# keep their JSON under BUILD/bench/. Usage: scripts/bench.sh BUILD [FILTER]
set -euo pipefail
BUILD=${1:-build}
FILTER=${2:-.}
OUT="$BUILD/bench"
mkdir -p "$OUT"
PIN=""
if command -v taskset >/dev/null 2>&1; then PIN="taskset -c 0"; fi
found=0
for b in "$BUILD"/sw/bench/bench_*; do
  [ -x "$b" ] || continue
  found=1
  name=$(basename "$b")
  echo "== $name"
  $PIN "$b" --benchmark_filter="$FILTER" --benchmark_min_time=0.2 \
    --benchmark_out="$OUT/$name.json" --benchmark_out_format=json
done
[ $found -eq 1 ] || { echo "no benchmark programs under $BUILD/sw/bench (configure with -DNDP_BENCH=ON)"; exit 1; }
