// Calibration (issue 25): what a __threadfence() (MEMBAR.SC.GPU) waits for. fence_traffic.cu
// showed a fence slowed by its SM's other warps' stores (+335 cycles with 7 warps streaming) and
// fences, not by its own store (+4). This one pins the rule down with known backlogs.
//   warplab run scripts/microbench/fence_drain/fence_drain.toml [--backend gpu] --dump DIR
//   python3 scripts/microbench/fence_drain_summary.py DIR
// One block; 16 rounds, each after a 4000-cycle quiet start and a block barrier. Per round r,
// out[r * 8 + j] (clock64 spans of lane 0):
//   MODE 0 (own stores): warp 0 issues K line stores (a warp instruction a 128-byte line), then
//     fences: j=0 the stores' issue span, j=1 the fence.
//   MODE 1 (another warp's stores): warp 1 issues K line stores and arrives at a barrier; warp 0
//     fences right after the barrier: j=1 the fence, j=2 warp 1's issue span.
//   MODE 2 (another warp's fence D cycles earlier): after the barrier warp 1 fences at once (j=3
//     its fence), warp 0 waits D cycles, then fences (j=1).
//   MODE 3 (stream rate): warps 1..W-1 each issue K line stores, then fence: j=4 warp 1's issue
//     span, j=5 its fence, j=6 the last warp's issue span; warp 0 fences D cycles after the
//     barrier (j=1).
//   MODE 4, 5: as 3 with other stores: float4 (512 bytes a warp instruction, K of them) or one
//     word on each of 32 lines a warp instruction (K of them).
extern "C" __global__ void fence_drain(float* buf, long long* out, int mode, int k, int d) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, W = blockDim.x >> 5;
  float* mine = buf + (long long)w * 8192 * 32;
  for (int r = 0; r < 16; ++r) {
    if (w == 0) {
      const long long t = clock64();
      while (clock64() - t < 4000) {
      }
    }
    __syncthreads();
    float* p = mine + (long long)(r & 1) * 4096 * 32;
    if (mode == 0) {
      if (w == 0) {
        const long long a = clock64();
        for (int i = 0; i < k; ++i) p[i * 32 + lane] = (float)i;
        const long long b = clock64();
        __threadfence();
        const long long c = clock64();
        if (lane == 0) out[r * 8 + 0] = b - a, out[r * 8 + 1] = c - b;
      }
    } else if (mode == 1) {
      long long a = 0, b = 0;
      if (w == 1) {
        a = clock64();
        for (int i = 0; i < k; ++i) p[i * 32 + lane] = (float)i;
        b = clock64();
      }
      __syncthreads();
      if (w == 0) {
        const long long s = clock64();
        __threadfence();
        const long long c = clock64();
        if (lane == 0) out[r * 8 + 1] = c - s;
      }
      if (w == 1 && lane == 0) out[r * 8 + 2] = b - a;
    } else if (mode == 2) {
      if (w == 1) {
        const long long a = clock64();
        __threadfence();
        const long long b = clock64();
        if (lane == 0) out[r * 8 + 3] = b - a;
      } else if (w == 0) {
        const long long t = clock64();
        while (clock64() - t < d) {
        }
        const long long s = clock64();
        __threadfence();
        const long long c = clock64();
        if (lane == 0) out[r * 8 + 1] = c - s;
      }
    } else {
      if (w >= 1) {
        const long long a = clock64();
        if (mode == 4) {
          float4* q = reinterpret_cast<float4*>(p);
          for (int i = 0; i < k; ++i) q[i * 32 + lane] = make_float4(i, i, i, i);
        } else if (mode == 5) {
          for (int i = 0; i < k; ++i) p[(i * 32 + lane) * 32] = (float)i;
        } else {
          for (int i = 0; i < k; ++i) p[i * 32 + lane] = (float)i;
        }
        const long long b = clock64();
        __threadfence();
        const long long c = clock64();
        if (lane == 0 && w == 1) out[r * 8 + 4] = b - a, out[r * 8 + 5] = c - b;
        if (lane == 0 && w == W - 1) out[r * 8 + 6] = b - a;
      } else {
        const long long t = clock64();
        while (clock64() - t < d) {
        }
        const long long s = clock64();
        __threadfence();
        const long long c = clock64();
        if (lane == 0) out[r * 8 + 1] = c - s;
      }
    }
    __syncthreads();
  }
}
