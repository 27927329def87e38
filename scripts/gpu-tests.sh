#!/usr/bin/env bash
# Runs WarpLab's GPU tests on a machine with an NVIDIA GPU (an H100 or H200).
#
#   scripts/gpu-tests.sh [LOG_DIR]
#
# 1. Builds test_6xx: with CMake when the whole project configures here, otherwise (a GPU
#    machine without the Debian -dev packages) straight from gpu/*.cpp and tests/6xx_*.cpp, which
#    need only a C++20 compiler, the CUDA headers and doctest.h (/usr/include/doctest or
#    $DOCTEST_DIR, e.g. a carried .gl-carry/).
# 2. Runs it: the GPU-free tests, then the whole kernels on the GPU (results bit-exact, timing,
#    launch overhead, counters). Lines starting with MEASURE are the measurements.
# 3. Once the CLI exists (build-gpu-tests/warplab, or $WARPLAB: a binary built elsewhere and
#    carried here), runs every lesson experiment with --backend both, unless
#    WARPLAB_SKIP_EXPERIMENTS=1 (when the caller runs them itself with its own sizes).
# 4. With the CLI, times the lessons' ratio experiments on the GPU at the reference sizes
#    (ratios.log), unless WARPLAB_SKIP_RATIOS=1.
# Logs go to LOG_DIR (default: $OUT when set, else ./gpu-test-logs).
set -uo pipefail
cd "$(dirname "$0")/.."
LOG_DIR="${1:-${OUT:-./gpu-test-logs}}"
mkdir -p "$LOG_DIR"
BUILD=build-gpu-tests
CUDA_INC=/usr/local/cuda/include
status=0
WARPLAB="${WARPLAB:-}"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$LOG_DIR/nvidia-smi.txt"

# 1. Build.
if cmake -S . -B "$BUILD" -G Ninja >"$LOG_DIR/cmake.log" 2>&1 && ninja -C "$BUILD" test_6xx \
    >>"$LOG_DIR/cmake.log" 2>&1; then
  TEST="$BUILD/test_6xx"
  [ -x "$BUILD/warplab" ] && WARPLAB="$BUILD/warplab"
else
  echo "CMake build unavailable here (see $LOG_DIR/cmake.log); building test_6xx directly"
  DOCTEST_DIR="${DOCTEST_DIR:-}"
  for d in "$DOCTEST_DIR" /usr/include .gl-carry; do
    [ -n "$d" ] && [ -f "$d/doctest/doctest.h" ] && { DOCTEST_INC="$d"; break; }
    [ -n "$d" ] && [ -f "$d/doctest.h" ] && { mkdir -p "$BUILD/inc/doctest";
      cp "$d/doctest.h" "$BUILD/inc/doctest/"; DOCTEST_INC="$BUILD/inc"; break; }
  done
  [ -n "${DOCTEST_INC:-}" ] || { echo "doctest.h not found"; exit 2; }
  mkdir -p "$BUILD/obj"
  FLAGS=(-std=c++20 -O2 -Wall -Wextra -Wno-unused-parameter -I. -I"$DOCTEST_INC")
  [ -f "$CUDA_INC/cuda.h" ] && FLAGS+=(-I"$CUDA_INC" -DWARPLAB_HAVE_CUDA_HEADERS=1)
  pids=()
  for src in gpu/*.cpp tests/doctest_main.cpp tests/6[0-9][0-9]_*.cpp; do
    obj="$BUILD/obj/$(echo "$src" | tr / _).o"
    c++ "${FLAGS[@]}" -c "$src" -o "$obj" 2>>"$LOG_DIR/build.log" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=2; done
  [ $status -eq 0 ] && c++ "$BUILD"/obj/*.o -ldl -o "$BUILD/test_6xx" 2>>"$LOG_DIR/build.log" || status=2
  if [ $status -ne 0 ]; then cat "$LOG_DIR/build.log"; exit 2; fi
  TEST="$BUILD/test_6xx"
fi

# 2. The GPU test suite.
"$TEST" 2>&1 | tee "$LOG_DIR/test_6xx.log" || status=1
grep -A20 "MEASURE" "$LOG_DIR/test_6xx.log" | grep -v "^===" > "$LOG_DIR/measurements.txt" || true

# 3. Lesson experiments on both backends, when the CLI exists.
if [ "${WARPLAB_SKIP_EXPERIMENTS:-0}" = 1 ]; then
  echo "lesson experiments skipped here (WARPLAB_SKIP_EXPERIMENTS=1)"
elif [ -n "${WARPLAB:-}" ]; then
  # The preset derived from this GPU must load and run (cmd: warplab configs --from-gpu).
  "$WARPLAB" configs --from-gpu "$LOG_DIR/from-gpu.toml" &&
    "$WARPLAB" run lessons/01-threads-and-warps/vec_add.toml --config "$LOG_DIR/from-gpu.toml" \
      2>&1 | tee "$LOG_DIR/from-gpu-run.log" || status=1
  for f in lessons/*/*.toml lessons/*.toml tests/data/instruction_mix.toml tests/data/printf.toml; do
    [ -f "$f" ] || continue
    echo "== $f"
    "$WARPLAB" run "$f" --backend both 2>&1 | tee -a "$LOG_DIR/experiments.log" || status=1
  done
else
  echo "warplab CLI not built here: experiments with --backend both skipped"
fi

# 4. The lesson ratios of ../shared/reference/gpu-measurements.md, measured with WarpLab's own GPU
#    backend at the reference sizes (GPU only: the simulator's side at these sizes is what
#    tests/330 checks, in minutes). Lines in ratios.log pair with the reference table.
if [ -n "${WARPLAB:-}" ] && [ "${WARPLAB_SKIP_RATIOS:-0}" != 1 ]; then
  for spec in "lessons/03-block-size/block-size-sweep.toml N=16777216" \
              "lessons/02-coalescing/stride-sweep.toml N=16777216" \
              "lessons/06-operator-fusion/gelu.toml N=16777216" \
              "lessons/04-divergence/divergence.toml N=16777216" \
              "lessons/05-shared-memory-tiling/matmul.toml M=2048 N=2048 K=2048"; do
    set -- $spec
    f=$1; shift
    sets=(); for kv in "$@"; do sets+=(--set "$kv"); done
    echo "== $f $* (GPU)"
    "$WARPLAB" run "$f" "${sets[@]}" --backend gpu 2>&1 | tee -a "$LOG_DIR/ratios.log" || status=1
  done
fi
exit $status
