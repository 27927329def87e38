// acc7b (issue 25): what a load that finds its L2 sector still being fetched from DRAM costs, and
// how ncu counts it. Two kernels, run on both backends (warplab run join.toml --backend both):
//   join_delay:  one block of 2 warps. For each trial t (a line never touched before, 8 KiB apart),
//                warp 0 loads it at once, warp 1 waits d = (t % 12) * 75 cycles, then loads it
//                too (ld.relaxed.gpu: served by the L2, not merged in the L1). out[2t + w]: the
//                load's latency (issue -> data used) in cycles; out[96 + 2t + w]: its issue
//                cycle after the trial's start.
//   share_lines: G blocks of one warp, every block reads the same 64 KiB (128 LDG.128 a lane, 8
//                in flight), all at launch: cyc[b] = the block's cycles for it. With G = 1 every
//                sector is a DRAM miss; with G = 64 each line has 64 readers at once.
__device__ __forceinline__ long long clk() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory"); return t; }
__device__ __forceinline__ unsigned ld_gpu(const unsigned* p) {
  unsigned v; asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
extern "C" __global__ void join_delay(const unsigned* x, long long* out, int trials, int stride_words) {
  __shared__ volatile unsigned sink[2];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int t = 0; t < trials; ++t) {
    __syncthreads();
    const unsigned* p = x + (size_t)t * stride_words;
    long long t0 = clk();
    long long d = (t % 12) * 75;
    if (warp == 1) while (clk() - t0 < d) {}
    long long s = clk();
    unsigned v = ld_gpu(p);
    sink[warp] = v;
    long long e = clk();
    if (lane == 0) { out[2 * t + warp] = e - s; out[96 + 2 * t + warp] = s - t0; }
  }
}
extern "C" __global__ void share_lines(const uint4* x, long long* cyc, unsigned* sinkg) {
  __shared__ volatile unsigned sink;
  int lane = threadIdx.x;
  uint4 acc = make_uint4(0, 0, 0, 0);
  long long t0 = clk();
  for (int i = 0; i < 128; i += 8) {
    uint4 v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = x[(i + j) * 32 + lane];
#pragma unroll
    for (int j = 0; j < 8; ++j) { acc.x ^= v[j].x; acc.y += v[j].y; acc.z ^= v[j].z; acc.w += v[j].w; }
  }
  sink = acc.x ^ acc.y ^ acc.z ^ acc.w;
  long long t1 = clk();
  if (lane == 0) cyc[blockIdx.x] = t1 - t0;
  if (sink == 0x9e3779b9u) sinkg[0] = 1;
}
