// WarpLab microbenchmarks: one mechanism per kernel, timed on a real GPU with CUDA events.
//
//   nvcc -O3 -arch=sm_90 -o micro micro.cu && ./micro > micro.tsv
//
// Each row: name, parameters, median / min / max microseconds of 20 launches after 3 warm-ups,
// and the operation count, so that ops per microsecond can be derived. Modes:
//   warm: the launches follow each other (the L2 keeps what the previous launch left);
//   cold: a 256 MiB buffer is written between launches (the L2 holds none of the kernel's data).
// The figures calibrate and validate mechanisms of WarpLab's timing model (sim/timing); they are
// committed as data with the device, driver and date the program prints first.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "event_timer.h"

// ---------------------------------------------------------------- kernels
// Global atomics: lane l of warp w adds to addr[(w * spread + l / k) % naddr]; k lanes share an
// address within the warp; `spread` addresses per warp (32/k for disjoint warps).
extern "C" __global__ void g_red(unsigned* a, int k, int spread, int naddr, int iters) {
  int lane = threadIdx.x & 31;
  long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
  unsigned idx = (unsigned)((w * spread + lane / k) % naddr);
  for (int it = 0; it < iters; ++it) atomicAdd(&a[idx], 1u);  // result unused: RED
}
extern "C" __global__ void g_atom(unsigned* a, unsigned* out, int k, int spread, int naddr,
                                  int iters) {
  int lane = threadIdx.x & 31;
  long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
  unsigned idx = (unsigned)((w * spread + lane / k) % naddr);
  unsigned s = 0;
  for (int it = 0; it < iters; ++it) s += atomicAdd(&a[idx], 1u);  // result used: ATOM
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// Shared atomics: k lanes of a warp per address, every warp of the block on the same addresses.
extern "C" __global__ void s_atom(unsigned* out, int k, int iters) {
  __shared__ unsigned h[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) h[i] = 0;
  __syncthreads();
  int lane = threadIdx.x & 31;
  unsigned idx = lane / k;
  for (int it = 0; it < iters; ++it) atomicAdd(&h[idx], 1u);
  __syncthreads();
  if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = h[threadIdx.x];
}
// Stores: y[(i * stride) % n] = i, 4 bytes per lane.
extern "C" __global__ void st_stride(float* y, long n, int stride) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  y[(i * stride) % n] = (float)i;
}
extern "C" __global__ void ld_stride(const float* x, float* y, long n, int stride) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  float v = x[(i * stride) % n];
  if (v == -1.0f) y[i] = v;  // never true: keeps the load without a store stream
}
// Reductions of blocks of 256: shared-memory tree (8 barrier rounds) vs warp shuffles.
extern "C" __global__ void red_tree(const float* x, float* out, long n) {
  __shared__ float s[256];
  long i = blockIdx.x * 256L + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int h = 128; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void red_shfl(const float* x, float* out, long n) {
  __shared__ float s[8];
  long i = blockIdx.x * 256L + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? s[threadIdx.x] : 0.f;
    for (int o = 4; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
// Atomic placement: warp w adds to line (w % nlines) of a region whose lines lie `stride_words`
// words apart, k lanes per address (32 / k addresses of that line). Which L2 slice serves a line
// depends on its address: the time against `stride_words` shows how lines spread over slices.
extern "C" __global__ void g_red_lines(unsigned* a, int nlines, int stride_words, int k, int iters) {
  int lane = threadIdx.x & 31;
  long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) >> 5;
  unsigned* p = a + (size_t)(w % nlines) * stride_words + lane / k;
  for (int it = 0; it < iters; ++it) atomicAdd(p, 1u);  // result unused: RED
}
// Stores and loads inside an L2-resident region: thread i touches word (i * stride) & mask of y,
// so with stride 8 or 32 each lane writes 4 bytes of its own sector (a partial-sector write)
// and many warps revisit the region's lines; nothing needs DRAM once the region is in the L2.
extern "C" __global__ void st_wrap(float* y, int stride, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[(i * stride) & mask] = (float)i;
}
extern "C" __global__ void ld_wrap(const float* x, float* y, int stride, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[(i * stride) & mask];
  if (v == -1.0f) y[i] = v;  // never true
}
extern "C" __global__ void empty_k() {}
extern "C" __global__ void vadd(const float* x, const float* y, float* z, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
// Barrier cost alone: `rounds` bar.syncs per block.
extern "C" __global__ void bars(float* out, int rounds) {
  __shared__ float s[1024];
  float v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    s[threadIdx.x] = v;
    __syncthreads();
    v += s[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
  }
  if (v == -1.f) out[0] = v;
}

// ---------------------------------------------------------------- timing
static void* g_flush = nullptr;
static const size_t kFlush = 256u << 20;

static void timeit(const char* name, const char* params, double ops, bool cold,
                   const std::function<void()>& launch) {
  auto flush = [](int i) { CK(cudaMemsetAsync(g_flush, i, kFlush)); };
  const std::vector<float> t = time_launches(cold ? std::function<void(int)>(flush) : nullptr,
                                             launch);
  printf("%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.0f\n", name, params, cold ? "cold" : "warm", t[10], t[0],
         t[19], ops);
  fflush(stdout);
}

int main(int argc, char** argv) {
  // Groups: "base" (sections 1-6), "placement" (section 7), "wrap" (section 8); none given: all.
  auto want = [&](const char* g) { return argc < 2 || strcmp(argv[1], g) == 0; };
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  printf("# device\t%s\tSMs %d\tdriver-api %d\truntime %d\n", p.name, p.multiProcessorCount, drv,
         rt);
  printf("# name\tparams\tmode\tmedian_us\tmin_us\tmax_us\tops\n");
  CK(cudaMalloc(&g_flush, kFlush));
  const long N = 1L << 24;
  unsigned *ua, *uo;
  float *x, *y, *z;
  CK(cudaMalloc(&ua, N * 4));
  CK(cudaMalloc(&uo, N * 4));
  CK(cudaMalloc(&x, 32 * N * 4));  // room for stride-32 addresses
  CK(cudaMalloc(&y, 32 * N * 4));
  CK(cudaMalloc(&z, N * 4));
  CK(cudaMemset(ua, 0, N * 4));
  CK(cudaMemset(x, 0, 32 * N * 4));
  char prm[256];

  // 1. Global atomics: threads T = 2^20, iters 4; k lanes per address.
  const int T = 1 << 20, iters = 4;
  if (want("base")) {
  for (int k : {1, 2, 4, 8, 16, 32}) {
    // (a) each warp its own addresses (no contention between warps).
    int spread = 32 / k, naddr = (T / 32) * spread;
    snprintf(prm, sizeof prm, "k=%d private T=%d iters=%d", k, T, iters);
    timeit("g_red", prm, double(T) * iters, false,
           [&] { g_red<<<T / 256, 256>>>(ua, k, spread, naddr, iters); });
    timeit("g_atom", prm, double(T) * iters, false,
           [&] { g_atom<<<T / 256, 256>>>(ua, uo, k, spread, naddr, iters); });
  }
  // (b) all warps on the same 32/k addresses (contention between warps too).
  for (int k : {1, 4, 32}) {
    int spread = 0, naddr = 32 / k;
    snprintf(prm, sizeof prm, "k=%d shared-by-all naddr=%d T=%d iters=%d", k, naddr, T, iters);
    timeit("g_red", prm, double(T) * iters, false,
           [&] { g_red<<<T / 256, 256>>>(ua, k, spread, naddr, iters); });
    timeit("g_atom", prm, double(T) * iters, false,
           [&] { g_atom<<<T / 256, 256>>>(ua, uo, k, spread, naddr, iters); });
  }
  // (c) lanes each their own address, all warps over a small set (addresses 32..4096).
  for (int naddr : {32, 256, 4096, 65536}) {
    snprintf(prm, sizeof prm, "k=1 spread=32 naddr=%d T=%d iters=%d", naddr, T, iters);
    timeit("g_red", prm, double(T) * iters, false,
           [&] { g_red<<<T / 256, 256>>>(ua, 1, 32, naddr, iters); });
  }
  // 2. Shared atomics: 1024 blocks of 256, iters 16.
  for (int k : {1, 2, 4, 8, 16, 32}) {
    snprintf(prm, sizeof prm, "k=%d blocks=4096 iters=16", k);
    timeit("s_atom", prm, 4096.0 * 256 * 16, false, [&] { s_atom<<<4096, 256>>>(uo, k, 16); });
  }
  // 3. Strided stores and loads over n = 2^24 elements (the stride spreads lanes over lines).
  for (int s : {1, 2, 4, 8, 16, 32}) {
    snprintf(prm, sizeof prm, "stride=%d n=%ld", s, N);
    timeit("st_stride", prm, double(N), true,
           [&] { st_stride<<<N / 256, 256>>>(y, N * s, s); });
    timeit("ld_stride", prm, double(N), true,
           [&] { ld_stride<<<N / 256, 256>>>(x, y, N * s, s); });
  }
  // 4. Reductions over 2^24 and 2^20 floats, blocks of 256.
  for (long n : {1L << 20, 1L << 24}) {
    snprintf(prm, sizeof prm, "n=%ld", n);
    timeit("red_tree", prm, double(n), true, [&] { red_tree<<<n / 256, 256>>>(x, z, n); });
    timeit("red_shfl", prm, double(n), true, [&] { red_shfl<<<n / 256, 256>>>(x, z, n); });
    timeit("red_tree", prm, double(n), false, [&] { red_tree<<<n / 256, 256>>>(x, z, n); });
    timeit("red_shfl", prm, double(n), false, [&] { red_shfl<<<n / 256, 256>>>(x, z, n); });
  }
  // 5. Barrier rounds: 1024 blocks of 256, rounds 0, 16, 64.
  for (int r : {0, 16, 64}) {
    snprintf(prm, sizeof prm, "rounds=%d blocks=1024 block=256", r);
    timeit("bars", prm, double(r) * 2 * 1024, false, [&] { bars<<<1024, 256>>>(z, r); });
  }
  // 6. Tiny launches and L2-resident vec_add.
  timeit("empty", "grid=1 block=32", 1, false, [&] { empty_k<<<1, 32>>>(); });
  timeit("empty", "grid=132 block=256", 1, false, [&] { empty_k<<<132, 256>>>(); });
  timeit("empty", "grid=1320 block=256", 1, false, [&] { empty_k<<<1320, 256>>>(); });
  for (long n : {256L, 4096L, 65536L, 1L << 20, 1L << 22, 1L << 24}) {
    snprintf(prm, sizeof prm, "n=%ld", n);
    timeit("vadd", prm, double(n), false,
           [&] { vadd<<<(n + 255) / 256, 256>>>(x, y, z, n); });
    timeit("vadd", prm, double(n), true, [&] { vadd<<<(n + 255) / 256, 256>>>(x, y, z, n); });
  }
  }
  // 7. Atomic placement: every warp's RED goes to one of `nlines` lines `stride` bytes apart.
  if (want("placement")) {
    for (int k : {1, 32})
      for (int nlines : {1, 8, 64})
        for (int stride : {128, 512, 4096, 65536}) {
          snprintf(prm, sizeof prm, "k=%d nlines=%d stride=%dB T=%d iters=%d", k, nlines, stride, T,
                   iters);
          timeit("g_red_lines", prm, double(T) * iters, false,
                 [&] { g_red_lines<<<T / 256, 256>>>(ua, nlines, stride / 4, k, iters); });
        }
  }
  // 8. Partial-sector stores vs loads inside an 8 MiB region (L2-resident, warm): 2^22 threads.
  if (want("wrap")) {
    const unsigned mask = (8u << 20) / 4 - 1;
    const int threads = 1 << 22;
    for (int s : {1, 2, 8, 32}) {
      snprintf(prm, sizeof prm, "stride=%d region=8MiB T=%d", s, threads);
      timeit("st_wrap", prm, double(threads), false,
             [&] { st_wrap<<<threads / 256, 256>>>(y, s, mask); });
      timeit("ld_wrap", prm, double(threads), false,
             [&] { ld_wrap<<<threads / 256, 256>>>(x, y, s, mask); });
    }
  }
  return 0;
}
