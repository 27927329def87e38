// WarpLab microbenchmark (mma5, issue 23), second part of sm_clock.cu: which tensor-core work
// lowers the H100's SM clock, and how fast the clock follows it. clock64 against %globaltimer (ns),
// thread 0 of each block:
//   phases     16 blocks: FFMA loop, mma.sync loop, FFMA loop, FFMA loop (~5 us each), a stamp
//              between phases: the clock in each phase (does it drop at the first HMMA, and come
//              back when the HMMAs stop?)
//   dense      132 blocks x 4 warps of back-to-back independent mma.sync (the tensor pipe full)
//   one_warp   1 block of one warp, a dependent mma.sync chain (t.mma_lat's shape)
//   wgmma      lesson 17's wgmma matmul (tc_matmul.cu, inlined), 256 and 1024
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -I. -o sm_clock2 sm_clock2.cu && ./sm_clock2
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
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
#define STAMP(k) do { __syncthreads(); if (threadIdx.x == 0) { long long* s = st + 16 * blockIdx.x; s[2 * (k)] = clk(); s[2 * (k) + 1] = (long long)gtime(); } } while (0)

__device__ __forceinline__ float ffma_loop(float a, int iters) {
  float b = 1.0001f;
  for (int i = 0; i < iters; ++i) { a = a * b + 0.5f; b = b * a + 0.25f; }
  return a + b;
}
__device__ __forceinline__ void mma_loop(float* acc, int iters) {
  unsigned a0 = threadIdx.x, a1 = a0 * 3, a2 = a0 * 5, a3 = a0 * 7, b0 = a0 * 11, b1 = a0 * 13;
  for (int i = 0; i < iters; ++i)
#pragma unroll
    for (int c = 0; c < 4; ++c)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(acc[4 * c]), "+f"(acc[4 * c + 1]), "+f"(acc[4 * c + 2]), "+f"(acc[4 * c + 3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

extern "C" __global__ void phases(float* out, int ffma_iters, int mma_iters, long long* st) {
  float acc[16] = {};
  float a = threadIdx.x;
  STAMP(0);
  a = ffma_loop(a, ffma_iters);
  STAMP(1);
  mma_loop(acc, mma_iters);
  STAMP(2);
  a = ffma_loop(a + acc[0], ffma_iters);
  STAMP(3);
  a = ffma_loop(a, ffma_iters);
  STAMP(4);
  float s = a;
  for (int i = 0; i < 16; ++i) s += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void dense(float* out, int mma_iters, long long* st) {
  float acc[16] = {};
  STAMP(0);
  mma_loop(acc, mma_iters);
  STAMP(1);
  float s = 0;
  for (int i = 0; i < 16; ++i) s += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void one_warp(float* out, int iters, long long* st) {
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  unsigned a0 = threadIdx.x, b0 = a0 * 3;
  STAMP(0);
  for (int i = 0; i < iters; ++i)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a0), "r"(b0));
  STAMP(1);
  out[threadIdx.x] = c0 + c1 + c2 + c3;
}
extern "C" __global__ void __launch_bounds__(128) wg_clocked(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K, long long* st) {
  STAMP(0);
  matmul_wgmma_bf16(A, B, C, M, N, K);
  STAMP(1);
}

static void report(const char* what, const char* cfg, long long* dst, int blocks, int stamps, float ms) {
  std::vector<long long> s(16 * blocks);
  CK(cudaMemcpy(s.data(), dst, s.size() * 8, cudaMemcpyDeviceToHost));
  printf("%s\t%s\tblocks=%d\tevent_us=%.2f", what, cfg, blocks, ms * 1000);
  for (int k = 0; k + 1 < stamps; ++k) {
    std::vector<double> ghz; double ns = 0;
    for (int b = 0; b < blocks; ++b) {
      long long dc = s[16 * b + 2 * (k + 1)] - s[16 * b + 2 * k], dg = s[16 * b + 2 * (k + 1) + 1] - s[16 * b + 2 * k + 1];
      if (dg > 0) ghz.push_back(double(dc) / double(dg));
      ns = std::max(ns, double(dg));
    }
    std::sort(ghz.begin(), ghz.end());
    printf("\tphase%d: ghz_median=%.3f min=%.3f max=%.3f ns_max=%.0f", k, ghz.empty() ? 0 : ghz[ghz.size() / 2], ghz.empty() ? 0 : ghz.front(), ghz.empty() ? 0 : ghz.back(), ns);
  }
  printf("\n");
}

int main() {
  const int maxn = 1024;
  unsigned short *A, *B; float *C, *out; long long* st;
  CK(cudaMalloc(&A, maxn * maxn * 2)); CK(cudaMalloc(&B, maxn * maxn * 2)); CK(cudaMalloc(&C, maxn * maxn * 4));
  CK(cudaMalloc(&out, 1 << 24)); CK(cudaMalloc(&st, 16 * 4096 * 8));
  std::vector<unsigned short> h(maxn * maxn);
  for (size_t i = 0; i < h.size(); ++i) h[i] = 16000 + (i * 2654435761u >> 20) % 256;
  CK(cudaMemcpy(A, h.data(), h.size() * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(B, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  printf("# kernel\tsetup\tper phase: clock64 cycles / globaltimer ns of thread 0 (median over blocks)\n");
  for (int rep = 0; rep < 3; ++rep) {
    float ms;
    auto timed = [&](auto launch) { CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); };
    timed([&] { phases<<<16, 128>>>(out, 5000, 1500, st); });
    report("phases", "16x128 ffma|mma|ffma|ffma", st, 16, 5, ms);
    timed([&] { dense<<<132, 128>>>(out, 4000, st); });
    report("dense", "132x128 mma.sync x4 chains", st, 132, 2, ms);
    timed([&] { one_warp<<<1, 32>>>(out, 2000, st); });
    report("one_warp", "1x32 dependent mma.sync", st, 1, 2, ms);
    for (int n : {256, 1024}) {
      timed([&] { wg_clocked<<<dim3(n / 128, n / 64), 128>>>(A, B, C, n, n, n, st); });
      char cfg[32]; snprintf(cfg, sizeof cfg, "n=%d", n);
      report("wgmma", cfg, st, (n / 128) * (n / 64), 2, ms);
    }
  }
  return 0;
}
