#!/bin/bash
# acc7b-1 (issue 25, l17.mma.512): (1) join.toml: the latency of a load that finds its L2 sector
# still being fetched from DRAM (by delay), and G = 1/8/64/132 blocks reading the same 64 KiB at
# once; (2) ncu: how lts__t_sector*_lookup_hit/miss count such loads (against dram__sectors_read);
# (3) l17.mma.512: ncu --set full with the same L2 metrics, and warplab --stalls (GPU vs model).
W=$REQ/warplab
export WARPLAB_CONFIG_DIR=$PWD/configs
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $RES/smi.txt 2>&1
for g in 1 8 64 132; do
  timeout 20 $W run $REQ/join.toml --set G=$g --backend gpu --l2 cold --dump $RES/gpu-G$g > $RES/gpu-G$g.txt 2>&1
  echo "G=$g rc=$?"; grep -E 'gpu|us' $RES/gpu-G$g.txt | head -8
done
M=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__sectors_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_hit_rate.pct,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,gpu__time_duration.sum,sm__cycles_elapsed.max
for g in 1 64; do
  timeout 25 $NCU --metrics $M -k regex:'share_lines|join_delay' $W run $REQ/join.toml --set G=$g --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters > $RES/ncu-join-G$g.txt 2>&1
  echo "ncu G=$g rc=$?"
done
timeout 40 $NCU --set full --metrics $M -k regex:matmul_mma_bf16 $W run lessons/17-tensor-cores/matmul.toml --set M=512 --set N=512 --set K=512 --backend gpu --gpu-repeats 1 --gpu-warmup 0 --no-counters > $RES/ncu-l17-512.txt 2>&1
echo "ncu l17 rc=$?"
grep -E 'lts__|dram__sectors|Duration|Elapsed Cycles' $RES/ncu-l17-512.txt | head -20
timeout 40 $W run lessons/17-tensor-cores/matmul.toml --set M=512 --set N=512 --set K=512 --backend both --stalls --threads 16 > $RES/stalls-l17-512.txt 2>&1
echo "stalls rc=$?"; tail -5 $RES/stalls-l17-512.txt
