#!/usr/bin/env bash
# Measures per-line stall reasons on this machine's GPU (CUPTI PC sampling, gpu/pc_sampling.h) for
# lesson 2's strided copy (stride 1 to 64: the sweep) and a few other lessons' kernels, and writes one
# data file per run (schema warplab.line-stalls/1, lab/line_stalls.h) for the app and for
# `warplab validate`.
#
#   WARPLAB=/path/to/warplab scripts/stalls-gpu.sh [--dry-run] [OUT_DIR]
#
# $WARPLAB is a warplab binary built elsewhere and carried here (LD_LIBRARY_PATH set by the caller).
# Every run is
#   $WARPLAB run EXPERIMENT --set ... --backend gpu --stalls --stalls-json NAME.json
# i.e. the usual GPU run (few timed launches: only the sampled launch matters here), then one more
# launch of the same PTX built by ptxas -lineinfo, under PC sampling, with L2 flushed before it
# (--l2 cold, as every GPU figure in validation/data). ptxas and nvdisasm must be on $PATH or in
# /usr/local/cuda/bin (or $CUDA_HOME/bin).
#
# Writes OUT_DIR/stalls/<name>.json (the GPU's device name, driver (nvidia-smi's version and the
# CUDA driver API's), date, sampling period, and per kernel, per CUDA and PTX line, samples per
# reason), OUT_DIR/stalls/logs/<name>.log, and OUT_DIR/stalls.tar.gz holding both (what comes back
# from a device machine). OUT_DIR defaults to $OUT when set, else ./validation/data. Commit
# stalls/*.json as validation/data/stalls/*.json. Takes about a minute on an H100.
# Exit status: 0 when every run wrote its file, 1 when some did not, 2 for bad usage.
set -uo pipefail
cd "$(dirname "$0")/.."

DRY=0
OUT_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    -*) echo "stalls-gpu.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT_DIR="$1" ;;
  esac
  shift
done
OUT_DIR="${OUT_DIR:-${OUT:-./validation/data}}"
if [ "$DRY" = 0 ] && [ -z "${WARPLAB:-}" ]; then
  echo "stalls-gpu.sh: set WARPLAB to a warplab binary (or use --dry-run)" >&2
  exit 2
fi
WARPLAB="${WARPLAB:-warplab}"
DATA="$OUT_DIR/stalls"
LOGS="$DATA/logs"
[ "$DRY" = 1 ] || mkdir -p "$LOGS"
TIMEOUT="${WARPLAB_TIMEOUT:-120}"

# name | experiment | sampling period (log2 cycles) | --set values
# The lessons' own sizes, which the simulator runs in seconds, so that `warplab validate --stalls`
# can put the model beside every point. Lesson 2's sweep holds stride 1 and 32 (and the rest).
RUNS=(
  "l02-stride-sweep|lessons/02-coalescing/stride-sweep.toml|7|"
  # The app's scripted visit sweeps at N = 65536: its code view shows these beside the model's.
  "l02-stride-sweep-n65536|lessons/02-coalescing/stride-sweep.toml|7|N=65536"
  "l04-divergence|lessons/04-divergence/divergence.toml|6|"
  "l05-matmul|lessons/05-shared-memory-tiling/matmul.toml|6|"
  "l07-reduce|lessons/07-reductions/reduce.toml|5|"
  "l09-tile|lessons/09-bank-conflicts/tile.toml|6|"
)

status=0
for spec in "${RUNS[@]}"; do
  IFS='|' read -r name exp period sets <<<"$spec"
  args=("$exp" --backend gpu --l2 cold --stalls --stalls-period "$period"
        --gpu-warmup 1 --gpu-repeats 3 --stalls-json "$DATA/$name.json")
  for s in $sets; do args+=(--set "$s"); done
  if [ "$DRY" = 1 ]; then
    echo "$WARPLAB run ${args[*]}"
    continue
  fi
  echo "== $name: $WARPLAB run ${args[*]}"
  rm -f "$DATA/$name.json"
  timeout "$TIMEOUT" "$WARPLAB" run "${args[@]}" >"$LOGS/$name.log" 2>&1
  rc=$?
  if [ ! -s "$DATA/$name.json" ]; then
    echo "   FAILED (exit $rc, no data file): see $LOGS/$name.log"
    tail -5 "$LOGS/$name.log" | sed 's/^/   | /'
    status=1
    continue
  fi
  grep -E "^note:|agreement|samples" "$LOGS/$name.log" | head -8 | sed 's/^/   /'
done
[ "$DRY" = 1 ] && exit 0

# The driver as nvidia-smi names it, beside the CUDA driver API version warplab recorded.
SMI="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
echo "nvidia-smi: $SMI" | tee "$LOGS/nvidia-smi.txt"
SMI="$SMI" DATA="$DATA" python3 - <<'PYEOF' || status=1
import glob, json, os, sys
smi = os.environ.get("SMI", "")
driver = smi.split(",")[-1].strip() if smi else ""
bad = 0
for path in sorted(glob.glob(os.path.join(os.environ["DATA"], "*.json"))):
    with open(path) as f:
        d = json.load(f)
    gpu = [r for r in d.get("runs", []) if r.get("source") == "gpu" and r.get("kernels")]
    name = os.path.basename(path)
    if not gpu:
        # The run worked but nothing was sampled: the log's note says why (no ptxas/nvdisasm,
        # profiling not permitted, ...). No data file then.
        log = os.path.join(os.path.dirname(path), "logs", name[:-5] + ".log")
        notes = [l.strip() for l in open(log, errors="replace") if l.startswith("note:")] if os.path.exists(log) else []
        print(f"{name}: FAILED, no GPU samples: " + ("; ".join(notes) or "see " + log))
        os.remove(path)
        bad = 1
        continue
    for run in gpu:
        if driver and driver not in run.get("driver", ""):
            run["driver"] = (driver + " (" + run["driver"] + ")") if run.get("driver") else driver
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    for r in gpu:
        for k in r["kernels"]:
            total = sum(k.get("total", {}).values())
            print(f"{name}: {r['device']}, {r['driver']}, {r['date']}: {k['kernel']} launch "
                  f"{k['launch']} {k.get('point', '')}: {total} samples, "
                  f"{len(k.get('by_source_line', []))} source lines, {k.get('dropped', 0)} dropped")
sys.exit(bad)
PYEOF
tar -czf "$OUT_DIR/stalls.tar.gz" -C "$OUT_DIR" stalls
echo "wrote $DATA/*.json and $OUT_DIR/stalls.tar.gz"
exit $status
