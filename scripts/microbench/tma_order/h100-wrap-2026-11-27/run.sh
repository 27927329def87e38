#!/bin/bash
# acc8a request 2 (issue 25): t.tma.copy_edges.large's kernel beside copy_wrap8 (the same copy
# storing into 4 MB that stays in the L2: no DRAM write-back), GPU and model (this branch's
# binary and configs: [async] tma_store_bytes_per_cycle), L2 cold, counters; twice.
set -x
D=scripts/microbench/tma_order
mkdir -p "$D" && cp "$REQ"/tma_wrap.{cu,toml} "$D/"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$RES/device-clocks.txt" 2>&1
for k in 1 2; do
  timeout 40 "$REQ/warplab" run "$D/tma_wrap.toml" --backend both --l2 cold --threads 8 --config "$REQ/configs/h100-sxm.toml" --no-line-counts --json "$RES/both-$k.json" > "$RES/both-$k.txt" 2>&1
  echo rc=$?
done
grep -E "launch|timing|gpu|DRAM|check" "$RES/both-1.txt" | head -40
