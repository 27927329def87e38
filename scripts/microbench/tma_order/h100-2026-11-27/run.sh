#!/bin/bash
# acc8a request 1 (issue 25): scripts/microbench/tma_order (one-SM TMA load/store order, %clock64
# stamps) on the GPU three times, its SASS, and the model's stamps beside them.
set -x
D="$REQ/tma_order"
mkdir -p "$D" && cp "$REQ"/tma_order.{cu,toml,py} "$D/"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$RES/device-clocks.txt" 2>&1
nvcc -O3 -arch=sm_90a -cubin -o "$RES/t.cubin" "$D/tma_order.cu" && cuobjdump -sass "$RES/t.cubin" > "$RES/tma_order.sass"
rm -f "$RES/t.cubin"
for k in 1 2 3; do
  timeout 25 "$REQ/warplab" run "$D/tma_order.toml" --backend gpu --l2 cold --gpu-repeats 3 --gpu-warmup 1 --no-counters --no-line-counts --json "$RES/gpu-$k.json" --dump "$RES/gpu-$k" > "$RES/run-$k.txt" 2>&1
  echo rc=$?
  rm -f "$RES/gpu-$k/In.npy" "$RES/gpu-$k/Out.npy"
done
timeout 20 "$REQ/warplab" run "$D/tma_order.toml" --backend sim --threads 4 --no-line-counts --dump "$RES/sim" > "$RES/run-sim.txt" 2>&1
rm -f "$RES/sim/In.npy" "$RES/sim/Out.npy"
python3 "$D/tma_order.py" gpu1="$RES/gpu-1/Stamps.npy" gpu2="$RES/gpu-2/Stamps.npy" gpu3="$RES/gpu-3/Stamps.npy" sim="$RES/sim/Stamps.npy" | tee "$RES/table.tsv"
grep -E "UTMA|DEPBAR|SYNCS|UBLKCP" "$RES/tma_order.sass" | sed 's@/\*[0-9a-f]*\*/@@' | awk '{$NF=""; print}' | sort | uniq -c | sort -rn | head -20
