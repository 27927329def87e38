// WarpLab microbenchmark: how many bytes of DRAM loads one SM keeps in flight. `sms` blocks of 32
// warps (one block per SM, 8 SMs: far from DRAM's limit), each thread issuing `k` independent
// float4 loads per step over its block's own 64 MiB region (every load a DRAM miss). A warp's
// float4 load covers 4 lines, so one SM asks for 32 x k x 4 lines at a time: 128 (k = 1) to 4096
// (k = 32). Bandwidth per SM grows with k until the SM's own limit on outstanding misses (or its
// fill bandwidth) stops it.
//
//   nvcc -O3 -arch=sm_90 -o inflight inflight.cu && ./inflight
#include <cuda_runtime.h>

#include <cstdio>

#include "event_timer.h"

template <int K>
__global__ void stream(const float4* x, float* out, size_t per_block) {
  const float4* base = x + blockIdx.x * per_block;
  float s = 0.f;
  const size_t step = size_t(blockDim.x) * K;
  for (size_t i = threadIdx.x; i + (K - 1) * blockDim.x < per_block; i += step) {
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = base[i + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < K; ++k) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  if (s == -1.f) out[0] = s;  // never: keeps the loads
}

template <int K>
void run(const float4* x, float* out, size_t per_block, int sms) {
  auto t = time_launches(nullptr, [&] { stream<K><<<sms, 1024>>>(x, out, per_block); });
  const double us = t[10], bytes = double(per_block) * sizeof(float4);
  printf("%d\t%d\t%d\t%.1f\t%.1f\t%.2f\n", sms, K, 32 * K * 4, us, bytes / us / 1e3,
         bytes / (us * 1.98e3) /* bytes per SM cycle at 1980 MHz */);
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\n", prop.name);
  printf("sms\tk\tlines_asked_per_sm\tus\tGBps_per_sm\tbytes_per_sm_cycle\n");
  const int sms = 8;
  const size_t per_block = (size_t(64) << 20) / sizeof(float4);
  float4* x;
  float* out;
  CK(cudaMalloc(&x, per_block * sms * sizeof(float4)));
  CK(cudaMemset(x, 0, per_block * sms * sizeof(float4)));
  CK(cudaMalloc(&out, 4));
  run<1>(x, out, per_block, sms);
  run<2>(x, out, per_block, sms);
  run<4>(x, out, per_block, sms);
  run<8>(x, out, per_block, sms);
  run<16>(x, out, per_block, sms);
  run<32>(x, out, per_block, sms);
  return 0;
}
