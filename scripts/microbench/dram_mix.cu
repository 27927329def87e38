// WarpLab microbenchmark: DRAM bandwidth by the mix of reads and writes. Streams of float4, one
// per thread, over 512 MiB arrays (10x the L2): read only, write only, copy (1 read : 1 write),
// z = x + y (2 : 1), w = x + y + z (3 : 1), and y = z = x (1 : 2).
//
//   nvcc -O3 -arch=sm_90 -o dram_mix dram_mix.cu && ./dram_mix
//
// Prints microseconds (median of 20 launches after 3 warm-ups; the arrays are far larger than the
// L2, so every launch streams from DRAM) and GB/s read, written and in all.
#include <cuda_runtime.h>

#include <cstdio>

#include "event_timer.h"

__global__ void rd(const float4* x, float* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4 v = x[i];
  const float s = (v.x + v.y) + (v.z + v.w);
  if (s == -1.f) out[0] = s;  // never: keeps the load
}
__global__ void wr(float4* y) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  y[i] = make_float4(1.f, 2.f, 3.f, 4.f);
}
__global__ void copy(const float4* x, float4* y) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  y[i] = x[i];
}
__global__ void add2(const float4* x, const float4* y, float4* z) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4 a = x[i], b = y[i];
  z[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__global__ void add3(const float4* x, const float4* y, const float4* z, float4* w) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4 a = x[i], b = y[i], c = z[i];
  w[i] = make_float4(a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z, a.w + b.w + c.w);
}
__global__ void fan(const float4* x, float4* y, float4* z) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const float4 a = x[i];
  y[i] = a;
  z[i] = a;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\n", prop.name);
  printf("kernel\treads\twrites\tus\tread_GBps\twrite_GBps\ttotal_GBps\n");
  const size_t n4 = (size_t(512) << 20) / sizeof(float4);
  float4* a[4];
  for (auto& p : a) {
    CK(cudaMalloc(&p, n4 * sizeof(float4)));
    CK(cudaMemset(p, 0, n4 * sizeof(float4)));
  }
  float* out;
  CK(cudaMalloc(&out, 4));
  const unsigned blocks = unsigned(n4 / 256);
  auto report = [&](const char* name, int reads, int writes, const std::vector<float>& t) {
    const double us = t[10], bytes = double(n4) * sizeof(float4);
    printf("%s\t%d\t%d\t%.1f\t%.0f\t%.0f\t%.0f\n", name, reads, writes, us, reads * bytes / us / 1e3,
           writes * bytes / us / 1e3, (reads + writes) * bytes / us / 1e3);
  };
  report("read", 1, 0, time_launches(nullptr, [&] { rd<<<blocks, 256>>>(a[0], out); }));
  report("write", 0, 1, time_launches(nullptr, [&] { wr<<<blocks, 256>>>(a[1]); }));
  report("copy", 1, 1, time_launches(nullptr, [&] { copy<<<blocks, 256>>>(a[0], a[1]); }));
  report("add2", 2, 1, time_launches(nullptr, [&] { add2<<<blocks, 256>>>(a[0], a[1], a[2]); }));
  report("add3", 3, 1,
         time_launches(nullptr, [&] { add3<<<blocks, 256>>>(a[0], a[1], a[2], a[3]); }));
  report("fan", 1, 2, time_launches(nullptr, [&] { fan<<<blocks, 256>>>(a[0], a[1], a[2]); }));
  return 0;
}
