// Calibration (issue 25): the kernels of scripts/microbench/latency/atomics.cu (dependent chains of
// global atomics whose result is used, and of ld.global.cg loads), for the simulator; the GPU
// figures are in scripts/microbench/h200-latency-2026-11-27.csv (rows atomics). Kept identical to
// atomics.cu's kernels (only extern "C" added).
constexpr int LINKS = 512;
constexpr int ROWS = 256;

__device__ __forceinline__ unsigned row_of(unsigned v, int i) { return (v ^ (unsigned)i) & (ROWS - 1); }

extern "C" __global__ void add_lanes(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS; ++i) v = atomicAdd(&p[row_of(v, i) * 32 + lane], 1u);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

extern "C" __global__ void cas_lanes(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS; ++i) v = atomicCAS(&p[row_of(v, i) * 32 + lane], v, v + 1u);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

extern "C" __global__ void add_one_lane(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  if (lane == 0)
    for (int i = 0; i < LINKS; ++i) v = atomicAdd(&p[row_of(v, i) * 32 + threadIdx.x / 32], 1u);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

extern "C" __global__ void ld_cg_lanes(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS; ++i) v += __ldcg(&p[row_of(v, i) * 32 + lane]);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

extern "C" __global__ void touch(unsigned* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = 0u;
}

