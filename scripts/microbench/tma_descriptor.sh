#!/usr/bin/env bash
# On an H100 (or any sm_90 GPU) with nvcc: builds and runs the tensor-map descriptor benchmark.
#   scripts/microbench/tma_descriptor.sh OUTDIR     (default: $OUT, else ./micro-out)
# Writes OUTDIR/device.txt, OUTDIR/tma-descriptor.tsv (see tma_descriptor.cu's header) and the
# kernel's SASS; configs/h100-sxm.toml's [async] tma_descriptor_latency is read from it.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="${1:-${OUT:-./micro-out}}"
mkdir -p "$OUT_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT_DIR/device.txt" 2>&1 || true
date -u +%Y-%m-%dT%H:%MZ >> "$OUT_DIR/device.txt"
NVCC="${NVCC:-/usr/local/cuda/bin/nvcc}"
"$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tma_descriptor scripts/microbench/tma_descriptor.cu -lcuda
"$(dirname "$NVCC")/cuobjdump" -sass /tmp/tma_descriptor > "$OUT_DIR/tma_descriptor.sass"
/tmp/tma_descriptor > "$OUT_DIR/tma-descriptor.tsv"
cat "$OUT_DIR/tma-descriptor.tsv"
