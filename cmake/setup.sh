#!/usr/bin/env bash
# Sets WarpLab up on a Debian 12 machine and builds it into ./build.
#   - installs the Debian packages it needs (as root, only those missing);
#   - configures with CMake and builds with every core.
# The CUDA 13 toolkit is expected at /usr/local/cuda (NVRTC compiles .cu files; the GPU backend
# loads the driver at run time). Without it WarpLab still builds and simulates shipped .ptx files.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libtomlplusplus-dev nlohmann-json3-dev libcli11-dev
          doctest-dev libmd4c-dev libimgui-dev libglfw3-dev libstb-dev
          xvfb xauth libgl1-mesa-dri)  # Xvfb + Mesa: the app's scripted screenshot tests
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 2
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d /usr/local/cuda/include ]; then
  echo "setup: note: no CUDA toolkit at /usr/local/cuda; .cu files can't be compiled (shipped .ptx still runs)" >&2
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
