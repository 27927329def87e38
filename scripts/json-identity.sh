#!/usr/bin/env bash
# Compares two warplab binaries run for run: the same experiments must give the same JSON (every
# cycle, counter, per-line table and check), with only the host's wall-clock seconds left out.
# A speed change to the simulator must pass this before it is committed (issue 26).
#
# Usage: scripts/json-identity.sh BASE NEW [--corpus] [--heavy] [--trace] [-j N] [FILE.toml ...]
#   BASE, NEW   the two warplab binaries (e.g. a copy of main's build/warplab, and build/warplab)
#   FILE.toml   experiments to run (default: the representative set below)
#   --corpus    every point of validation/corpus.toml (its experiment with its `set`), instead
#   --quick     the corpus's quick points only (its CI subset), instead
#   --heavy     with --corpus: the heavy points too (hours on one core)
#   --trace     also compare the timing trace (--trace) of each run's first launch
#   -j N        runs side by side (default: the number of cores)
# Exit status: 0 when every run is identical, 1 when any differs (the differing files are named,
# with the first differing lines), 2 for bad usage.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
base=$(realpath "$1") new=$(realpath "$2")
shift 2
[ -x "$base" ] && [ -x "$new" ] || { echo "json-identity: BASE and NEW must be executables" >&2; exit 2; }
corpus=0 quick=0 heavy=0 trace=0 jobs=$(nproc)
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --corpus) corpus=1 ;;
    --quick) corpus=1 quick=1 ;;
    --heavy) heavy=1 ;;
    --trace) trace=1 ;;
    -j) shift; jobs=$1 ;;
    -h|--help) usage ;;
    *) files+=("$(realpath "$1")") ;;
  esac
  shift
done

# One job per line: "FILE<TAB>SET1 SET2 ..." (sets without spaces, as the corpus writes them).
jobs_file=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$jobs_file" "$out"' EXIT
if [ $corpus = 1 ]; then
  python3 - "$here/validation/corpus.toml" "$heavy" "$quick" >"$jobs_file" <<'EOF'
import os, sys, tomllib
path, heavy, quick = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
seen = set()
for p in tomllib.load(open(path, "rb"))["point"]:
    if (p.get("heavy") and not heavy) or (quick and not p.get("quick")):
        continue
    exp = os.path.normpath(os.path.join(os.path.dirname(path), p["experiment"]))
    key = (exp, tuple(p.get("set", [])))
    if key not in seen:
        seen.add(key)
        print(exp + "\t" + " ".join(p.get("set", [])))
EOF
elif [ ${#files[@]} -gt 0 ]; then
  for f in "${files[@]}"; do printf '%s\t\n' "$f"; done >"$jobs_file"
else
  # The representative set: lessons 01-08, 10 and 13 at their own sizes, and corpus experiments
  # that exercise atomics, bank conflicts, tensor cores, asynchronous copies and Triton's PTX, and
  # gen2-sparse's per-thread walks (stop 41: a look-ahead change passed the rest of this set and
  # changed g2.spmv_csr_thread's cycles).
  {
    for d in 01 02 03 04 05 06 07 08 10 13; do
      for f in "$here"/lessons/$d-*/*.toml; do
        [ "$(basename "$f")" = lesson.toml ] || printf '%s\t\n' "$f"
      done
    done
    for e in atomic_global_atom atomic_shared_atom atomic_global_red bank_conflict tensor_mma \
             tensor_ldmatrix mma_bf16 async_copies block_reduce divergent_loop stencil sfu \
             triton-vector-add triton-softmax triton-matmul gen2-sparse; do
      printf '%s\t\n' "$here/validation/experiments/$e.toml"
    done
  } >"$jobs_file"
fi

# Runs one job with one binary: JSON with wall-clock fields removed (and the trace, if asked).
one() {
  local bin=$1 tag=$2 n=$3 file=$4 sets=$5
  local args=()
  for s in $sets; do args+=(--set "$s"); done
  # Each binary runs in a folder of its own with the same relative output names, so that the
  # names the JSON records are the same.
  local dir=$out/$n
  mkdir -p "$dir/$tag"
  local targs=()
  [ "$trace" = 1 ] && targs=(--trace trace.json)
  (cd "$dir/$tag" && "$bin" run "$file" "${args[@]}" "${targs[@]}" -q --json raw.json >out.txt 2>&1)
  echo $? >"$dir/$tag.rc"
  [ -f "$dir/$tag/trace.json" ] && mv "$dir/$tag/trace.json" "$dir/$tag.trace.json"
  python3 - "$dir/$tag/raw.json" "$dir/$tag.json" <<'EOF'
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if not k.endswith("wall_s")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    d = {"no json": str(e)}
json.dump(strip(d), open(sys.argv[2], "w"), indent=1, sort_keys=True)
EOF
}
export -f one
export out trace

n=0
while IFS=$'\t' read -r file sets; do
  n=$((n + 1))
  printf '%s\0%s\0%s\0%s\0%s\0' "$base" base "$n" "$file" "$sets"
  printf '%s\0%s\0%s\0%s\0%s\0' "$new" new "$n" "$file" "$sets"
done <"$jobs_file" | xargs -0 -n 5 -P "$jobs" bash -c 'one "$@"' _

fail=0 n=0
while IFS=$'\t' read -r file sets; do
  n=$((n + 1))
  d=$out/$n
  name="${file#$here/} ${sets}"
  if ! cmp -s "$d/base.rc" "$d/new.rc"; then
    echo "DIFFERS $name: exit status $(cat "$d/base.rc") vs $(cat "$d/new.rc")"
    fail=1
  elif ! cmp -s "$d/base.json" "$d/new.json"; then
    echo "DIFFERS $name:"
    diff "$d/base.json" "$d/new.json" | head -10
    fail=1
  elif [ "$trace" = 1 ] && ! cmp -s "$d/base.trace.json" "$d/new.trace.json"; then
    echo "DIFFERS $name: trace"
    fail=1
  else
    echo "same    $name (exit $(cat "$d/base.rc"))"
  fi
done <"$jobs_file"
[ $fail = 0 ] && echo "json-identity: all $n runs identical" || echo "json-identity: differences found"
exit $fail
