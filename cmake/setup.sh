#!/usr/bin/env bash
# Sets WarpLab up on a Debian 12 machine and builds it into ./build.
#   - installs the Debian packages it needs (as root, only those missing);
#   - installs the pinned Triton and numpy with pip where pip is available (Triton kernels:
#     into build/triton-venv unless the Python already has them);
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

# Triton kernels (lessons/FORMAT.md, "Triton kernels"): the pinned Triton and numpy for the
# Python WarpLab runs. Never a reason for setup to fail: without them Triton experiments and
# lessons say so in one line and skip.
#   - A python3 that already has triton==$triton_version and numpy (WARPLAB_PYTHON, else python3
#     on the PATH) is used as it is.
#   - Otherwise they go into a virtual environment, build/triton-venv, which WarpLab finds beside
#     its executable (lab/triton.h). Not `pip install --break-system-packages`: Debian 12's
#     Python is "externally managed" (PEP 668), and pip writing into /usr/lib/python3 can break
#     the Python packages apt installed; the venv needs no root for pip, leaves the system alone
#     and goes away with the build folder.
#   - python3-venv (and python3-pip) come from apt when missing and setup runs as root.
triton_version=3.9.0  # lab/triton.h kPinnedTritonVersion
py="${WARPLAB_PYTHON:-python3}"
venv=build/triton-venv
has_triton() {
  "$1" -c "import importlib.metadata as m, sys; sys.exit(m.version('triton') != '$triton_version')" 2>/dev/null &&
    "$1" -c "import numpy" 2>/dev/null
}
if ! command -v "$py" >/dev/null 2>&1 && [ ! -x "$venv/bin/python3" ]; then
  echo "setup: note: no $py; Triton kernels will be skipped" >&2
elif command -v "$py" >/dev/null 2>&1 && has_triton "$py"; then
  :  # already there
elif [ -x "$venv/bin/python3" ] && has_triton "$venv/bin/python3"; then
  :  # installed by an earlier setup
else
  if ! "$py" -c "import ensurepip, venv" 2>/dev/null && [ "$(id -u)" -eq 0 ] &&
     command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing python3-venv and python3-pip (for Triton kernels)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv python3-pip; } \
      >/dev/null || true
  fi
  mkdir -p build
  if [ -x "$venv/bin/python3" ] || "$py" -m venv "$venv" >/dev/null 2>&1; then
    echo "setup: installing triton==$triton_version and numpy into $venv (for Triton kernels)"
    "$venv/bin/python3" -m pip install -q --disable-pip-version-check "triton==$triton_version" numpy ||
      echo "setup: note: pip could not install triton==$triton_version numpy; Triton kernels will be skipped" >&2
  else
    echo "setup: note: $py cannot make a virtual environment (apt-get install python3-venv); Triton kernels will be skipped" >&2
  fi
fi

# WARPLAB_UNITY: lab/, gpu/, the CLI, the app and the tests in unity batches (CMakeLists.txt):
# about half the compile CPU of those sources for a build made once (.ci/budget.md); a
# developer's own build tree leaves it off (an edit then recompiles one file, not a batch).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPLAB_UNITY=ON >/dev/null
cmake --build build -j "$(nproc)"
