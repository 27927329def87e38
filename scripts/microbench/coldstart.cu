// WarpLab microbenchmarks: what a "cold" start costs, and what the flush itself leaves behind.
//
//   nvcc -O3 -arch=sm_90 -I. -o coldstart scripts/microbench/coldstart.cu && ./coldstart > cold.tsv
//   ./coldstart naive K   -- one matmul_naive launch at 256 x 256 x K (for ncu --cache-control)
//
// Each row: kernel, parameters, mode, median / min / max microseconds of 20 launches after 3
// warm-ups. Modes, applied before every timed launch and outside its events:
//   warm:  nothing (the L2 keeps what the previous launch left);
//   dirty: a 256 MiB memset, Triton's do_bench flush: the L2 ends full of *modified* lines of the
//          flush buffer, which the timed kernel must write back to DRAM as it evicts them;
//   clean: a kernel that reads a 256 MiB buffer: the L2 ends full of unmodified lines, which the
//          timed kernel evicts for free (an empty L2, as far as the timed kernel can tell).
// The difference dirty - clean is the write-back of the flush's lines; clean - warm is the cost
// of fetching the kernel's own data from DRAM (latency and bandwidth).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "lessons/05-shared-memory-tiling/matmul.cu"

#include "event_timer.h"

// Reads n 16-byte words; one word per block goes out only if the XOR of its reads is a value
// the data never gives, so the loads cannot be removed and nothing is written.
extern "C" __global__ void read_all(const uint4* x, long n, unsigned* out) {
  unsigned acc = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    uint4 v = x[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) out[blockIdx.x] = acc;
}
extern "C" __global__ void copy4(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

static const size_t kFlush = 256u << 20;
static void* g_flush = nullptr;
static unsigned* g_sink = nullptr;

enum Mode { kWarm, kDirty, kClean };
static const char* mode_name(Mode m) { return m == kWarm ? "warm" : m == kDirty ? "dirty" : "clean"; }

static void flush(Mode m, int i) {
  if (m == kDirty) CK(cudaMemsetAsync(g_flush, i, kFlush));
  if (m == kClean) read_all<<<1056, 512>>>((const uint4*)g_flush, kFlush / 16, g_sink);
}

static void timeit(const char* name, const char* params, Mode m, const std::function<void()>& launch) {
  const std::vector<float> t = time_launches([m](int i) { flush(m, i); }, launch);
  printf("%s\t%s\t%s\t%.2f\t%.2f\t%.2f\n", name, params, mode_name(m), t[10], t[0], t[19]);
  fflush(stdout);
}

int main(int argc, char** argv) {
  CK(cudaMalloc(&g_flush, kFlush));
  CK(cudaMemset(g_flush, 1, kFlush));
  CK(cudaMalloc(&g_sink, 1 << 20));
  const long N = 1L << 25;  // 128 MiB of floats
  float *x, *y;
  CK(cudaMalloc(&x, N * 4));
  CK(cudaMalloc(&y, N * 4));
  CK(cudaMemset(x, 0, N * 4));
  const int M = 256, Nc = 256, Kmax = 1024;
  float *A, *B, *C;
  CK(cudaMalloc(&A, M * Kmax * 4));
  CK(cudaMalloc(&B, Kmax * Nc * 4));
  CK(cudaMalloc(&C, M * Nc * 4));
  {
    std::vector<float> h(M * Kmax);
    for (size_t i = 0; i < h.size(); ++i) h[i] = float((i * 2654435761u) % 1000) / 1000.f - 0.5f;
    CK(cudaMemcpy(A, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  }
  dim3 blk(16, 16), grd(Nc / 16, M / 16);
  if (argc >= 3 && strcmp(argv[1], "naive") == 0) {  // one launch, for ncu
    int K = atoi(argv[2]);
    matmul_naive<<<grd, blk>>>(A, B, C, M, Nc, K);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0;
  cudaDriverGetVersion(&drv);
  printf("# device\t%s\tSMs %d\tL2 %d\tdriver-api %d\n", p.name, p.multiProcessorCount,
         p.l2CacheSize, drv);
  printf("# kernel\tparams\tmode\tmedian_us\tmin_us\tmax_us\n");
  char prm[128];
  for (Mode m : {kWarm, kDirty, kClean}) {
    for (long mib : {1L, 4L, 32L, 128L}) {
      long n = mib << 20;
      snprintf(prm, sizeof prm, "MiB=%ld", mib);
      timeit("read_all", prm, m, [&] { read_all<<<(int)std::min(n / 16 / 256, 4096L), 256>>>((const uint4*)x, n / 16, g_sink); });
      timeit("copy", prm, m, [&] { copy4<<<(int)(n / 4 / 256), 256>>>(x, y, n / 4); });
    }
    for (int K : {64, 256, 1024}) {
      snprintf(prm, sizeof prm, "M=256 N=256 K=%d", K);
      timeit("matmul_naive", prm, m, [&] { matmul_naive<<<grd, blk>>>(A, B, C, M, Nc, K); });
      timeit("matmul_tiled", prm, m, [&] { matmul_tiled<<<grd, blk>>>(A, B, C, M, Nc, K); });
    }
  }
  return 0;
}
