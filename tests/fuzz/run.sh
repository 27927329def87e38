#!/usr/bin/env bash
# The fuzz targets under AddressSanitizer and UndefinedBehaviorSanitizer, each for SECONDS (presets
# and assignments, slower per input, for half as long), seeded with the repository's own PTX,
# experiment, .npy, preset and assignment files and the kept crashers (tests/fuzz/corpus, replayed
# first, every run). Configures and builds BUILD_DIR (the libraries, the fuzz targets
# and the parser and functional-executor suites, all sanitized; at -O1, the libraries in unity
# batches: CMakeLists.txt, WARPLAB_SANITIZE and WARPLAB_FUZZ), runs those suites too, and fails
# if anything crashes; a crashing input is left in BUILD_DIR/fuzz-crashes.
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]      (CTest: fuzz_sanitizers)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
seconds=${2:-20}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPLAB_SANITIZE=ON -DWARPLAB_FUZZ=ON -DWARPLAB_BUILD_APP=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_ptx fuzz_experiment fuzz_npy fuzz_preset \
  fuzz_assignment test_1xx test_2xx
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
crashes="$build/fuzz-crashes"
mkdir -p "$crashes"
cd "$root"
# 1. The suites that are fast under the sanitizers: the parser's and the functional executor's.
#    Leak checking is off for them: NVRTC, which tests/241 loads with dlopen, keeps 72 KB that
#    LeakSanitizer reports in an unknown module once it is unloaded. The fuzz targets load no
#    CUDA library and keep leak checking on.
for suite in test_1xx test_2xx; do
  if ! ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 "$build/$suite" --no-intro=true \
    >"$build/$suite.log" 2>&1; then
    tail -40 "$build/$suite.log"
    echo "run.sh: $suite failed under ASan/UBSan ($build/$suite.log)" >&2
    exit 1
  fi
  echo "$suite: $(grep 'test cases:' "$build/$suite.log")"
done
# 2. Each target; seeds first, then mutants until the time is up. The PTX seeds include every
#    kernel the tests write inline (R"( ... )" blocks with a .version line).
corpus="$root/tests/fuzz/corpus"
seeds="$build/fuzz-seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
awk -v dir="$seeds" '
  /R"\(/ { inb = 1; buf = ""; sub(/.*R"\(/, "") }
  inb { if ($0 ~ /^\)"/) { inb = 0; if (buf ~ /\.version/) print buf > (dir "/inline" ++n ".ptx") }
        else buf = buf $0 "\n" }' "$root"/tests/*.cpp "$root"/tests/*.h
"$build/fuzz_ptx" --seconds "$seconds" --crash-dir "$crashes" --ext .ptx \
  "$root/bench" "$root/lessons" "$root/validation" "$root/tests/data" "$seeds" "$corpus/ptx"
"$build/fuzz_experiment" --seconds "$seconds" --crash-dir "$crashes" --ext .toml \
  "$root/lessons" "$root/tests/data" "$root/bench" "$root/validation" "$corpus/experiment"
"$build/fuzz_npy" --seconds "$seconds" --crash-dir "$crashes" --ext .npy \
  "$root/lessons" "$root/tests/data" "$root/validation" "$corpus/npy"
"$build/fuzz_preset" --seconds "$((seconds / 2))" --crash-dir "$crashes" --ext .toml \
  "$root/configs" "$corpus/preset"
"$build/fuzz_assignment" --seconds "$((seconds / 2))" --crash-dir "$crashes" --ext .toml \
  "$root/lessons/assignments" "$corpus/assignment"
