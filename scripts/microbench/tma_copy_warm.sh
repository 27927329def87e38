#!/bin/bash
# TIME 30 (queue request acc7a-2, 2026-11-27); runs with cwd = the repository, $REQ/warplab = the binary.
# acc7a-2 (issue 25, t.tma.copy_edges.large): an L2-resident TMA copy. acc7a-1's --l2 warm at H=1000
# missed (the restore between launches copies all 6 buffers device to device: 64 MB through the L2);
# at H=500 / 250 (8 / 4 MB a buffer) the restored In and Out stay in the L2. Events cold and warm,
# then ncu of one warm launch (lookup misses show whether it was L2-resident).
W=$REQ/warplab
export WARPLAB_CONFIG_DIR=$PWD/configs
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
E=validation/experiments/tma_wgmma.toml
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > $RES/smi.txt 2>&1
date -u +%Y-%m-%dT%H:%MZ >> $RES/smi.txt
for h in 500 250; do for l in warm cold; do
  timeout 12 $W run $E --set W=4000 --set H=$h --backend gpu --l2 $l --no-counters --json $RES/ev-$l-H$h.json > $RES/ev-$l-H$h.txt 2>&1
  echo "$l H=$h rc=$?"; grep -m1 'GPU: median' $RES/ev-$l-H$h.txt
done; done
M=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_miss.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_read.sum,lts__t_requests_op_write.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
timeout 15 $NCU --clock-control none --cache-control none -k regex:tma_copy_f32 -s 2 -c 1 --metrics "$M" --csv $W run $E --set W=4000 --set H=500 --backend gpu --l2 warm --gpu-repeats 1 --gpu-warmup 2 --no-counters > $RES/ncu-warm-H500.csv 2>&1
echo "ncu warm rc=$?"; tail -n 16 $RES/ncu-warm-H500.csv
