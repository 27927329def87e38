#!/usr/bin/env bash
# On a GPU machine (issue 25): builds and runs the latency microbenchmarks, writes one CSV and the
# SASS of each into OUT_DIR. Takes well under a minute on an H100.
#   scripts/microbench/latency/run.sh OUT_DIR
# OUT_DIR/latency.csv: bench,class_or_kernel,sass_or_param,warps_per_scheduler_or_warps,...
#   (chains.cu rows, loops.cu rows, then atomics.cu rows; each file's columns are named by its header line)
# OUT_DIR/chains.csv, OUT_DIR/loops.csv, OUT_DIR/atomics.csv: each program's own output
# OUT_DIR/sass/{chains,loops,atomics}.sass: cuobjdump -sass of each binary (check the SASS classes)
# OUT_DIR/device.txt: nvidia-smi name, driver, clocks, and the date
set -euo pipefail
cd "$(dirname "$0")"
OUT_DIR="$(mkdir -p "${1:-${OUT:-./latency-out}}" && cd "${1:-${OUT:-./latency-out}}" && pwd)"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
CUOBJDUMP="${CUOBJDUMP:-$(dirname "$NVCC")/cuobjdump}"
BIN="$(mktemp -d)"
mkdir -p "$OUT_DIR/sass"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.max.mem --format=csv > "$OUT_DIR/device.txt" 2>&1 || true
date -u +%Y-%m-%dT%H:%M:%SZ >> "$OUT_DIR/device.txt"
: > "$OUT_DIR/latency.csv"
for b in chains loops atomics; do
  "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$BIN/$b" "$b.cu"
  "$CUOBJDUMP" -sass "$BIN/$b" > "$OUT_DIR/sass/$b.sass"
  timeout 120 "$BIN/$b" > "$OUT_DIR/$b.csv"
  sed "s/^/$b,/" "$OUT_DIR/$b.csv" >> "$OUT_DIR/latency.csv"
done
rm -rf "$BIN"
echo "wrote $OUT_DIR/latency.csv"
