#!/bin/bash
# acc9 request 2 (issue 25): the L2 partition link (ltcfabric) under other copies. ncu's link metrics
# for tma_mix's copy and its parts again (on an H200: its link rate, assumed 1.2x the H100's), and
# for the corpus's LSU copy v.copy_float4 (16 MB and 32 MB); on an H200 also tma_mix's event times.
set -x
D=scripts/microbench/tma_mix
mkdir -p "$D" && cp "$REQ"/tma_mix.cu "$REQ"/tma_mix.toml "$D/"
W=$REQ/warplab
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > "$RES/smi.txt" 2>&1
date -u +%Y-%m-%dT%H:%MZ >> "$RES/smi.txt"
M=gpu__time_duration.sum,lts__cycles_elapsed.avg,lts__cycles_elapsed.sum,lts__cycles_elapsed.avg.per_second,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed
timeout 12 $NCU --csv --log-file "$RES/ncu-tma.csv" --clock-control none --cache-control all -k 'regex:^(tma_copy_f32|load_only|store_only)$' --metrics "$M" \
  $W run $D/tma_mix.toml --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters --no-line-counts > /dev/null 2>&1
echo "ncu tma rc=$?"
for n in 4194304 8388608; do
  timeout 9 $NCU --csv --log-file "$RES/ncu-float4-N$n.csv" --clock-control none --cache-control all -k copy_float4 --metrics "$M" \
    $W run validation/experiments/copy_float4.toml --set N=$n --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters --no-line-counts > /dev/null 2>&1
  echo "ncu float4 N=$n rc=$?"
done
if grep -q H200 "$RES/smi.txt"; then
  timeout 12 $W run $D/tma_mix.toml --backend gpu --l2 cold --no-counters --no-line-counts --json "$RES/ev-h200.json" > "$RES/ev-h200.txt" 2>&1; echo "ev h200 rc=$?"
fi
for f in "$RES"/ncu-*.csv; do grep -E "gpu__time|ltcfabric|lts__throughput" "$f" | awk -F'","' '{print $5, $(NF-2), $NF}' | head -20; done
