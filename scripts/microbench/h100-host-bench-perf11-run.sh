#!/bin/bash
# perf11 (issue 26, stop 39): main c393af2 (base) against perf11 (loads' L1 misses held to the
# cycle's end before the SM's turn: sim/timing/l2_queue.h), warplab bench --mode timing
# --threads 16 on the host's 16 CPUs, one run at a time, alternated. Each bench call runs the
# workload on 1 thread and on 16 (SPEEDUP line, same_cycles). Runs in priority order, each
# skipped when the time is short.
set -u
xz -dc "$REQ/base.xz" > "$REQ/base" && chmod +x "$REQ/base"
md5sum "$REQ/base" "$REQ/warplab"
lscpu | grep -E "Model name|^CPU\(s\)"; uptime; date -u
start=$(date +%s)
one() {  # binary-name workload threads budget-needed-s [extra flags]
  local name=$1 w=$2 n=$3 need=$4; shift 4
  if [ $(( $(date +%s) - start + need )) -gt 132 ]; then echo "skip $name $w $n $* (time)"; return; fi
  local t0=$(date +%s)
  "$REQ/$name" bench --mode timing --workload "$w" --threads "$n" "$@" > "$RES/$name.$w.$n$*.txt" 2>&1
  echo "# $name $w threads=$n $* rc=$? wall=$(( $(date +%s) - t0 )) s"
  grep -E "BENCH|SPEEDUP|turns" "$RES/$name.$w.$n$*.txt" | sed "s/\$/ binary=$name/"
}
one base 'vec_add_2^22' 16 10
one warplab 'vec_add_2^22' 16 10
one base 'vec_add_2^22' 16 10
one warplab 'vec_add_2^22' 16 10
one base matmul_tiled_512 16 45
one warplab matmul_tiled_512 16 45
one warplab 'vec_add_2^22' 16 10 --no-adapt
uptime; echo "elapsed $(( $(date +%s) - start )) s"
