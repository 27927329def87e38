#!/bin/bash
# TIME 115
# mma5-2: (GPU, ~10 s) sm_clock2.cu: which tensor-core work lowers the SM clock (mma.sync phases,
# a dense mma.sync stream on all SMs, one warp's chain, lesson 17's wgmma matmul). (CPU) mma5's
# warplab (core.mma_clock_mhz = 1711, sim/timing/sm_clock.h) on the tensor points whose kernels
# issue mma.sync or wgmma, h100-sxm and h200, against the committed GPU data.
set -u
C=$PWD/.gl-carry
export LD_LIBRARY_PATH=$C WARPLAB_TRITON_FROM_CACHE=1 WARPLAB_CACHE_DIR=$C/triton-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > $OUT/device.txt 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ >> $OUT/device.txt
cd $REQ
/usr/local/cuda/bin/nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Xptxas -v -o sm_clock2 sm_clock2.cu > $OUT/ptxas-sm-clock2.txt 2>&1
timeout 30 ./sm_clock2 > $OUT/sm-clock2.tsv 2>&1; cat $OUT/sm-clock2.tsv
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $OUT/device.txt 2>&1
cd - > /dev/null
RE='^(l17\.(mma|simt|wgmma)|t\.mma|t\.ldmatrix|triton\.dot_sm80|l16\.dot|l12\.matmul_triton|l20\.|triton\.matmul)'
for cfg in h100-sxm h200; do
  t0=$(date +%s)
  WARPLAB_CONFIG_DIR=$REQ/configs timeout 48 $REQ/warplab validate --only "$RE" -j16 --threads 1 --config $cfg > $OUT/val-$cfg.txt 2>&1
  echo "$cfg rc=$? $(( $(date +%s) - t0 ))s"; grep -E "^VALIDATE|^COMPARISONS|^worst" $OUT/val-$cfg.txt
done
