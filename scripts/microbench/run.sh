#!/usr/bin/env bash
# On a GPU machine: builds and runs the microbenchmarks, dumps the SASS of every lesson kernel.
#   scripts/microbench/run.sh OUTDIR
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="${1:-${OUT:-./micro-out}}"
mkdir -p "$OUT_DIR/sass"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT_DIR/device.txt" 2>&1
date -u +%Y-%m-%dT%H:%MZ >> "$OUT_DIR/device.txt"
for f in lessons/*/*.cu scripts/microbench/micro.cu; do
  b=$(basename "$f" .cu)
  /usr/local/cuda/bin/nvcc -cubin -O3 -arch=sm_90 -lineinfo -o "/tmp/$b.cubin" "$f" 2>>"$OUT_DIR/sass/errors.txt" &&
    /usr/local/cuda/bin/cuobjdump -sass "/tmp/$b.cubin" > "$OUT_DIR/sass/$b.sass" 2>>"$OUT_DIR/sass/errors.txt"
done
/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -o /tmp/micro scripts/microbench/micro.cu && /tmp/micro > "$OUT_DIR/micro.tsv" 2> "$OUT_DIR/micro.err"
