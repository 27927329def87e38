#!/usr/bin/env bash
# Sets WarpLab up on a Debian 12 machine and builds it into ./build.
#   - installs the Debian packages it needs (as root, only those missing);
#   - installs the pinned Triton and numpy with pip where pip is available (Triton kernels);
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

# Triton kernels (lessons/FORMAT.md, "Triton kernels"): the pinned Triton and numpy, with pip,
# for the python3 WarpLab runs (WARPLAB_PYTHON). Never a reason for setup to fail: without them
# Triton experiments and lessons say so in one line and skip.
triton_version=3.9.0  # lab/triton.h kPinnedTritonVersion
py="${WARPLAB_PYTHON:-python3}"
if ! command -v "$py" >/dev/null 2>&1; then
  echo "setup: note: no $py; Triton kernels will be skipped" >&2
elif "$py" -c "import importlib.metadata as m, sys; sys.exit(m.version('triton') != '$triton_version')" 2>/dev/null &&
     "$py" -c "import numpy" 2>/dev/null; then
  :  # already there
elif "$py" -m pip --version >/dev/null 2>&1; then
  echo "setup: installing triton==$triton_version and numpy with pip (for Triton kernels)"
  "$py" -m pip install -q "triton==$triton_version" numpy ||
    echo "setup: note: pip could not install triton==$triton_version numpy; Triton kernels will be skipped" >&2
else
  echo "setup: note: no pip for $py; skipped installing triton==$triton_version and numpy (Triton kernels will be skipped)" >&2
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
