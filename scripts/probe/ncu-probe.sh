#!/usr/bin/env bash
# On a GPU machine: Nsight Compute (--set full) on a list of corpus experiments, run through
# WarpLab's own GPU backend (same PTX, same nvJitLink path), plus the SASS of the corpus kernels.
#   scripts/probe/ncu-probe.sh OUTDIR 'EXPERIMENT [--set K=V ...] :: KERNEL_REGEX' ...
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR="$1"; shift
WARPLAB="${WARPLAB:-build/warplab}"
NCU="${NCU:-/usr/local/cuda/bin/ncu}"
mkdir -p "$OUT_DIR/sass" "$OUT_DIR/ncu"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT_DIR/device.txt" 2>&1
date -u +%Y-%m-%dT%H:%MZ >> "$OUT_DIR/device.txt"
for f in validation/kernels/*.cu lessons/*/*.cu; do
  b=$(basename "$f" .cu)
  /usr/local/cuda/bin/nvcc -cubin -O3 -arch=sm_90 -lineinfo -o "/tmp/$b.cubin" "$f" 2>>"$OUT_DIR/sass/errors.txt" &&
    /usr/local/cuda/bin/cuobjdump -sass "/tmp/$b.cubin" > "$OUT_DIR/sass/$b.sass" 2>>"$OUT_DIR/sass/errors.txt"
done
i=0
for spec in "$@"; do
  i=$((i + 1))
  args="${spec%% :: *}"; kre="${spec##* :: }"
  rep="$OUT_DIR/ncu/p$i"
  echo "p$i: $args :: $kre" >> "$OUT_DIR/ncu/index.txt"
  # shellcheck disable=SC2086
  timeout 240 "$NCU" --set full --import-source yes --clock-control none -k "regex:$kre" -f -o "$rep" \
    "$WARPLAB" run $args --backend gpu --no-counters --gpu-repeats 1 --gpu-warmup 0 -q > "$rep.log" 2>&1
  "$NCU" --import "$rep.ncu-rep" --page raw --csv > "$rep.raw.csv" 2>>"$rep.log"
  "$NCU" --import "$rep.ncu-rep" --page details > "$rep.details.txt" 2>>"$rep.log"
  "$NCU" --import "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.sass.csv" 2>>"$rep.log"
  rm -f "$rep.ncu-rep"
done
