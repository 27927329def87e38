#!/bin/bash
# perf13 (issue 26, stop 39): main c393af2 (base) against branch perf13 (warplab), warplab bench
# --mode timing --threads 1 (all four timing workloads) on the GPU host's idle CPUs. Two rounds of
# four runs side by side: round 1 base on CPUs 2 and 10, perf13 on 6 and 14; round 2 swapped, so
# each CPU runs both binaries, one after the other, in either order (perf9's design).
set -u
xz -dc "$REQ/base.xz" > "$REQ/base" && chmod +x "$REQ/base"
md5sum "$REQ/base" "$REQ/warplab"
lscpu | grep -E "Model name|^CPU\(s\)|L3"; uptime; date -u
start=$(date +%s)
one() {  # binary cpu round
  local name=$1 cpu=$2 r=$3 tag="$1.cpu$2.r$3"
  local TIMEFORMAT="TIME real=%R user=%U sys=%S run=$tag"
  { time taskset -c "$cpu" "$REQ/$name" bench --mode timing --threads 1 > "$RES/$tag.txt" \
      2> "$RES/$tag.err"; } 2>> "$RES/$tag.err"
  echo "rc=$? $tag" >> "$RES/$tag.err"
}
round() {  # r base-cpus... new-cpus
  local r=$1
  one base "$2" "$r" & one base "$3" "$r" & one warplab "$4" "$r" & one warplab "$5" "$r" &
  wait
}
round 1 2 10 6 14
echo "round 1 done at $(( $(date +%s) - start )) s"
if [ $(( $(date +%s) - start )) -lt 70 ]; then round 2 6 14 2 10; else echo "round 2 skipped (time)"; fi
for f in "$RES"/base.*.txt "$RES"/warplab.*.txt; do
  tag=$(basename "$f" .txt)
  grep -E "BENCH" "$f" | sed "s/\$/ run=$tag/"
  grep -hE "TIME|rc=" "$RES/$tag.err"
done
uptime; echo "elapsed $(( $(date +%s) - start )) s"
