#!/usr/bin/env bash
# Regenerates the README's app screenshots: runs the scripted visit under Xvfb (tests/app/run.sh,
# which also checks the shots with tests/710) and copies the ones the README shows here. With
# pngquant installed they are reduced to 256 colours (about a quarter of the size, no visible
# difference on the app's flat colours); else optipng recompresses them losslessly; else they
# are copied as the app wrote them.
#   docs/app/update.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
out="$(bash "$ROOT/tests/app/run.sh" "$BUILD")" || { echo "$out"; exit 1; }
case "$out" in skipped:*) echo "$out"; exit 1 ;; esac
SHOTS="$BUILD/app-shots/shots"
# README name <- the visit's shot (tests/app/visit.txt)
while read -r name shot; do
  src="$SHOTS/$shot.png" dst="$ROOT/docs/app/$name.png"
  if command -v pngquant >/dev/null; then
    pngquant --quality 80-100 --speed 1 --strip --force --output "$dst" "$src"
  elif command -v optipng >/dev/null; then
    optipng -quiet -o2 -strip all -out "$dst" -clobber "$src"
  else
    cp "$src" "$dst"
  fi
  echo "docs/app/$name.png ($(stat -c %s "$dst") bytes) <- $shot.png"
done <<'LIST'
sweep sweep
run run
lanes lanes
source-run source-run
sweep-h100 sweep-h100
flow flow-stride32
banks banks-plain
gpu gpu
schedulers sm0-schedulers
edit-error edit-error
steps step-claims
buffers buffers
code code-ptx
ab-flow ab-flow
ab-memory ab-memory
sweep-sectors sweep-sectors
ab-code ab-code
flow-stride32-n2p20 flow-stride32
l6-compare fusion
LIST
