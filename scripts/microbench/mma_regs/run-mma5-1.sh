#!/bin/bash
# TIME 100
# mma5-1: lesson 17's matmul_mma_bf16 with ptxas's register target moved (-maxrregcount 64/72/80/96
# and the default, 72): does the k-step's third global round trip (LDG R8 -> STS R8 -> LDG R8 in the
# first peeled copy iteration) follow the register budget? SASS, event times and clock64 stamps per
# k-step for each, then ncu stall reasons for the default and 80. l2_lines.cu: L2-hit latency per
# line (near/far?) and of one warp's LDG.128 over 128..2048 bytes. sm_clock.cu: the SM clock inside
# the kernels (clock64 / globaltimer per block): mma, SIMT matmul, FFMA loop.
cd $REQ
NV=/usr/local/cuda/bin/nvcc
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/device.txt 2>&1
for r in default 64 72 80 96; do
  f=""; [ $r != default ] && f="-maxrregcount=$r"
  $NV -O3 -gencode=arch=compute_90a,code=sm_90a -I. $f -Xptxas -v -o mma_$r mma_steps.cu > $OUT/ptxas-$r.txt 2>&1
  /usr/local/cuda/bin/cuobjdump -sass -fun matmul_mma_bf16 mma_$r > $OUT/sass-$r.txt 2>&1
  /usr/local/cuda/bin/cuobjdump -sass -fun mma_stamped mma_$r > $OUT/sass-stamped-$r.txt 2>&1
done
for r in default 64 72 80 96; do
  echo "== regs $r"; timeout 20 ./mma_$r > $OUT/steps-$r.tsv 2>&1; grep event_us $OUT/steps-$r.tsv
done
$NV -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Xptxas -v -o sm_clock sm_clock.cu > $OUT/ptxas-sm-clock.txt 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.applications.graphics,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv >> $OUT/device.txt 2>&1
timeout 20 ./sm_clock > $OUT/sm-clock.tsv 2>&1; cat $OUT/sm-clock.tsv
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.applications.graphics,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv >> $OUT/device.txt 2>&1
$NV -O3 -gencode=arch=compute_90a,code=sm_90a -o l2_lines l2_lines.cu && timeout 20 ./l2_lines > $OUT/l2-lines.tsv 2>&1
/usr/local/cuda/bin/cuobjdump -sass l2_lines > $OUT/sass-l2-lines.txt 2>&1
cat $OUT/l2-lines.tsv | head -40
for r in default 80; do
  timeout 40 /usr/local/cuda/bin/ncu -k matmul_mma_bf16 -s 1 -c 1 --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis ./mma_$r > $OUT/ncu-$r.txt 2>&1
done
ls -la $OUT
