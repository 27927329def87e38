#!/usr/bin/env bash
# TIME 110
# Lesson 2 stride 1 and 32 at N = 65536, 2^20, 2^24 under Nsight Compute (cold caches: ncu's
# default --cache-control all; clocks: ncu's default --clock-control base).
set -x
cd "$REQ"  # holds stride_ncu.cu and a copy of lessons/02-coalescing/coalescing.cu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > "$OUT/device-smi.txt"
ncu --version > "$OUT/ncu-version.txt" 2>&1
/usr/local/cuda/bin/nvcc -arch=sm_90a -O3 -o stride_ncu stride_ncu.cu || exit 1
./stride_ncu > "$OUT/plain.txt" 2>&1
timeout 60 ncu -k strided_copy --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Chart --section MemoryWorkloadAnalysis_Tables \
  -o "$OUT/stride" ./stride_ncu > "$OUT/ncu-collect.txt" 2>&1
ncu --import "$OUT/stride.ncu-rep" --page details > "$OUT/ncu-details.txt" 2>&1
ncu --import "$OUT/stride.ncu-rep" --page raw --csv > "$OUT/ncu-raw.csv" 2>&1
M=l1tex__m_xbar2l1tex_read_bytes.sum.pct_of_peak_sustained_elapsed,l1tex__m_l1tex2xbar_write_bytes.sum.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,sm__cycles_elapsed.max
timeout 40 ncu -k strided_copy --metrics "$M" --csv ./stride_ncu > "$OUT/ncu-metrics.csv" 2>&1
ls -la "$OUT"
