#!/bin/bash
# TIME 120 (queue request acc7a-1, 2026-11-27); runs with cwd = the repository, $REQ/warplab = the binary.
# acc7a-1 (issue 25, t.tma.copy_edges.large): is the TMA copy bound where the LSU copy is?
# (1) CUDA-event times of tma_copy_f32 (W=4000) at H=1000/2000/4000 (16/32/64 MB a buffer), L2 cold,
#     and H=1000 with --l2 warm (both buffers L2-resident); (2) ncu of the corpus point (H=2000, cold,
#     --cache-control all) and of H=1000 warm (--cache-control none), the metrics l2_rw.sh read for the
#     LSU copies (scripts/microbench/h100-l2-rw-2026-11-27.tsv), so the two compare directly.
W=$REQ/warplab
export WARPLAB_CONFIG_DIR=$PWD/configs
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
E=validation/experiments/tma_wgmma.toml
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > $RES/smi.txt 2>&1
date -u +%Y-%m-%dT%H:%MZ >> $RES/smi.txt
$NCU --version > $RES/ncu-version.txt 2>&1
for h in 1000 2000 4000; do
  timeout 20 $W run $E --set W=4000 --set H=$h --backend gpu --l2 cold --no-counters --json $RES/ev-cold-H$h.json > $RES/ev-cold-H$h.txt 2>&1
  echo "cold H=$h rc=$?"
done
timeout 20 $W run $E --set W=4000 --set H=1000 --backend gpu --l2 warm --no-counters --json $RES/ev-warm-H1000.json > $RES/ev-warm-H1000.txt 2>&1
echo "warm H=1000 rc=$?"
WANT="gpu__time_duration.sum sm__cycles_elapsed.max lts__cycles_elapsed.avg lts__cycles_elapsed.avg.per_second dram__bytes_read.sum dram__bytes_write.sum dram__throughput.avg.pct_of_peak_sustained_elapsed lts__t_tag_requests.sum lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_requests_op_read.sum lts__t_requests_op_write.sum lts__t_sectors_op_read_lookup_miss.sum lts__t_sectors.avg.pct_of_peak_sustained_elapsed lts__throughput.avg.pct_of_peak_sustained_elapsed lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed lts__d_sectors.avg.pct_of_peak_sustained_elapsed sm__warps_active.avg.pct_of_peak_sustained_active"
timeout 15 $NCU --query-metrics > $RES/query-metrics.txt 2>&1
M=""
for m in $WANT; do
  b=${m%%.*}
  if ! grep -q "^$b " $RES/query-metrics.txt; then echo "ncu: no $b" >> $RES/metrics-dropped.txt; continue; fi
  M="$M${M:+,}$m"
done
[ -z "$M" ] && M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_tag_requests.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
echo "$M" > $RES/metrics-used.txt
rm -f $RES/query-metrics.txt
timeout 30 $NCU --clock-control none --cache-control all -k regex:tma_copy_f32 --metrics "$M" --csv $W run $E --set W=4000 --set H=2000 --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters > $RES/ncu-cold-H2000.csv 2>&1
echo "ncu cold rc=$?"
timeout 30 $NCU --clock-control none --cache-control none -k regex:tma_copy_f32 -s 1 -c 1 --metrics "$M" --csv $W run $E --set W=4000 --set H=1000 --backend gpu --l2 warm --gpu-repeats 1 --gpu-warmup 1 --no-counters > $RES/ncu-warm-H1000.csv 2>&1
echo "ncu warm rc=$?"
tail -n 4 $RES/ncu-cold-H2000.csv $RES/ncu-warm-H1000.csv
