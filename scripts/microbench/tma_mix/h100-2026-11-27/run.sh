#!/bin/bash
# acc9 request 1 (issue 25, t.tma.copy_edges.large): tma_mix.toml (the corpus copy beside the same
# traffic with one thing changed: load and store issued together, 16/8 blocks a SM, 128x8 boxes,
# 1D bulk of 4 KiB; each part alone), CUDA events at W=4000 and W=4096 (row pitch 16 KiB);
# then ncu --set full (raw page) of the corpus kernel and 4 variants, L2 flushed (cache-control all),
# and the L2 fabric / breakdown metrics this ncu knows.
set -x
D=scripts/microbench/tma_mix
mkdir -p "$D" && cp "$REQ"/tma_mix.cu "$REQ"/tma_mix.toml "$D/"
W=$REQ/warplab
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > "$RES/smi.txt" 2>&1
date -u +%Y-%m-%dT%H:%MZ >> "$RES/smi.txt"
$NCU --version > "$RES/ncu-version.txt" 2>&1
timeout 18 $W run $D/tma_mix.toml --backend gpu --l2 cold --no-counters --no-line-counts --json "$RES/ev-1.json" > "$RES/ev-1.txt" 2>&1; echo "ev-1 rc=$?"
timeout 12 $W run $D/tma_mix.toml --set W=4096 --backend gpu --l2 cold --no-counters --no-line-counts --json "$RES/ev-w4096.json" > "$RES/ev-w4096.txt" 2>&1; echo "ev-w4096 rc=$?"
K='regex:^(tma_copy_f32|load_only|store_only|pair_indep|copy_bulk)$'
timeout 45 $NCU --set full --page raw --csv --log-file "$RES/ncu-full.csv" --clock-control none --cache-control all -k "$K" \
  $W run $D/tma_mix.toml --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters --no-line-counts > "$RES/ncu-full-app.txt" 2>&1
echo "ncu full rc=$?"
timeout 8 $NCU --query-metrics > "$RES/q.txt" 2>&1
grep -E "^(lts__|dram__|fbpa__|ltc__)" "$RES/q.txt" > "$RES/query-metrics-lts.txt"; rm -f "$RES/q.txt"
M=gpu__time_duration.sum,lts__cycles_elapsed.avg.per_second
for b in $(grep -E "ltcfabric|lts__t_sectors_srcnode|lts__t_sectors_srcunit|lts__t_requests_srcunit|lts__d_sectors_fill" "$RES/query-metrics-lts.txt" | awk '{print $1}' | grep -v average | head -40); do
  case $b in *cycles_active*) M="$M,$b.avg.pct_of_peak_sustained_elapsed";; *) M="$M,$b.sum";; esac
done
echo "$M" > "$RES/metrics-fabric.txt"
timeout 12 $NCU --csv --log-file "$RES/ncu-fabric.csv" --clock-control none --cache-control all -k "$K" \
  --metrics "$M,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed" \
  $W run $D/tma_mix.toml --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters --no-line-counts > /dev/null 2>&1
rc=$?; echo "ncu fabric rc=$rc"
if [ $rc -ne 0 ]; then
  timeout 5 $NCU --csv --log-file "$RES/ncu-fabric2.csv" --clock-control none --cache-control all -k "$K" -c 2 --metrics "$M" \
    $W run $D/tma_mix.toml --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters --no-line-counts > /dev/null 2>&1
  echo "ncu fabric2 rc=$?"
fi
xz -T4 "$RES/ncu-full.csv"
grep -E "^launch|GPU:|check" "$RES/ev-1.txt" | head -60
