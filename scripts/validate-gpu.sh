#!/usr/bin/env bash
# Measures the validation corpus (validation/corpus.toml) on this machine's GPU with WarpLab's own
# GPU backend, and writes one data file for `warplab validate`.
#
#   WARPLAB=/path/to/warplab scripts/validate-gpu.sh [--dry-run] [--quick] [--only REGEX]
#                                                    [--merge FILE.json] [OUT_DIR]
#
# $WARPLAB is a warplab binary built elsewhere and carried here (LD_LIBRARY_PATH set by the caller).
# Every run is
#   $WARPLAB run EXPERIMENT --set ... --backend gpu --l2 cold --counters --json RUN.json
# i.e. CUDA-event times of 20 launches after 3 warm-ups, with L2 flushed before every timed launch
# (--l2 cold, the default: the convention of Triton's do_bench, and the one issue 10 asks both sides to share),
# plus the CUPTI counters. Points that share experiment + set are one run.
#
# Writes OUT_DIR/<device-slug>.json (h100, h200, or the device name in lower case; $DEVICE_SLUG
# overrides) and the logs (OUT_DIR/validate-logs/: one .log and .json per run, validate-gpu.log).
# OUT_DIR defaults to $OUT when set, else ./validation/data. One failing run does not stop the
# others: its points are recorded with "ok": false and the reason. Exit status: 0 when every run
# worked, 1 when some failed, 2 for bad usage (no manifest, no $WARPLAB).
#
# --dry-run prints the command lines and writes nothing (WARPLAB may then be unset).
# --quick   only the points with quick = true.  --only REGEX: only the points whose id matches.
# --merge FILE.json: start from an earlier data file of the same device (e.g. the corpus measured
#           in parts, one --only per call): its points are kept unless measured again now.
# $WARPLAB_TIMEOUT: seconds per run (default 300).
set -uo pipefail
cd "$(dirname "$0")/.."

DRY=0
QUICK=0
ONLY=""
MERGE=""
OUT_DIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --quick) QUICK=1 ;;
    --only) ONLY="${2:-}"; shift ;;
    --merge) MERGE="${2:-}"; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "validate-gpu.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT_DIR="$1" ;;
  esac
  shift
done
OUT_DIR="${OUT_DIR:-${OUT:-./validation/data}}"
MANIFEST="${MANIFEST:-validation/corpus.toml}"
[ -f "$MANIFEST" ] || { echo "validate-gpu.sh: $MANIFEST not found" >&2; exit 2; }
[ -z "$MERGE" ] || [ -f "$MERGE" ] || { echo "validate-gpu.sh: --merge $MERGE not found" >&2; exit 2; }
if [ "$DRY" = 0 ] && [ -z "${WARPLAB:-}" ]; then
  echo "validate-gpu.sh: set WARPLAB to a warplab binary (or use --dry-run)" >&2
  exit 2
fi
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null || { echo "validate-gpu.sh: python3 is needed" >&2; exit 2; }

export VG_MERGE="$MERGE" VG_DRY=$DRY VG_QUICK=$QUICK VG_ONLY="$ONLY" VG_OUT="$OUT_DIR" VG_MANIFEST="$MANIFEST"
export VG_WARPLAB="${WARPLAB:-warplab}" VG_TIMEOUT="${WARPLAB_TIMEOUT:-300}"
exec "$PY" - <<'PYEOF'
import datetime, json, os, re, shlex, subprocess, sys, time

dry = os.environ["VG_DRY"] == "1"
quick = os.environ["VG_QUICK"] == "1"
only = os.environ["VG_ONLY"]
out_dir = os.environ["VG_OUT"]
manifest = os.environ["VG_MANIFEST"]
warplab = os.environ["VG_WARPLAB"]
timeout = int(os.environ["VG_TIMEOUT"])
merge = os.environ["VG_MERGE"]


def parse_manifest(path):
    """The subset of TOML the manifest uses: [[point]] (and [[comparison]]) tables of strings,
    string arrays, booleans."""
    points, cur = [], None
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.split("#", 1)[0].strip() if '"' not in raw else raw.strip()
        if line.startswith("#") or not line:
            continue
        if line == "[[point]]":
            cur = {"_line": n}
            points.append(cur)
            continue
        if line == "[[comparison]]":  # ratios of measured points: nothing to measure
            cur = {"_line": n}
            continue
        m = re.match(r'^([A-Za-z_]+)\s*=\s*(.+?)\s*(#.*)?$', line)
        if not m or cur is None:
            sys.exit(f"{path}:{n}: expected [[point]] or key = value, got: {raw.rstrip()}")
        key, val = m.group(1), m.group(2)
        if val in ("true", "false"):
            cur[key] = val == "true"
        elif val.startswith('"') and val.endswith('"'):
            cur[key] = val[1:-1]
        elif val.startswith("["):
            cur[key] = re.findall(r'"([^"]*)"', val)
        else:
            sys.exit(f"{path}:{n}: {key}: expected a string, a list of strings or true/false")
    for p in points:
        for k in ("id", "experiment", "mechanism"):
            if k not in p:
                sys.exit(f"{path}:{p['_line']}: point without '{k}'")
    return points


points = parse_manifest(manifest)
if quick:
    points = [p for p in points if p.get("quick")]
if only:
    points = [p for p in points if re.search(only, p["id"])]

# One run per distinct (experiment, set).
runs, run_of = [], {}
for p in points:
    # Experiment paths in the manifest are relative to the manifest's directory.
    p["_path"] = os.path.normpath(os.path.join(os.path.dirname(manifest), p["experiment"]))
    key = (p["_path"], tuple(p.get("set", [])))
    if key not in run_of:
        run_of[key] = len(runs)
        slug = re.sub(r"[^A-Za-z0-9]+", "_", os.path.splitext(os.path.basename(key[0]))[0] + "_" + "_".join(key[1]))
        runs.append({"id": f"r{len(runs):03d}_{slug.strip('_')}", "experiment": key[0], "set": list(key[1])})
    p["_run"] = run_of[key]

log_dir = os.path.join(out_dir, "validate-logs")
if not dry:
    os.makedirs(log_dir, exist_ok=True)
log = open(os.path.join(log_dir, "validate-gpu.log"), "a") if not dry else sys.stdout


def say(msg):
    print(msg, flush=True)
    if log is not sys.stdout:
        log.write(msg + "\n")
        log.flush()


def command(run, json_path):
    cmd = [warplab, "run", run["experiment"]]
    for s in run["set"]:
        cmd += ["--set", s]
    return cmd + ["--backend", "gpu", "--l2", "cold", "--counters", "--no-line-counts", "--json", json_path]


say(f"validate-gpu: {len(points)} points in {len(runs)} runs ({manifest}{', quick' if quick else ''})")
failed = 0
for r in runs:
    jpath = os.path.join(log_dir, r["id"] + ".json")
    cmd = command(r, jpath)
    r["command"] = " ".join(shlex.quote(c) for c in cmd)
    if dry:
        print(r["command"])
        continue
    t0 = time.time()
    try:
        with open(os.path.join(log_dir, r["id"] + ".log"), "w") as lf:
            rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        rc = 124
    except OSError as e:
        rc, r["error"] = 127, str(e)
    r["rc"], r["wall_s"] = rc, round(time.time() - t0, 2)
    try:
        r["result"] = json.load(open(jpath))
    except (OSError, ValueError) as e:
        r["result"] = None
        r.setdefault("error", f"no JSON from the run ({e}); see {r['id']}.log")
    if rc != 0 and "error" not in r:
        tail = open(os.path.join(log_dir, r["id"] + ".log")).read()[-600:]
        r["error"] = f"exit {rc}" + (" (timed out)" if rc == 124 else "") + ": " + tail.strip()
    ok = r["result"] is not None and rc in (0, 1)
    failed += not ok
    say(f"  {r['id']}: exit {rc}, {r['wall_s']} s{'' if ok else ' FAILED: ' + r.get('error', '')[:200]}")
if dry:
    sys.exit(0)


def row_params(result, launch):
    """The sweep row's parameters of a launch (the run's params without a sweep)."""
    sw = result.get("sweep")
    if sw and "sweep_row" in launch:
        return sw["rows"][launch["sweep_row"]]["params"]
    return result.get("params", {})


def matches_row(params, row):
    for kv in row:
        name, _, value = kv.partition("=")
        got = params.get(name)
        try:
            if got is None or float(got) != float(value):
                return False
        except (TypeError, ValueError):
            return False
    return True


ADDITIVE = {"elapsed_cycles", "gpu_time_ns", "warp_instructions", "global_load_requests",
            "global_load_sectors", "global_store_requests", "global_store_sectors",
            "dram_bytes_read", "dram_bytes_written", "shared_bank_conflicts",
            "shared_bank_conflicts_ld", "shared_bank_conflicts_st"}

device = {}
data_points = []
for p in points:
    r = runs[p["_run"]]
    dp = {"id": p["id"], "experiment": p["experiment"], "set": p.get("set", []),
          "row": p.get("row", []), "launch": p.get("launch", []), "mechanism": p["mechanism"],
          "run": r["id"], "command": r["command"]}
    res = r.get("result")
    if res is None:
        dp.update(ok=False, error=r.get("error", "run failed"))
        data_points.append(dp)
        continue
    device = device or res.get("gpu_device", {})
    sel = [l for l in res.get("launches", [])
           if matches_row(row_params(res, l), p.get("row", []))
           and (not p.get("launch") or l.get("kernel") in p["launch"] or l.get("entry") in p["launch"])]
    gpus = [l.get("gpu") or {} for l in sel]
    errors = [g.get("error") or g.get("skipped") for g in gpus if g.get("error") or g.get("skipped")]
    if not sel or errors or any("time_us" not in g for g in gpus):
        dp.update(ok=False, error=("no launch matches row/launch" if not sel else
                                   "; ".join(errors) or "a launch has no GPU time"))
        data_points.append(dp)
        continue
    dp["ok"] = True
    dp["passed"] = bool(res.get("passed", False))
    dp["time_us"] = sum(g["time_us"] for g in gpus)
    dp["min_us"] = sum(g.get("min_us", g["time_us"]) for g in gpus)
    dp["max_us"] = sum(g.get("max_us", g["time_us"]) for g in gpus)
    dp["l2_flushed"] = all(g.get("l2_flushed", False) for g in gpus)
    # Counters: additive ones summed over the point's launches; rates only for a single launch.
    counters, avail = {}, all((g.get("counters") or {}).get("available") for g in gpus)
    if avail:
        for g in gpus:
            for k, v in g["counters"].get("values", {}).items():
                if not isinstance(v, (int, float)):
                    continue
                if k in ADDITIVE:
                    counters[k] = counters.get(k, 0) + v
                elif len(gpus) == 1:
                    counters[k] = v
    dp["counters"] = counters
    if not avail:
        dp["counters_unavailable"] = "; ".join(sorted({str((g.get("counters") or {}).get("reason", "not read"))
                                                       for g in gpus}))
    dp["launches"] = [{"kernel": l.get("kernel"), "launch_index": l.get("launch_index"),
                       "repeat_index": l.get("repeat_index"), "sweep_row": l.get("sweep_row"),
                       "grid": l.get("grid"), "block": l.get("block"), "gpu": l.get("gpu")} for l in sel]
    data_points.append(dp)


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


name = device.get("name") or sh(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).splitlines()[:1]
name = name if isinstance(name, str) else (name[0] if name else "unknown")
slug = os.environ.get("DEVICE_SLUG") or ("h100" if "H100" in name else "h200" if "H200" in name
                                          else re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"))
dv = device.get("driver_version")
smi = sh(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,clocks.max.mem", "--format=csv,noheader"])
data = {
    "schema": "warplab.validation-data/1",
    "device": name,
    "device_info": device,
    "driver": smi.split(",")[0].strip() if smi else None,
    "cuda_driver_api": f"{dv // 1000}.{dv % 1000 // 10}" if isinstance(dv, int) else None,
    "nvidia_smi": smi,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "warplab": sh([warplab, "--version"]),
    "l2_convention": "cold: --l2 cold, L2 flushed before every timed launch and every counter pass (a kernel reads a buffer of 2x L2: unmodified lines)",
    "timing": "CUDA events per launch; 3 warm-up launches, median/min/max of 20 timed launches",
    "manifest": manifest,
    "quick_only": quick,
    "points": data_points,
    "runs": [{k: r.get(k) for k in ("id", "experiment", "set", "command", "rc", "wall_s", "error")} for r in runs],
}
for d in data_points:
    d["date"] = data["date"]  # when each point was measured (kept through later merges)
if merge:
    old = json.load(open(merge))
    if old.get("schema") != "warplab.validation-data/1" or old.get("device") != name:
        say(f"validate-gpu: --merge {merge}: not data of {name}; not merged")
    else:
        now = {d["id"] for d in data_points}
        kept = [d for d in old.get("points", []) if d["id"] not in now]
        # Each kept point keeps the date it was measured: its own, else (files written before
        # per-point dates) the earlier file's merge record or the earlier file's date.
        mf = old.get("merged_from", [])
        n_old_kept = mf[-1].get("points", 0) if mf else 0
        for i, d in enumerate(old.get("points", [])):
            if "date" not in d:
                d["date"] = (mf[-1].get("date") if len(mf) == 1 and i < n_old_kept
                             else (None if mf and i < n_old_kept else old.get("date")))
        data["points"] = kept + data_points
        key = lambda r: (r.get("experiment"), tuple(r.get("set") or []))
        now_runs = {key(r) for r in data["runs"]}
        data["runs"] = [r for r in old.get("runs", []) if key(r) not in now_runs] + data["runs"]
        data["merged_from"] = old.get("merged_from", []) + [{"date": old.get("date"), "points": len(kept)}]
        say(f"validate-gpu: merged {len(kept)} points from {merge}")
path = os.path.join(out_dir, slug + ".json")
with open(path, "w") as f:
    json.dump(data, f, indent=1)
ok = sum(1 for d in data_points if d.get("ok"))
say(f"validate-gpu: wrote {path}: {ok}/{len(data_points)} points measured, {failed} runs failed")
sys.exit(1 if failed or ok < len(data_points) else 0)
PYEOF
