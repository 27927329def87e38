#!/usr/bin/env bash
# The kernels of tests/data/checks.cu under NVIDIA's compute-sanitizer (synccheck, racecheck) on a
# real GPU, to compare with `warplab run --synccheck --racecheck` (tests/511_checks.cpp). Needs nvcc,
# compute-sanitizer and a GPU. The hanging kernels (spin, spin_volatile, deadlock) are not run.
# Usage: scripts/sanitizer-compare.sh [OUT.log]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
log=${1:-sanitizer-compare.log}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/harness.cu" <<'CU'
#include "checks.cu"
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int *x, *out, *hist;
  float* f;
  cudaMalloc(&x, 1024 * 4);
  cudaMalloc(&out, 1024 * 4);
  cudaMalloc(&hist, 16 * 4);
  cudaMalloc(&f, 1024 * 4);
  std::vector<int> iota(1024);
  std::vector<float> ones(1024, 1.0f);
  for (int i = 0; i < 1024; ++i) iota[i] = i;
  cudaMemcpy(x, iota.data(), 4096, cudaMemcpyHostToDevice);
  cudaMemcpy(f, ones.data(), 4096, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, 4096);
  cudaMemset(hist, 0, 64);
  const std::string k = argv[1];
  if (k == "divergent_barrier") divergent_barrier<<<1, 64>>>(out);
  else if (k == "early_exit_barrier") early_exit_barrier<<<1, 64>>>(out);
  else if (k == "shared_race") shared_race<<<1, 64>>>(out);
  else if (k == "shared_synced") shared_synced<<<1, 64>>>(out);
  else if (k == "shared_war") shared_war<<<1, 64>>>(x, out);
  else if (k == "shared_waw") shared_waw<<<1, 64>>>(out);
  else if (k == "lanes_waw") lanes_waw<<<1, 32>>>(out);
  else if (k == "global_race") global_race<<<1, 64>>>(out, x);
  else if (k == "reduce") reduce<<<4, 256>>>(f, reinterpret_cast<float*>(out));
  else if (k == "histogram") histogram<<<4, 256>>>(x, hist);
  else return 2;
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s\n", k.c_str(), cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
CU
nvcc -arch=sm_90 -lineinfo -I "$here/tests/data" -o "$tmp/harness" "$tmp/harness.cu"
{
  for k in divergent_barrier early_exit_barrier shared_synced; do
    echo "=== synccheck $k"
    compute-sanitizer --tool synccheck "$tmp/harness" "$k" || true
  done
  for k in shared_race shared_synced shared_war shared_waw lanes_waw global_race reduce histogram; do
    echo "=== racecheck $k"
    compute-sanitizer --tool racecheck --racecheck-report all "$tmp/harness" "$k" || true
  done
} 2>&1 | tee "$log"
