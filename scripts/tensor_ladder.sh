#!/usr/bin/env bash
# Lesson 17's TFLOP/s ladder and lesson 20's grouped-GEMM speed-up, simulator beside the GPU.
#   scripts/tensor_ladder.sh [BACKEND] [CONFIG]     BACKEND: both (default, needs a GPU) or sim
#   SIZES="256 512" scripts/tensor_ladder.sh ...    other sizes (128, 256, 512, 1024)
# For M = N = K in 256, 512, 1024 (the corpus's l17.* points): SIMT FP32, mma.sync + ldmatrix (lessons/17-tensor-cores/
# matmul.toml) and wgmma from shared memory (validation/experiments/tc_matmul_wgmma.toml), each
# as 2 M N K / time; then lessons/20-grouped-gemm/moe.toml's moe_expert (all its launches, one per
# expert) / moe_grouped time, as the lesson's claim and the l20.expert_over_grouped comparison.
# Times are `warplab run`'s per-launch time_us on each backend (the GPU: median of its timed
# launches, L2 cold; the simulator: its cycles at the preset's clock plus the launch overhead),
# the same figures `warplab validate` compares.
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=${1:-both}
CONFIG=${2:-h100-sxm}
WARPLAB=${WARPLAB:-build/warplab}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SIZES=${SIZES:-256 512 1024}
for n in $SIZES; do
  "$WARPLAB" run lessons/17-tensor-cores/matmul.toml --backend "$BACKEND" --config "$CONFIG" -q \
    --set M=$n --set N=$n --set K=$n --json "$TMP/mma_$n.json"
  "$WARPLAB" run validation/experiments/tc_matmul_wgmma.toml --backend "$BACKEND" --config "$CONFIG" -q \
    --set M=$n --set N=$n --set K=$n --json "$TMP/wgmma_$n.json"
done
"$WARPLAB" run lessons/20-grouped-gemm/moe.toml --backend "$BACKEND" --config "$CONFIG" -q --json "$TMP/moe.json"
python3 - "$TMP" "$SIZES" <<'PY'
import json, sys, os
tmp = sys.argv[1]
def times(path):
    out = {}
    for l in json.load(open(path))["launches"]:
        for side in ("sim", "gpu"):
            if isinstance(l.get(side), dict) and l[side].get("time_us"):
                # a kernel launched several times (moe_expert: once per expert) sums its launches
                key = (l["kernel"], side)
                out[key] = out.get(key, 0) + l[side]["time_us"]
    return out
print("# lesson 17: TFLOP/s (2 M N K / time_us)")
print(f"{'kernel':24}{'n':>6}{'sim':>10}{'gpu':>10}{'sim/gpu':>9}")
for n in map(int, sys.argv[2].split()):
    t = {**times(os.path.join(tmp, f"mma_{n}.json")), **times(os.path.join(tmp, f"wgmma_{n}.json"))}
    for k in ("matmul_simt_bf16", "matmul_mma_bf16", "matmul_wgmma_bf16"):
        tf = {s: 2 * n**3 / t[(k, s)] / 1e6 for s in ("sim", "gpu") if (k, s) in t}
        cells = [f"{tf[s]:10.2f}" if s in tf else f"{'-':>10}" for s in ("sim", "gpu")]
        ratio = f"{tf['sim'] / tf['gpu']:9.2f}" if len(tf) == 2 else f"{'-':>9}"
        print(f"{k:24}{n:6}{cells[0]}{cells[1]}{ratio}")
t = times(os.path.join(tmp, "moe.json"))
print("# lesson 20: moe_expert time / moe_grouped time (the grouped GEMM's speed-up)")
for s in ("sim", "gpu"):
    if ("moe_expert", s) in t and ("moe_grouped", s) in t:
        print(f"{s}: {t[('moe_expert', s)]:.2f} us / {t[('moe_grouped', s)]:.2f} us = "
              f"{t[('moe_expert', s)] / t[('moe_grouped', s)]:.2f}x")
PY
