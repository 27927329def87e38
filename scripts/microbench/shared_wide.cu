// WarpLab microbenchmark: how many shared-memory wavefronts a warp's 4-, 8- and 16-byte loads
// take, for lane patterns with broadcasts and bank conflicts (what a vector load such as
// matmul_tiled's LDS.128 of an A-tile row costs), with the whole warp or part of it.
//
//   nvcc -O3 -arch=sm_90 -o shared_wide shared_wide.cu && ./shared_wide
//   ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
//       smsp__inst_executed_op_shared_ld.sum ./shared_wide      (wavefronts per instruction)
//
// One block of 32 warps; every warp issues 8 independent loads per iteration (volatile inline
// PTX, so ptxas keeps each one), lane L reading element e(L) of the pattern. The shared pipe delivers one
// wavefront per cycle per SM, so cycles per warp load (the slowest warp's clock64 span over all
// warps' loads) is the wavefront count when the pipe is the limit.
#include <cuda_runtime.h>

#include <cstdio>

#include "event_timer.h"

constexpr int kWarps = 32, kIters = 256, kUnroll = 8;

template <int W>
__device__ __forceinline__ float lds(unsigned addr) {
  float a, b, c, d;
  if constexpr (W == 4) {
    asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(a) : "r"(addr));
    return a;
  } else if constexpr (W == 8) {
    asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "r"(addr));
    return a + b;
  } else {
    asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
                 : "r"(addr));
    return (a + b) + (c + d);
  }
}

template <int W>
__global__ void wide(const int* pattern, long long* span, float* sink) {
  __shared__ float4 s[1024];  // 16 KiB
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = make_float4(i, i, i, i);
  __syncthreads();
  const int e = pattern[threadIdx.x & 31];  // < 0: the lane sits the loop out
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(s)) + e * W;
  float acc = 0.f;
  __syncthreads();
  const long long t0 = clock64();
  if (e >= 0)
    for (int i = 0; i < kIters; ++i) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc += lds<W>(addr);
    }
  __syncwarp();
  const long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) span[threadIdx.x / 32] = t1 - t0;
  if (acc == -1.f) sink[threadIdx.x] = acc;
}

struct Pattern {
  const char* name;
  int (*e)(int lane, int w);  // element index (of W bytes) that lane reads
};

const Pattern kPatterns[] = {
    {"all_one_word", [](int, int) { return 0; }},
    {"halves_adjacent", [](int l, int) { return l / 16; }},
    {"halves_64B_apart", [](int l, int w) { return (l / 16) * (64 / w); }},
    {"halves_128B_apart", [](int l, int w) { return (l / 16) * (128 / w); }},
    {"quarters_adjacent", [](int l, int) { return l / 8; }},
    {"quarters_128B_apart", [](int l, int w) { return (l / 8) * (128 / w); }},
    {"alternate_2", [](int l, int) { return l % 2; }},
    {"alternate_2_128B_apart", [](int l, int w) { return (l % 2) * (128 / w); }},
    {"quarters_alternate", [](int l, int) { return (l / 8) % 2; }},
    {"pairs_16", [](int l, int) { return l / 2; }},
    {"fours_8", [](int l, int) { return l / 4; }},
    {"mod_8", [](int l, int) { return l % 8; }},
    {"mod_16", [](int l, int) { return l % 16; }},
    {"first_half_distinct", [](int l, int) { return l < 16 ? l : 0; }},
    {"distinct", [](int l, int) { return l; }},
    {"distinct_reversed", [](int l, int) { return 31 - l; }},
    {"distinct_stride_2", [](int l, int) { return 2 * l; }},
    // Part of the warp: the other lanes (-1) sit the loop out.
    {"distinct_lanes_0_3", [](int l, int) { return l < 4 ? l : -1; }},
    {"distinct_lanes_0_7", [](int l, int) { return l < 8 ? l : -1; }},
    {"distinct_lanes_0_15", [](int l, int) { return l < 16 ? l : -1; }},
    {"distinct_lanes_16_31", [](int l, int) { return l >= 16 ? l : -1; }},
    {"one_word_lanes_0_15", [](int l, int) { return l < 16 ? 0 : -1; }},
};

template <int W>
void run(int* d_pattern, long long* d_span, float* d_sink) {
  for (const Pattern& p : kPatterns) {
    int h[32];
    for (int l = 0; l < 32; ++l) h[l] = p.e(l, W);
    CK(cudaMemcpy(d_pattern, h, sizeof h, cudaMemcpyHostToDevice));
    wide<W><<<1, kWarps * 32>>>(d_pattern, d_span, d_sink);
    CK(cudaDeviceSynchronize());
    long long span[kWarps], worst = 0;
    CK(cudaMemcpy(span, d_span, sizeof span, cudaMemcpyDeviceToHost));
    for (long long x : span) worst = x > worst ? x : worst;
    printf("%d\t%s\t%.3f\n", W, p.name, double(worst) / (double(kWarps) * kIters * kUnroll));
  }
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\n", prop.name);
  printf("bytes\tpattern\tcycles_per_warp_load\n");
  int* d_pattern;
  long long* d_span;
  float* d_sink;
  CK(cudaMalloc(&d_pattern, 32 * sizeof(int)));
  CK(cudaMalloc(&d_span, kWarps * sizeof(long long)));
  CK(cudaMalloc(&d_sink, kWarps * 32 * sizeof(float)));
  run<4>(d_pattern, d_span, d_sink);
  run<8>(d_pattern, d_span, d_sink);
  run<16>(d_pattern, d_span, d_sink);
  return 0;
}
