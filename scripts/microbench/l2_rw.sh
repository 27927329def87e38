#!/usr/bin/env bash
# TIME 120 (queue request acc6a-1)
# acc6a: L2 read/write sharing and DRAM write-back (issue 25): l2_rw.cu's copy / loads alone /
# stores alone, cold (4-64 MiB a buffer) and warm (8 MiB regions, whole and partial sectors),
# timed with CUDA events, then each kernel once under Nsight Compute (cold: --cache-control all;
# warm: --cache-control none after l2rw_touch) with the L2's lookups and sectors by read and
# write and the DRAM bytes. Files expected beside it in $REQ: l2_rw.cu, l2_rw/kernels.cu,
# cuda_check.h, event_timer.h.
set -x
cd "$REQ"
OUT="${RES:-${OUT:-.}}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv,noheader > "$OUT/device-smi.txt"
date -u +%Y-%m-%dT%H:%MZ >> "$OUT/device-smi.txt"
ncu --version > "$OUT/ncu-version.txt" 2>&1
/usr/local/cuda/bin/nvcc -arch=sm_90a -O3 -I. -o l2_rw.bin l2_rw.cu || exit 1
/usr/local/cuda/bin/cuobjdump -sass l2_rw.bin | grep -E "Function|LDG|STG|BRA|ISETP" > "$OUT/l2_rw.sass.txt" 2>&1
timeout 25 ./l2_rw.bin > "$OUT/times.tsv" 2>&1
cat "$OUT/times.tsv"
# Metrics: keep the ones this ncu knows (an unknown name would fail the whole run).
WANT="gpu__time_duration.sum sm__cycles_elapsed.max lts__cycles_elapsed.avg lts__cycles_elapsed.avg.per_second dram__bytes_read.sum dram__bytes_write.sum dram__throughput.avg.pct_of_peak_sustained_elapsed lts__t_tag_requests.sum lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_requests_srcunit_tex_op_read.sum lts__t_requests_srcunit_tex_op_write.sum lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum lts__t_sectors.avg.pct_of_peak_sustained_elapsed lts__throughput.avg.pct_of_peak_sustained_elapsed lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed lts__d_sectors.avg.pct_of_peak_sustained_elapsed"
timeout 15 ncu --query-metrics > "$OUT/query-metrics.txt" 2>&1
M=""
for m in $WANT; do
  b=${m%%.*}
  if ! grep -q "^$b " "$OUT/query-metrics.txt"; then echo "ncu: no $b" >> "$OUT/metrics-dropped.txt"; continue; fi
  M="$M${M:+,}$m"
done
[ -z "$M" ] && M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_tag_requests.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
echo "$M" > "$OUT/metrics-used.txt"
timeout 45 ncu --clock-control none --cache-control all -k 'regex:^l2rw_(copy|read|write)' --metrics "$M" --csv ./l2_rw.bin ncu-cold > "$OUT/ncu-cold.csv" 2>&1
timeout 30 ncu --clock-control none --cache-control none -k 'regex:^l2rw_(copy|read|write)' --metrics "$M" --csv ./l2_rw.bin ncu-warm > "$OUT/ncu-warm.csv" 2>&1
tail -3 "$OUT/ncu-cold.csv" "$OUT/ncu-warm.csv"
ls -la "$OUT"
