#!/usr/bin/env bash
# TIME 90 (queue request app5-1)
# app5: which side of the L2 limits lesson 2's stride 32 on the H100 (loads, stores or both):
# the copy, its loads alone and its stores alone timed with CUDA events (L2 flushed), then Nsight
# Compute's L2 lookups split by read and write for each (cold caches, base clocks: ncu defaults).
set -x
cd "$REQ"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > "$OUT/device-smi.txt"
ncu --version > "$OUT/ncu-version.txt" 2>&1
/usr/local/cuda/bin/nvcc -arch=sm_90a -O3 -o stride_paths stride_paths.cu || exit 1
./stride_paths > "$OUT/times.tsv" 2>&1
cat "$OUT/times.tsv"
M=gpu__time_duration.sum,sm__cycles_elapsed.max,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__t_tag_requests.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_write.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__d_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 70 ncu -k regex:strided_ --metrics "$M" --csv ./stride_paths ncu > "$OUT/ncu-metrics.csv" 2>&1
tail -5 "$OUT/ncu-metrics.csv"
ls -la "$OUT"
