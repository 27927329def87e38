// WarpLab microbenchmark (issue 25): how long a batch of independent loads takes one SM as the
// lines it has in flight grow. gen2's chain_sum_one_block (one block, 16 LDGs a warp per loop
// body, then a dependent FADD chain) takes ~670 cycles a batch with one warp and ~1050 with eight
// (scripts/microbench/h100-residency-2026-11-27.md); this separates where that growth comes from.
//
//   nvcc -O3 -arch=sm_90 -o batch_inflight batch_inflight.cu && ./batch_inflight > out.tsv
//   cuobjdump -sass batch_inflight   (B LDGs issued back to back, then the FADD chain)
//
// `sms` blocks (one per SM, each on its own SM: checked with %smid) of W warps. Each step, warp w
// issues B independent loads, one 128-byte line each (lane l reads word l), then adds them into a
// dependent sum (chain_sum's body); clock64 around `steps` steps, per warp; cycles_per_step is
// the median over the block's warps (max: the slowest warp). One SM asks for W x B lines a step.
//   layout contig:  step s, load k of warp w reads line (s * B + k) * W + w of the block's region
//                   (chain_sum's order: the block's lines of one step are contiguous)
//   layout spread:  the same line numbers times 33 (4224 bytes apart: other DRAM channels/rows)
//   state dram:     a 256 MiB write between launches evicts the L2 (every line a DRAM read)
//   state l2:       the same launch again right after (every line an L2 hit), so what grows in
//                   both is the SM's side (its miss queue, its port on the NoC), what grows only
//                   from DRAM is behind the L2
//   load cg:        ld.global.cg (LDG.E.STRONG.GPU: the L1 bypassed); plain: ld.global as
//                   chain_sum issues it (LDG.E: each miss allocates its line in the L1)
// sms = 1 against 8 (the same work on each SM): the DRAM and L2 are far from busy at 8.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda_check.h"

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

template <int B, bool CG>
__global__ void batch(const float* x, size_t region_lines, int steps, int spread, long long* cyc,
                      unsigned* sm, float* out) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, W = blockDim.x >> 5;
  const float* base = x + blockIdx.x * region_lines * 32;
  const size_t mul = spread ? 33 : 1;
  float s = 0.f;
  long long t0 = clock64();
#pragma unroll 1
  for (int st = 0; st < steps; ++st) {
    float v[B];
#pragma unroll
    for (int k = 0; k < B; ++k) {
      size_t line = ((size_t)(st * B + k) * W + w) * mul;
      v[k] = CG ? __ldcg(base + line * 32 + lane) : base[line * 32 + lane];
    }
#pragma unroll
    for (int k = 0; k < B; ++k) s += v[k];
  }
  long long t1 = clock64();
  if (lane == 0) cyc[blockIdx.x * 32 + w] = t1 - t0;
  if (threadIdx.x == 0) sm[blockIdx.x] = smid();
  if (s == -1.f) out[0] = s;  // never: keeps the loads
}

__global__ void evict(float* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (float)i;
}

using K = void (*)(const float*, size_t, int, int, long long*, unsigned*, float*);

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  printf("# batch_inflight.cu, %s, sm_clock_khz %d\n", prop.name, khz);
  const int steps = 32, max_sms = 8;
  const size_t region_lines = (size_t)steps * 16 * 32 * 33 + 64;  // the largest spread step set
  float *x, *flush, *out;
  long long* cyc;
  unsigned* sm;
  const size_t flush_n = 64ull << 20;  // 256 MiB
  CK(cudaMalloc(&x, max_sms * region_lines * 128));
  CK(cudaMalloc(&flush, flush_n * 4));
  CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&cyc, max_sms * 32 * sizeof(long long)));
  CK(cudaMalloc(&sm, max_sms * sizeof(unsigned)));
  CK(cudaMemset(x, 0, max_sms * region_lines * 128));
  printf("sms\twarps\tbatch\tlines_per_sm\tload\tlayout\tstate\tcycles_per_step_median\tmin\tmax\tdistinct_sms\n");
  struct {
    int b;
    bool cg;
    K k;
  } ks[] = {{1, true, batch<1, true>},   {4, true, batch<4, true>},   {16, true, batch<16, true>},
            {1, false, batch<1, false>}, {4, false, batch<4, false>}, {16, false, batch<16, false>}};
  for (int sms : {1, 8})
    for (int spread : {0, 1})
      for (auto& kb : ks)
        for (int W : {1, 2, 4, 8, 16, 32}) {
          if (!kb.cg && (sms != 1 || spread)) continue;  // plain loads: chain_sum's case only
          std::vector<long long> rep_med[2], rep_min[2], rep_max[2];
          unsigned distinct = 0;
          for (int rep = 0; rep < 3; ++rep) {
            evict<<<264, 1024>>>(flush, flush_n);
            for (int state = 0; state < 2; ++state) {  // 0: from DRAM, 1: the same lines again
              kb.k<<<sms, W * 32>>>(x, region_lines, steps, spread, cyc, sm, out);
              CK(cudaGetLastError());
              CK(cudaDeviceSynchronize());
              std::vector<long long> c(sms * W);
              std::vector<long long> all(sms * 32);
              CK(cudaMemcpy(all.data(), cyc, sms * 32 * sizeof(long long), cudaMemcpyDeviceToHost));
              for (int b = 0; b < sms; ++b)
                for (int w = 0; w < W; ++w) c[b * W + w] = all[b * 32 + w];
              std::sort(c.begin(), c.end());
              rep_med[state].push_back(c[c.size() / 2]);
              rep_min[state].push_back(c.front());
              rep_max[state].push_back(c.back());
              std::vector<unsigned> s(sms);
              CK(cudaMemcpy(s.data(), sm, sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
              std::sort(s.begin(), s.end());
              distinct = (unsigned)(std::unique(s.begin(), s.end()) - s.begin());
            }
          }
          for (int state = 0; state < 2; ++state) {
            auto med3 = [](std::vector<long long> v) {
              std::sort(v.begin(), v.end());
              return v[1];
            };
            printf("%d\t%d\t%d\t%d\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%u\n", sms, W, kb.b, W * kb.b, kb.cg ? "cg" : "plain",
                   spread ? "spread" : "contig", state ? "l2" : "dram",
                   (double)med3(rep_med[state]) / steps, (double)med3(rep_min[state]) / steps,
                   (double)med3(rep_max[state]) / steps, distinct);
          }
        }
  return 0;
}
