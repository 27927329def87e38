// WarpLab microbenchmark (issue 25): what loops and per-thread walks cost once ptxas has compiled
// them, timed with clock64() inside the kernel (SM cycles; one block on one SM).
//
//   nvcc -O3 -arch=sm_90 -o loops loops.cu && ./loops > loops.csv
//   cuobjdump -sass loops   (ptxas's unrolling, remainder loops and hoisted loads per kernel)
//
// loop_*: one FFMA chain of n links, n read from memory (a data-dependent trip count):
//   loop_runtime   plain `for (i < n)`: ptxas unrolls by 4 with a remainder loop;
//   loop_nounroll  `#pragma unroll 1`: a compare and branch per link;
//   loop_const     n a compile-time constant (1024): fully unrolled in bodies of 16, no remainder;
//   cycles_per_op is (cycles of the loop) / n; its excess over the FFMA chain is the loop overhead.
// walk_*: thread t sums its own `chunk` consecutive ints (a per-thread sequential walk: each warp
//   step touches 32 lines, reused by the next 31 steps from L1), warps = 1, 4, 16, 32 in one block;
//   chunk 1 is the coalesced baseline (warp w reads 32 consecutive ints per step, stride 32 warps).
//   cycles_per_op: cycles / steps per warp; l1 lines touched per step = 32 for chunk >= 32.
//   `cold` runs straight after an L2 flush (DRAM), `warm` after a first pass (L2 and L1 warm).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../cuda_check.h"

__global__ void loop_runtime(const int* n_ptr, float a, float b, long long* cycles, float* sink) {
  int n = *n_ptr;
  float v = (float)threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < n; ++i) v = fmaf(v, a, b);
  long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[threadIdx.x / 32] = t1 - t0;
  if (v == 1234.5f) sink[threadIdx.x] = v;
}

__global__ void loop_nounroll(const int* n_ptr, float a, float b, long long* cycles, float* sink) {
  int n = *n_ptr;
  float v = (float)threadIdx.x;
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < n; ++i) v = fmaf(v, a, b);
  long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[threadIdx.x / 32] = t1 - t0;
  if (v == 1234.5f) sink[threadIdx.x] = v;
}

__global__ void loop_const(const int* n_ptr, float a, float b, long long* cycles, float* sink) {
  float v = (float)threadIdx.x;
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < 1024; ++i) v = fmaf(v, a, b);
  long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[threadIdx.x / 32] = t1 - t0;
  if (v == 1234.5f) sink[threadIdx.x] = v + (float)*n_ptr;
}

__global__ void walk(const int* x, int chunk, int steps, long long* cycles, int* sink) {
  int t = threadIdx.x;
  const int* p = chunk == 1 ? x + t : x + (size_t)t * chunk;
  int stride = chunk == 1 ? blockDim.x : 1;
  int s = 0;
  long long t0 = clock64();
  for (int k = 0; k < steps; ++k) s += p[(size_t)k * stride];
  long long t1 = clock64();
  if (t % 32 == 0) cycles[t / 32] = t1 - t0;
  if (s == 0x7fffffff) sink[t] = s;
}

__global__ void flush(const int4* buf, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    int4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) sink[0] = acc;
}

static double median_of(long long* d_cycles, int warps, double per) {
  std::vector<long long> c(warps);
  CK(cudaMemcpy(c.data(), d_cycles, warps * sizeof(long long), cudaMemcpyDeviceToHost));
  std::sort(c.begin(), c.end());
  return c[warps / 2] / per;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  long long* d_cycles;
  float* d_fsink;
  int *d_isink, *d_n;
  CK(cudaMalloc(&d_cycles, 64 * sizeof(long long)));
  CK(cudaMalloc(&d_fsink, 1024 * sizeof(float)));
  CK(cudaMalloc(&d_isink, 1024 * sizeof(int)));
  CK(cudaMalloc(&d_n, sizeof(int)));
  int n = 1024;
  CK(cudaMemcpy(d_n, &n, sizeof(int), cudaMemcpyHostToDevice));
  printf("# device,%s\n", prop.name);
  printf("kernel,param,warps,cycles_per_op_median\n");
  using Loop = void (*)(const int*, float, float, long long*, float*);
  struct {
    const char* name;
    Loop k;
  } loops[] = {{"loop_runtime", loop_runtime}, {"loop_nounroll", loop_nounroll}, {"loop_const", loop_const}};
  for (auto& l : loops) {
    for (int warps : {4, 8, 16}) {
      for (int rep = 0; rep < 2; ++rep) l.k<<<1, warps * 32>>>(d_n, 0.999f, 0.001f, d_cycles, d_fsink);
      CK(cudaDeviceSynchronize());
      printf("%s,n=%d,%d,%.2f\n", l.name, n, warps, median_of(d_cycles, warps, n));
    }
  }
  // Per-thread walks: 1024 threads x chunk 1024 ints at most = 4 MiB.
  size_t words = 1024 * 1024;
  int* d_x;
  CK(cudaMalloc(&d_x, words * sizeof(int)));
  CK(cudaMemset(d_x, 1, words * sizeof(int)));
  size_t flush_bytes = (size_t)2 * prop.l2CacheSize;
  int4* d_flush;
  CK(cudaMalloc(&d_flush, flush_bytes));
  CK(cudaMemset(d_flush, 0, flush_bytes));
  const int steps = 256;
  for (int chunk : {1, 32, 64, 256, 1024}) {
    for (int warps : {1, 4, 16, 32}) {
      for (int warm = 0; warm < 2; ++warm) {
        flush<<<prop.multiProcessorCount * 4, 256>>>(d_flush, flush_bytes / 16, d_isink);
        if (warm) walk<<<1, warps * 32>>>(d_x, chunk, steps, d_cycles, d_isink);
        walk<<<1, warps * 32>>>(d_x, chunk, steps, d_cycles, d_isink);
        CK(cudaDeviceSynchronize());
        printf("walk_%s,chunk=%d,%d,%.2f\n", warm ? "warm" : "cold", chunk, warps,
               median_of(d_cycles, warps, steps));
      }
    }
  }
  return 0;
}
