#!/usr/bin/env bash
# Runs the desktop app's scripted visit (tests/app/visit.txt) under Xvfb and checks the
# screenshots' regions (tests/710_app_screenshots.cpp); --verify-damage draws every frame twice,
# only what changed and whole, and fails the run when a pixel differs (ui/app/frame_damage.h).
# Skips with one line when the app was not built or no Xvfb is installed (CI installs it through
# cmake/setup.sh).
#   tests/app/run.sh BUILD_DIR
set -uo pipefail
BUILD="$(cd "${1:-build}" && pwd)"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
if [ ! -x "$BUILD/warplab-app" ]; then echo "skipped: warplab-app was not built"; exit 0; fi
if ! command -v xvfb-run >/dev/null; then echo "skipped: no xvfb-run (apt-get install xvfb)"; exit 0; fi
OUT="$BUILD/app-shots"
rm -rf "$OUT" && mkdir -p "$OUT/shots" "$OUT/1280x800/shots"
# The script's paths are relative: run it from $OUT (1600x1000) and $OUT/1280x800.
(cd "$OUT" && xvfb-run -a -s "-screen 0 1600x1000x24" "$BUILD/warplab-app" \
   --lessons "$ROOT/lessons" --script "$ROOT/tests/app/visit.txt" --frame-stats --verify-damage) || exit 1
(cd "$OUT/1280x800" && xvfb-run -a -s "-screen 0 1600x1000x24" "$BUILD/warplab-app" --size 1280x800 \
   --lessons "$ROOT/lessons" --script "$ROOT/tests/app/visit.txt" --frame-stats) || exit 1
WARPLAB_APP_SHOTS="$OUT/shots" WARPLAB_APP_SHOTS_ALL="$OUT/shots:$OUT/1280x800/shots" \
  "$BUILD/test_7xx" -tc='710*'
