#!/usr/bin/env bash
# On an H100 machine with nvcc: the thread-block cluster microbenchmark (cluster.cu): remote DSMEM
# load latency, mapa, barrier.cluster by cluster size, remote store bandwidth; with its SASS.
#   scripts/microbench/cluster.sh OUTDIR      (default $OUT, else ./micro-out)
# Writes OUTDIR/h100-cluster-DATE.tsv (rows: test, param, value, unit), OUTDIR/cluster.sass and
# OUTDIR/device.txt. The figures go into configs/h100-sxm.toml's [cluster] section.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="${1:-${OUT:-./micro-out}}"
mkdir -p "$OUT_DIR"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT_DIR/device.txt" 2>&1 || true
"$NVCC" -O3 -arch=sm_90 -o /tmp/warplab-cluster scripts/microbench/cluster.cu
"$NVCC" -cubin -O3 -arch=sm_90 -o /tmp/warplab-cluster.cubin scripts/microbench/cluster.cu
/usr/local/cuda/bin/cuobjdump -sass /tmp/warplab-cluster.cubin > "$OUT_DIR/cluster.sass"
/tmp/warplab-cluster | tee "$OUT_DIR/h100-cluster-$(date -u +%Y-%m-%d).tsv"
