#!/usr/bin/env bash
# A relocatable install: `cmake --install` into a temporary prefix, the prefix moved elsewhere, then
# from an empty working directory and with no WARPLAB_* variable set, the moved `warplab` must list
# the lessons and presets of its own prefix (not the source tree's), run lesson 01 and grade a
# shipped assignment by name. No GPU needed.
#   tests/install/run.sh BUILD_DIR
set -uo pipefail
BUILD="$(cd "${1:-build}" && pwd)"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fail=0
check() {  # check NAME CONDITION-EXIT-STATUS OUTPUT
  if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; echo "$3" | tail -20; fail=1; fi
}
cmake --install "$BUILD" --prefix "$T/first" --component warplab >/dev/null || { echo "FAIL install"; exit 1; }
mv "$T/first" "$T/moved"
P="$T/moved"
mkdir "$T/cwd" && cd "$T/cwd"
for v in $(env | sed -n 's/^\(WARPLAB_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
W="$P/bin/warplab"

out=$("$W" lessons 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^01-threads-and-warps " <<<"$out" && [ "$(tail -1 <<<"$out")" = "($P/share/warplab/lessons)" ]
check "warplab lessons lists the moved prefix's lessons" $? "$out"

out=$("$W" configs 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^h100-sxm " <<<"$out" && grep -qF "($P/share/warplab/configs;" <<<"$out"
check "warplab configs lists the moved prefix's presets" $? "$out"

out=$("$W" lesson 01 --ci --answers --no-pages 2>&1); rc=$?
[ $rc = 0 ] && grep -q "CLAIM PASS" <<<"$out" && ! grep -q "CLAIM FAIL" <<<"$out"
check "warplab lesson 01 --ci --answers" $? "$out"

out=$("$W" grade vector_add "$P/share/warplab/lessons/assignments/vector_add/reference.cu" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^GRADE assignment=vector_add correct=yes" <<<"$out"
check "warplab grade vector_add (the shipped reference)" $? "$out"

out=$("$W" bench --help 2>&1); [ -d "$P/share/warplab/bench" ]
check "the benchmark workloads are installed" $? "$out"

exit $fail
