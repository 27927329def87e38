#!/usr/bin/env bash
# On an H100 (or any sm_90 GPU) with nvcc: builds and runs the TMA tensor-copy microbenchmark.
#   scripts/microbench/tma_tensor.sh OUTDIR     (default: $OUT, else ./micro-out)
# Writes OUTDIR/device.txt and OUTDIR/tma-tensor.tsv (see the header of tma_tensor.cu for what
# each row is; configs/h100-sxm.toml's [async] tma_tensor_latency and tma_bytes_per_cycle are
# read from it).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="${1:-${OUT:-./micro-out}}"
mkdir -p "$OUT_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT_DIR/device.txt" 2>&1 || true
date -u +%Y-%m-%dT%H:%MZ >> "$OUT_DIR/device.txt"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
"$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tma_tensor scripts/microbench/tma_tensor.cu -lcuda
/tmp/tma_tensor > "$OUT_DIR/tma-tensor.tsv" 2> "$OUT_DIR/tma-tensor.err"
cat "$OUT_DIR/tma-tensor.tsv"
