// WarpLab microbenchmark (mma5, issue 23): the SM clock a kernel actually runs at, read inside the
// kernel: each block's thread 0 reads clock64 and %globaltimer (ns) when it starts and when it
// ends; cycles / nanoseconds over a long enough block is the SM clock in GHz. Run for lesson 17's
// mma.sync matmul (tc_matmul.cu: the same body, stamped only at start and end), its SIMT matmul and
// an FFMA loop (no memory), cold and warm L2, at 256 and 1024. If the SM runs below the 1980 MHz
// that the model's presets assume, simulated cycles convert to time with the wrong clock.
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -I. -o sm_clock sm_clock.cu && ./sm_clock
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
// lesson 17's kernels as inlined device functions, called by the stamped kernels below
#pragma push_macro("__global__")
#pragma push_macro("__launch_bounds__")
#undef __global__
#define __global__ __device__ __forceinline__
#undef __launch_bounds__
#define __launch_bounds__(...)
#include "tc_matmul.cu"
#pragma pop_macro("__launch_bounds__")
#pragma pop_macro("__global__")
#include "cuda_check.h"

__device__ __forceinline__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory"); return t; }
__device__ __forceinline__ long long clk() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory"); return t; }

// stamps: per block, [clock start, globaltimer start, clock end, globaltimer end]
#define STAMP_BEGIN long long c0 = clk(); unsigned long long g0 = gtime();
#define STAMP_END                                                                       \
  __syncthreads();                                                                      \
  if (threadIdx.x == 0 && threadIdx.y == 0) {                                          \
    long long c1 = clk(); unsigned long long g1 = gtime();                              \
    long long* s = st + 4 * (blockIdx.y * gridDim.x + blockIdx.x);                      \
    s[0] = c0; s[1] = (long long)g0; s[2] = c1; s[3] = (long long)g1;                   \
  }

extern "C" __global__ void mma_clocked(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K, long long* st) {
  STAMP_BEGIN
  matmul_mma_bf16(A, B, C, M, N, K);
  STAMP_END
}
extern "C" __global__ void simt_clocked(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K, long long* st) {
  STAMP_BEGIN
  matmul_simt_bf16(A, B, C, M, N, K);
  STAMP_END
}
extern "C" __global__ void ffma_clocked(float* out, int iters, long long* st) {
  STAMP_BEGIN
  float a = threadIdx.x, b = 1.0001f;
  for (int i = 0; i < iters; ++i) { a = a * b + 0.5f; b = b * a + 0.25f; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
  STAMP_END
}

static void report(const char* what, int n, const char* l2, long long* dst, int blocks, float ms) {
  std::vector<long long> s(4 * blocks);
  CK(cudaMemcpy(s.data(), dst, s.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<double> ghz; long long cyc_max = 0; double ns_max = 0;
  for (int b = 0; b < blocks; ++b) {
    long long dc = s[4 * b + 2] - s[4 * b], dg = s[4 * b + 3] - s[4 * b + 1];
    if (dg > 0) ghz.push_back(double(dc) / double(dg));
    cyc_max = std::max(cyc_max, dc); ns_max = std::max(ns_max, double(dg));
  }
  std::sort(ghz.begin(), ghz.end());
  printf("clock\t%s\t%d\t%s\tblocks=%d\tghz_median=%.3f\tghz_min=%.3f\tghz_max=%.3f\tblock_cycles_max=%lld\tblock_ns_max=%.0f\tevent_us=%.2f\n", what, n, l2,
         blocks, ghz.empty() ? 0 : ghz[ghz.size() / 2], ghz.empty() ? 0 : ghz.front(), ghz.empty() ? 0 : ghz.back(), cyc_max, ns_max, ms * 1000);
}

int main() {
  const int maxn = 1024;
  unsigned short *A, *B; float* C; long long* st; char* flush; float* out;
  CK(cudaMalloc(&A, maxn * maxn * 2)); CK(cudaMalloc(&B, maxn * maxn * 2)); CK(cudaMalloc(&C, maxn * maxn * 4));
  CK(cudaMalloc(&st, 4 * 4096 * 8)); CK(cudaMalloc(&flush, 256 << 20)); CK(cudaMalloc(&out, 1 << 24));
  std::vector<unsigned short> h(maxn * maxn);
  for (size_t i = 0; i < h.size(); ++i) h[i] = 16000 + (i * 2654435761u >> 20) % 256;
  CK(cudaMemcpy(A, h.data(), h.size() * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(B, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  printf("# clock\tkernel\tn\tl2\tper-block clock64 cycles / globaltimer ns (thread 0, start to end)\n");
  for (int rep = 0; rep < 3; ++rep)
    for (int n : {256, 1024})
      for (int cold = 1; cold >= 0; --cold)
        for (int k = 0; k < 3; ++k) {
          dim3 g(n / 64, n / 64);
          if (cold) CK(cudaMemset(flush, rep, 256 << 20));
          CK(cudaEventRecord(e0));
          if (k == 0) mma_clocked<<<g, 128>>>(A, B, C, n, n, n, st);
          if (k == 1) simt_clocked<<<g, dim3(16, 16)>>>(A, B, C, n, n, n, st);
          if (k == 2) ffma_clocked<<<g.x * g.y, 128>>>(out, n == 256 ? 4000 : 16000, st);
          CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
          float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
          report(k == 0 ? "mma" : k == 1 ? "simt" : "ffma", n, cold ? "cold" : "warm", st, g.x * g.y, ms);
        }
  return 0;
}
