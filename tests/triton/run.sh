#!/usr/bin/env bash
# CTest entry triton_lessons: lesson 16 and the Triton twins of lessons 1, 6, 7, 12 and 15, headless
# (CI=true, the simulator only, CI sizes, one thread per run as the lesson_NN entries), every claim
# checked. A machine without Triton prints why in one line and exits 77, which CTest reports as
# skipped (SKIP_RETURN_CODE).
#   bash tests/triton/run.sh BUILD_DIR        (from the source tree)
set -uo pipefail
build="${1:?usage: run.sh BUILD_DIR}"
warplab="$build/warplab"
export CI=true

out=$("$warplab" lesson 16 --ci --answers --no-pages --backend sim --threads 1 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^SKIPPED lesson' <<<"$out"; then
  echo "skipped: $(grep -m1 '^SKIPPED lesson' <<<"$out")"
  exit 77
fi
failed=0
check() {  # a lesson's run: exit 0, its LESSON line, and no step skipped
  local name=$1 rc=$2 text=$3
  echo "$text" | grep -E '^(LESSON|SKIPPED|CLAIM FAIL)' | sed "s/^/$name: /"
  if [ "$rc" -ne 0 ] || ! grep -q '^LESSON ' <<<"$text" || grep -q '^SKIPPED' <<<"$text"; then
    echo "$name: FAILED (exit $rc)"
    failed=1
  fi
}
check "lesson 16" $rc "$out"
for lesson in 01 06 07 12 15; do
  out=$("$warplab" lesson $lesson --triton-only --ci --answers --no-pages --backend sim \
    --threads 1 2>&1)
  check "lesson $lesson (Triton steps)" $? "$out"
done
exit $failed
