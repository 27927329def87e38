// WarpLab microbenchmark (mma5, issue 23): how long an L2 hit takes, line by line, and how long a
// warp's LDG.128 over several lines takes, on an L2-resident buffer (loads with .cg: no L1).
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o l2_lines l2_lines.cu && ./l2_lines
// 1. hop: one thread chases a random cycle through `lines` lines of a hot buffer (one 4-byte word a
//    line); the clock read after each load issues with it, so the gap between two reads is the
//    latency of the earlier hop. Prints the per-hop distribution (min, p10, p50, p90, max) and a
//    16-cycle histogram: one L2 latency, or several (near and far partitions)?
// 2. warp: one warp, each lane loads 16 B (LDG.E.128) from `span` consecutive bytes (the tile rows
//    of lesson 17: 512 B = 4 lines, 1024 B...), then a dependent load of the next span chosen by the
//    data: cycles per dependent warp load, as for one line.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include "cuda_check.h"

__device__ __forceinline__ long long clk() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory"); return t; }

extern "C" __global__ void hop(const unsigned* next, int hops, unsigned start, long long* lat, unsigned* sink) {
  __shared__ long long t[4096];
  unsigned j = start;
  for (int i = 0; i < hops; ++i) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(next + (size_t)j * 32));
    t[i] = clk();
    j = v;
  }
  for (int i = 0; i + 1 < hops; ++i) lat[i] = t[i + 1] - t[i];
  *sink = j;
}

// Each lane reads 16 B at base + lane * 16 (mod span); the next base comes from the loaded data.
extern "C" __global__ void warp_span(const uint4* buf, unsigned spans, unsigned span_bytes, int reps, long long* out, unsigned* sink) {
  unsigned lane = threadIdx.x, base = 0, acc = 0;
  long long t0 = clk();
  for (int r = 0; r < reps; ++r) {
    unsigned off = base * span_bytes + ((lane * 16) & (span_bytes - 1));
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"((const char*)buf + off));
    unsigned x = v.x ^ v.y ^ v.z ^ v.w;
    x = __shfl_sync(0xffffffffu, x, 0);  // the warp's LDG.128 is one scoreboard: all its lines back
    base = x & (spans - 1);
    acc += x;
  }
  long long t1 = clk();
  if (lane == 0) { out[0] = t1 - t0; *sink = acc; }
}

int main() {
  const size_t bytes = 16u << 20;  // 16 MiB: in L2 (50 MiB)
  unsigned* buf; long long* lat; unsigned* sink;
  CK(cudaMalloc(&buf, bytes)); CK(cudaMalloc(&lat, 8192 * 8)); CK(cudaMalloc(&sink, 64));
  const unsigned lines = bytes / 128;
  std::vector<unsigned> h(bytes / 4, 0), perm(lines);
  for (unsigned i = 0; i < lines; ++i) perm[i] = i;
  uint64_t s = 12345;
  for (unsigned i = lines - 1; i > 0; --i) { s = s * 6364136223846793005ull + 1442695040888963407ull; std::swap(perm[i], perm[(s >> 33) % (i + 1)]); }
  for (unsigned i = 0; i < lines; ++i) h[(size_t)perm[i] * 32] = perm[(i + 1) % lines];
  CK(cudaMemcpy(buf, h.data(), bytes, cudaMemcpyHostToDevice));
  printf("# section\twhat\tvalue\n");
  // 1. hops (warm the lines first: one pass of the same chase)
  const int hops = 4000;
  for (int pass = 0; pass < 2; ++pass) {
    hop<<<1, 1>>>(buf, hops, perm[0], lat, sink);
    CK(cudaDeviceSynchronize());
  }
  std::vector<long long> l(hops - 1);
  CK(cudaMemcpy(l.data(), lat, l.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<long long> srt(l);
  std::sort(srt.begin(), srt.end());
  auto q = [&](double p) { return srt[size_t(p * (srt.size() - 1))]; };
  printf("hop_cycles\tmin,p10,p25,p50,p75,p90,max\t%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", srt[0], q(0.1), q(0.25), q(0.5), q(0.75), q(0.9), srt.back());
  std::vector<int> hist(64, 0);
  for (long long v : l) hist[std::min<long long>(63, v / 16)]++;
  for (int b = 0; b < 64; ++b) if (hist[b]) printf("hop_hist\t%d-%d\t%d\n", b * 16, b * 16 + 15, hist[b]);
  // 2. warp loads over spans of 128 .. 2048 bytes (data: a random next span)
  for (unsigned span : {128u, 256u, 512u, 1024u, 2048u}) {
    unsigned spans = bytes / span;
    std::vector<unsigned> w(bytes / 4);
    for (size_t i = 0; i < w.size(); ++i) { s = s * 6364136223846793005ull + 1442695040888963407ull; w[i] = (unsigned)(s >> 33); }
    CK(cudaMemcpy(buf, w.data(), bytes, cudaMemcpyHostToDevice));
    long long* o; CK(cudaMalloc(&o, 8));
    const int reps = 2000;
    for (int pass = 0; pass < 3; ++pass) warp_span<<<1, 32>>>((const uint4*)buf, spans, span, reps, o, sink);
    CK(cudaDeviceSynchronize());
    long long c; CK(cudaMemcpy(&c, o, 8, cudaMemcpyDeviceToHost));
    printf("warp_span_cycles\t%u\t%.1f\n", span, double(c) / reps);
  }
  return 0;
}
