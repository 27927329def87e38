// Calibration (issue 25): scripts/microbench/latency/flags.cu's flag round trips and fence loop for
// the simulator (the GPU's cycles: scripts/microbench/h100-flags-2026-11-27.tsv). Kept identical to
// the microbenchmark's pingpong<kVolatile>, pingpong<kRelaxed> and fence_loop (extern "C" added).
enum Mode { kVolatile = 0, kRelaxed = 1 };

template <int M>
__device__ __forceinline__ unsigned ld_flag(unsigned* p) {
  if constexpr (M == kVolatile) return *(volatile unsigned*)p;
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
template <int M>
__device__ __forceinline__ void st_flag(unsigned* p, unsigned v) {
  if constexpr (M == kVolatile) *(volatile unsigned*)p = v;
  if constexpr (M == kRelaxed) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

constexpr unsigned kSpinLimit = 1u << 24;

// A = (block 0, warp 0), B = block 1's warp 0 (two_sms) or block 0's warp 1 (one_sm).
template <int M>
__device__ void pingpong(unsigned* flags, long long* out, int rounds, int one_sm) {
  if ((threadIdx.x & 31) != 0) return;
  const int w = threadIdx.x >> 5;
  const bool a = blockIdx.x == 0 && w == 0;
  const bool b = one_sm ? (blockIdx.x == 0 && w == 1) : (blockIdx.x == 1 && w == 0);
  if (!a && !b) return;
  unsigned* fa = flags;
  unsigned* fb = flags + 16384;
  unsigned lost = 0;
  long long t0 = clock64();
  for (unsigned r = 1; r <= rounds; ++r) {
    if (a) {
      st_flag<M>(fa, r);
      unsigned n = 0;
      while (ld_flag<M>(fb) != r)
        if (++n > kSpinLimit) { lost = 1; break; }
    } else {
      unsigned n = 0;
      while (ld_flag<M>(fa) != r)
        if (++n > kSpinLimit) { lost = 1; break; }
      st_flag<M>(fb, r);
    }
    if (lost) break;
  }
  long long t1 = clock64();
  if (a) out[0] = lost ? -1 : t1 - t0;
}

extern "C" __global__ void pingpong_volatile(unsigned* flags, long long* out, int rounds, int one_sm) {
  pingpong<kVolatile>(flags, out, rounds, one_sm);
}
extern "C" __global__ void pingpong_relaxed(unsigned* flags, long long* out, int rounds, int one_sm) {
  pingpong<kRelaxed>(flags, out, rounds, one_sm);
}

extern "C" __global__ void fence_loop(unsigned* p, long long* out, int kind) {
  if ((threadIdx.x & 31) != 0) return;
  const int w = threadIdx.x >> 5;
  volatile unsigned* q = p + w * 32;
  long long t0 = clock64();
  for (int i = 0; i < 256; ++i) {
    if (kind != 0) q[0] = i;
    if (kind != 2) __threadfence();
  }
  long long t1 = clock64();
  out[w] = t1 - t0;
}
