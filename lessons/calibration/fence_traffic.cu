// Calibration (issue 25): what a __threadfence() (MEMBAR.SC.GPU) costs while other warps of its
// SM (or other SMs) keep memory busy. scan_lookback's fence + final store take about 960 cycles on
// the H100 (scripts/microbench/h100-acc5-2026-11-27.md) where a fence alone takes 618.
//   warplab run lessons/calibration/fence_traffic.toml [--backend gpu] --dump DIR
// out[b * 4 + {0, 1}] of block b: warp 0's clock64 span of a loop of 32 fences (lane 0, after a
// 2000-cycle start so that the other warps are busy), and of 32 volatile stores + fences (the
// scan's publish); divide by 32.
// The other warps of the block (blockDim / 32 - 1) meanwhile, by MODE:
//   0: nothing (they exit); 1: stream coalesced stores (a line a warp instruction, 4096 each);
//   2: stream coalesced loads (independent, 16 at once, from DRAM); 3: fence in a loop.
extern "C" __global__ void fence_traffic(float* buf, long long* out, int mode, int lines_per_warp) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, W = blockDim.x >> 5;
  float* mine = buf + ((long long)blockIdx.x * W + w) * lines_per_warp * 32;
  if (w != 0) {
    if (mode == 1) {
      for (int i = 0; i < lines_per_warp; ++i) mine[i * 32 + lane] = (float)i;
    } else if (mode == 2) {
      float s = 0.f;
      for (int i = 0; i < lines_per_warp; i += 16) {
        float v[16];
#pragma unroll
        for (int k = 0; k < 16; ++k) v[k] = mine[(i + k) * 32 + lane];
#pragma unroll
        for (int k = 0; k < 16; ++k) s += v[k];
      }
      if (s == -1.f) out[1023] = 1;
    } else if (mode == 3) {
      for (int i = 0; i < 256; ++i) __threadfence();
    }
    return;
  }
  if (lane != 0) return;
  const long long t = clock64();
  while (clock64() - t < 2000) {
  }
  volatile float* q = buf + (long long)blockIdx.x * W * lines_per_warp * 32;
  long long a = clock64();
#pragma unroll 1
  for (int i = 0; i < 32; ++i) __threadfence();
  long long b = clock64();
  const long long f = b - a;
  a = clock64();
#pragma unroll 1
  for (int i = 0; i < 32; ++i) {
    q[0] = (float)i;
    __threadfence();
  }
  b = clock64();
  const long long sf = b - a;
  out[blockIdx.x * 4 + 0] = f;
  out[blockIdx.x * 4 + 1] = sf;
}
