// Calibration (issue 25): when does a load see another warp's store? (the GPU: `warplab run
// lessons/calibration/visibility.toml --backend gpu --dump DIR`; the model: the same with the
// default sim backend; the figures: scripts/microbench/visibility_summary.py DIR).
//
// Two blocks (two SMs) of P warps, lane 0 of each warp active. Round r (1..R): warp 0 of block
// (r & 1) waits a pseudo-random 0..511 cycles, reads clock64 (ts) and stores r into the flag; every
// other warp of both blocks polls the flag (a dependent loop of loads, each one issued when the
// previous one's value has been compared) until it reads a value >= r. Each poller records, per
// round, the clock64 before the load that saw r (issue), after the loop (back: that load's data
// used), before the last load that did not see it (prev), and the value seen. The writer of round
// r+1 is the other block's warp 0, once it has seen r itself.
//   rec[((r * 2 + b) * P + w) * 4 + {0,1,2,3}] = {issue, back, prev, value}; the writer's row:
//   {ts, -1, -1, r}. sms[b] = %smid of block b.
// Pollers in the writer's block share its clock: (issue - ts) of the first load that saw the store
// and (prev - ts) of the last that did not bracket the store-to-visible delay as a load issue
// sees it. Pollers of the other block read another SM's clock; the two directions' offsets
// cancel in their sum.
// MODE 0: ld/st.volatile (ptxas: LDG/STG.E.STRONG.SYS); 1: ld/st.relaxed.gpu (STRONG.GPU).
__device__ __forceinline__ unsigned vis_ld(const unsigned* p, int mode) {
  unsigned v;
  if (mode == 0)
    v = *(const volatile unsigned*)p;
  else
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void vis_st(unsigned* p, unsigned v, int mode) {
  if (mode == 0)
    *(volatile unsigned*)p = v;
  else
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

extern "C" __global__ void visibility(unsigned* flag, long long* rec, unsigned* sms, int rounds,
                                      int mode) {
  if ((threadIdx.x & 31) != 0) return;
  const int w = threadIdx.x >> 5, b = blockIdx.x, P = blockDim.x >> 5;
  if (w == 0) {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    sms[b] = s;
  }
  const unsigned kSpinLimit = 1u << 22;  // a lost flag ends the run instead of hanging it
  for (int r = 1; r <= rounds; ++r) {
    long long* q = rec + ((long long)(r * 2 + b) * P + w) * 4;
    if (w == 0 && b == (r & 1)) {
      unsigned h = (unsigned)r * 2654435761u;
      const long long delay = (h >> 20) & 511;
      const long long t = clock64();
      while (clock64() - t < delay) {
      }
      const long long ts = clock64();
      vis_st(flag, (unsigned)r, mode);
      q[0] = ts;
      q[1] = -1;
      q[2] = -1;
      q[3] = r;
      continue;
    }
    long long issue = 0, prev = -1;
    unsigned v = 0, n = 0;
    for (;;) {
      issue = clock64();
      v = vis_ld(flag, mode);
      if (v >= (unsigned)r || ++n > kSpinLimit) break;
      prev = issue;
    }
    const long long back = clock64();
    q[0] = issue;
    q[1] = back;
    q[2] = prev;
    q[3] = v;
    if (n > kSpinLimit) return;
  }
}

// One SM's batch of B independent line loads a warp (contiguous lines, immediate offsets from one
// base: no address chain), then their sum in order, clock64 read after each add (behind a branch
// on the sum, so that it cannot issue before the load's value has been used): per step,
// back[k] = cycles from before the batch's first load until load k (and all before it) was used.
// W warps (the block); warp w's step st reads lines (st * W + w) * B .. + B - 1. The middle step's
// back[] is recorded per warp: ret[w * 16 + k]; every warp's whole span: cyc[w].
// Not a batch on the H100: ptxas moves no load above the branch, so it issues one LDG per branch
// (scripts/microbench/h100-visibility-2026-11-27/visibility.sass); kept as measured.
template <int B>
__device__ __forceinline__ void returns(const float* x, int steps, long long* cyc, long long* ret,
                                        float* out) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, W = blockDim.x >> 5;
  float s = 0.f;
  const long long t0 = clock64();
#pragma unroll 1
  for (int st = 0; st < steps; ++st) {
    const float* p = x + ((long long)st * W + w) * B * 32 + lane;
    float v[B];
    long long back[B];
    const long long ti = clock64();
#pragma unroll
    for (int k = 0; k < B; ++k) v[k] = p[k * 32];
#pragma unroll
    for (int k = 0; k < B; ++k) {
      s += v[k];
      if (__float_as_uint(s) == 0xffffffffu) asm volatile("trap;");  // the clock waits for s
      back[k] = clock64();
    }
    if (st == steps / 2 && lane == 0)
#pragma unroll
      for (int k = 0; k < B; ++k) ret[w * 16 + k] = back[k] - ti;
  }
  const long long t1 = clock64();
  if (lane == 0) cyc[w] = t1 - t0;
  if (s == -1.f) out[0] = s;  // never: keeps the loads
}

extern "C" __global__ void returns1(const float* x, int steps, long long* cyc, long long* ret,
                                    float* out) {
  returns<1>(x, steps, cyc, ret, out);
}
extern "C" __global__ void returns16(const float* x, int steps, long long* cyc, long long* ret,
                                     float* out) {
  returns<16>(x, steps, cyc, ret, out);
}
