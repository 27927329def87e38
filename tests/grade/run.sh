#!/usr/bin/env bash
# Grades five submissions of every assignment (the reference itself as the fast one, and
# tests/data/grade/NAME/{slow,wrong,racy,hang}.cu) with `warplab grade` and checks each verdict:
# the exit status and the GRADE line. --threads 1: `ctest -j` already runs one test per core (the
# verdicts are the same for any thread count; tests/350 checks that the results are).
#   tests/grade/run.sh BUILD_DIR
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
W="$(cd "${1:-build}" && pwd)/warplab"
cd "$ROOT"
fail=0
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
for a in vector_add reduction softmax transpose; do
  for s in fast slow wrong racy hang; do
    sub="tests/data/grade/$a/$s.cu"
    [ $s = fast ] && sub="lessons/assignments/$a/reference.cu"  # the reference itself is fast
    # Verdicts, not budgets: a loaded CI host must not turn a slow submission into a TIMEOUT
    # (the budget has its own case below).
    out=$("$W" grade "lessons/assignments/$a/assignment.toml" "$sub" --threads 1 \
      --test-time-limit 600 --total-time-limit 3000 2>&1)
    rc=$?
    line=$(grep '^GRADE ' <<<"$out")
    ok=1
    case $s in
      fast) [ $rc = 0 ] && [ "$(field correct "$line")" = yes ] && [ "$(field score "$line")" = 100 ] || ok=0 ;;
      slow) [ $rc = 0 ] && [ "$(field correct "$line")" = yes ] &&
              awk -v s="$(field speed "$line")" 'BEGIN { exit !(s < 0.9) }' &&
              [ "$(field score "$line")" -lt 100 ] && [ "$(field score "$line")" -ge 70 ] || ok=0 ;;
      wrong) [ $rc = 1 ] && [ "$(field correct "$line")" = no ] && [ "$(field faults "$line")" = 0 ] &&
               [ "$(field score "$line")" -lt 70 ] || ok=0 ;;
      racy) [ $rc = 1 ] && [ "$(field hazards "$line")" -gt 0 ] && [ "$(field score "$line")" -lt 70 ] ||
              ok=0 ;;
      hang) [ $rc = 1 ] && [ "$(field faults "$line")" -gt 0 ] && grep -q "Hang" <<<"$out" &&
              [ "$(field score "$line")" = 0 ] || ok=0 ;;
    esac
    if [ $ok = 1 ]; then echo "ok   $a/$s: $line"; else echo "FAIL $a/$s (exit $rc): $line"; fail=1; fi
  done
done
# A submission that does not compile is bad input (exit 2), named at the student's line.
out=$("$W" grade lessons/assignments/vector_add/assignment.toml tests/data/grade/vector_add/syntax_error.cu 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "syntax_error.cu:3: error" <<<"$out"; then echo "ok   vector_add/syntax_error: exit 2 at line 3"
else echo "FAIL vector_add/syntax_error (exit $rc)"; fail=1; fi
# A correct transpose with a long loop inside max_instructions: stopped by the wall-clock budget,
# its larger tests end TIMEOUT (how many depends on the machine's speed), exit 1 (a failed grade,
# not a crash).
start=$(date +%s)
out=$("$W" grade lessons/assignments/transpose/assignment.toml tests/data/grade/transpose/long_loop.cu \
  --threads 1 --test-time-limit 2 --total-time-limit 60 2>&1)
rc=$?
line=$(grep '^GRADE ' <<<"$out")
took=$(( $(date +%s) - start ))
if [ $rc = 1 ] && [ "$(field timeouts "$line")" -ge 1 ] && [ "$(field correct "$line")" = no ] &&
   [ "$(field score "$line")" -lt 70 ] &&
   grep -q "TIMEOUT: your kernel was still being compiled or simulated after 2 s" <<<"$out" &&
   [ $took -lt 120 ]; then echo "ok   transpose/long_loop: $line (${took} s)"
else echo "FAIL transpose/long_loop (exit $rc, ${took} s): $line"; fail=1; fi
exit $fail
