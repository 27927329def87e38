// Calibration (issue 25): scripts/microbench/batch_inflight.cu's kernel for the simulator (one SM,
// W warps, B independent line loads a warp per step, then a dependent sum: chain_sum_one_block's
// body), with plain loads (ld.global, as chain_sum issues them). Kept identical to the
// microbenchmark's batch<B, false> (only extern "C" instances added); the GPU's cycles per step
// are in scripts/microbench/h100-lines-in-flight-2026-11-27.tsv.
template <int B>
__device__ __forceinline__ void batch(const float* x, unsigned long long region_lines, int steps,
                                      int spread, long long* cyc, float* out) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, W = blockDim.x >> 5;
  const float* base = x + blockIdx.x * region_lines * 32;
  const unsigned long long mul = spread ? 33 : 1;
  float s = 0.f;
  long long t0 = clock64();
#pragma unroll 1
  for (int st = 0; st < steps; ++st) {
    float v[B];
#pragma unroll
    for (int k = 0; k < B; ++k) {
      unsigned long long line = ((unsigned long long)(st * B + k) * W + w) * mul;
      v[k] = base[line * 32 + lane];
    }
#pragma unroll
    for (int k = 0; k < B; ++k) s += v[k];
  }
  long long t1 = clock64();
  if (lane == 0) cyc[blockIdx.x * 32 + w] = t1 - t0;
  if (s == -1.f) out[0] = s;  // never: keeps the loads
}

extern "C" __global__ void batch1(const float* x, unsigned long long region_lines, int steps,
                                  int spread, long long* cyc, float* out) {
  batch<1>(x, region_lines, steps, spread, cyc, out);
}
extern "C" __global__ void batch4(const float* x, unsigned long long region_lines, int steps,
                                  int spread, long long* cyc, float* out) {
  batch<4>(x, region_lines, steps, spread, cyc, out);
}
extern "C" __global__ void batch16(const float* x, unsigned long long region_lines, int steps,
                                   int spread, long long* cyc, float* out) {
  batch<16>(x, region_lines, steps, spread, cyc, out);
}
