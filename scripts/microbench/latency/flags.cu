// WarpLab microbenchmark (issue 25): how long a flag written by one block takes to be seen by
// another, and what gen2's scan_lookback (decoupled look-back: blocks spin on the flags of earlier
// blocks) spends its time on. Clock64 inside the kernel (SM cycles) unless said otherwise.
//
//   nvcc -O3 -arch=sm_90 -I../../../validation/kernels/gen2 -o flags flags.cu && ./flags OUT_DIR
//   cuobjdump -sass flags   (volatile: LDG/STG.E.STRONG.SYS; relaxed.gpu: .STRONG.GPU;
//                            __threadfence: MEMBAR.SC.GPU + CCTL.IVALL)
//
// OUT_DIR/flags.tsv, one row per measurement:
//   pingpong MODE PLACE  thread 0 of block/warp A stores round r into flag a, B spins until it
//                        sees it and stores r into flag b, A spins on b: cycles per round trip
//                        (A's clock64 over 2000 rounds). MODE volatile (ld/st.volatile),
//                        relaxed (ld/st.relaxed.gpu), atomic (atomicAdd(p, 0) polls, atomicExch
//                        stores). PLACE two_sms (two blocks, %smid checked) or one_sm (two warps
//                        of one block). Flags 64 KiB apart.
//   chase MODE           one thread, a dependent chain of 512 loads over L2-resident words 4 KiB
//                        apart, walked once untimed first: cycles per load (plain hits the L1 after the first pass; cg,
//                        volatile, relaxed are L2 round trips)
//   fence KIND W         W warps (lane 0 of each) run 256 iterations of KIND: fence alone
//                        (__threadfence), store+fence (a volatile store then __threadfence, the
//                        scan's publish), store (the volatile store alone): cycles per iteration
// OUT_DIR/scan.tsv: event times (median of 20, L2 evicted before each) of misc.cu's scan_lookback
//   and of the same kernel without the look-back (each block publishes its total and goes on),
//   n = 2^20 (1024 blocks of 256, the corpus point) and 2^22.
// OUT_DIR/scan_blocks.csv: scan_lookback with stamps (one launch, n = 2^20, L2 evicted): per tile,
//   smid, %globaltimer (ns) at the block's start, after the tile-counter atomic, when thread 7
//   starts the walk, after the walk, after the fence and final store, and the block's end; the
//   walk's steps (tiles read) and spins (reads that found no flag); clock64 cycles of the counter
//   atomic, the walk and the fence.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../cuda_check.h"
#include "../event_timer.h"
#include "misc.cu"

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

enum Mode { kVolatile = 0, kRelaxed = 1, kAtomic = 2 };

template <int M>
__device__ __forceinline__ unsigned ld_flag(unsigned* p) {
  if constexpr (M == kVolatile) return *(volatile unsigned*)p;
  if constexpr (M == kRelaxed) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
  }
  return atomicAdd(p, 0u);
}
template <int M>
__device__ __forceinline__ void st_flag(unsigned* p, unsigned v) {
  if constexpr (M == kVolatile) *(volatile unsigned*)p = v;
  if constexpr (M == kRelaxed) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  if constexpr (M == kAtomic) atomicExch(p, v);
}

constexpr int kRounds = 2000;
constexpr unsigned kSpinLimit = 1u << 24;  // a lost flag ends the run instead of hanging it

// A = (block 0, warp 0), B = block 1's warp 0 (two_sms) or block 0's warp 1 (one_sm).
template <int M>
__global__ void pingpong(unsigned* flags, long long* out, unsigned* sms, int one_sm) {
  if ((threadIdx.x & 31) != 0) return;
  const int w = threadIdx.x >> 5;
  const bool a = blockIdx.x == 0 && w == 0;
  const bool b = one_sm ? (blockIdx.x == 0 && w == 1) : (blockIdx.x == 1 && w == 0);
  if (!a && !b) return;
  unsigned* fa = flags;
  unsigned* fb = flags + 16384;
  unsigned lost = 0;
  long long t0 = clock64();
  for (unsigned r = 1; r <= kRounds; ++r) {
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
  sms[a ? 0 : 1] = smid();
}

template <int M>
__global__ void chase(unsigned* p, long long* out, unsigned* sink) {
  unsigned v = 0;
  for (int i = 0; i < 512; ++i) v = p[v * 1024];  // untimed pass: the lines into L2 (and L1)
  v = v == 12345678u ? 1u : 0u;                     // the same 512 lines again (0 at run time)
  long long t0 = clock64();
  for (int i = 0; i < 512; ++i) {
    if constexpr (M == 3) v = __ldcg(p + v * 1024);
    else if constexpr (M == 4) v = p[v * 1024];
    else v = ld_flag<M>(p + v * 1024);
  }
  long long t1 = clock64();
  out[0] = t1 - t0;
  sink[0] = v;
}

__global__ void fence_loop(unsigned* p, long long* out, int kind) {
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

// misc.cu's scan_lookback, stamped. rec[tile * 16 + ...] (see the header).
extern "C" __global__ void scan_lookback_stamped(const int* x, int* y, unsigned long long* state,
                                                 int* tile_counter, int n, long long* rec) {
  __shared__ int warp_totals[8];
  __shared__ int tile_shared;
  __shared__ int exclusive_shared;
  const unsigned long long g_start = gtimer();
  int t = threadIdx.x, lane = t % 32, w = t / 32;
  long long c_atom = 0;
  if (t == 0) {
    long long c0 = clock64();
    tile_shared = atomicAdd(tile_counter, 1);
    c_atom = clock64() - c0;
  }
  __syncthreads();
  const unsigned long long g_tile = gtimer();
  int tile = tile_shared;
  int base = tile * 1024 + t * 4;
  int v[4];
  int run = 0;
  for (int k = 0; k < 4; ++k) {
    v[k] = base + k < n ? x[base + k] : 0;
    run += v[k];
    v[k] = run;
  }
  int incl = run;
  for (int o = 1; o < 32; o <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += up;
  }
  if (lane == 31) warp_totals[w] = incl;
  __syncthreads();
  if (t < 32) {
    int c = t < 8 ? warp_totals[t] : 0, s = c;
    for (int o = 1; o < 8; o <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += up;
    }
    if (t < 8) warp_totals[t] = s - c;
    if (t == 7) {
      const unsigned long long g_walk = gtimer();
      long long c_walk = 0, c_fence = 0, steps = 0, spins = 0;
      unsigned long long g_walked = g_walk;
      int total = s;
      volatile unsigned long long* st = state;
      if (tile == 0) {
        st[0] = (2ull << 32) | (unsigned)total;
        exclusive_shared = 0;
      } else {
        st[tile] = (1ull << 32) | (unsigned)total;
        int excl = 0;
        long long c0 = clock64();
        for (int j = tile - 1; j >= 0;) {
          unsigned long long s_j = st[j];
          unsigned flag = (unsigned)(s_j >> 32);
          if (flag == 0u) {
            ++spins;
            continue;
          }
          ++steps;
          excl += (int)(unsigned)s_j;
          if (flag == 2u) break;
          --j;
        }
        long long c1 = clock64();
        g_walked = gtimer();
        __threadfence();
        st[tile] = (2ull << 32) | (unsigned)(excl + total);
        c_fence = clock64() - c1;
        c_walk = c1 - c0;
        exclusive_shared = excl;
      }
      long long* r = rec + (size_t)tile * 16;
      r[0] = smid();
      r[3] = (long long)g_walk;
      r[4] = (long long)g_walked;
      r[5] = (long long)gtimer();
      r[8] = steps;
      r[9] = spins;
      r[11] = c_walk;
      r[12] = c_fence;
    }
  }
  __syncthreads();
  int offset = exclusive_shared + warp_totals[w] + incl - run;
  for (int k = 0; k < 4; ++k) {
    if (base + k < n) y[base + k] = v[k] + offset;
  }
  __syncthreads();
  if (t == 0) {
    long long* r = rec + (size_t)tile * 16;
    r[1] = (long long)g_start;
    r[2] = (long long)g_tile;
    r[6] = (long long)gtimer();
    r[10] = c_atom;
  }
}

// The scan without the look-back: each block publishes its own total (flag 2) and goes on.
extern "C" __global__ void scan_no_lookback(const int* x, int* y, unsigned long long* state,
                                            int* tile_counter, int n) {
  __shared__ int warp_totals[8];
  __shared__ int tile_shared;
  int t = threadIdx.x, lane = t % 32, w = t / 32;
  if (t == 0) tile_shared = atomicAdd(tile_counter, 1);
  __syncthreads();
  int tile = tile_shared;
  int base = tile * 1024 + t * 4;
  int v[4];
  int run = 0;
  for (int k = 0; k < 4; ++k) {
    v[k] = base + k < n ? x[base + k] : 0;
    run += v[k];
    v[k] = run;
  }
  int incl = run;
  for (int o = 1; o < 32; o <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += up;
  }
  if (lane == 31) warp_totals[w] = incl;
  __syncthreads();
  if (t < 32) {
    int c = t < 8 ? warp_totals[t] : 0, s = c;
    for (int o = 1; o < 8; o <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += up;
    }
    if (t < 8) warp_totals[t] = s - c;
    if (t == 7) ((volatile unsigned long long*)state)[tile] = (2ull << 32) | (unsigned)s;
  }
  __syncthreads();
  int offset = warp_totals[w] + incl - run;
  for (int k = 0; k < 4; ++k) {
    if (base + k < n) y[base + k] = v[k] + offset;
  }
}

__global__ void evict(float* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (float)i;
}

__global__ void chain_init(unsigned* p) {
  // word i * 1024 holds the next index: a stride-7 walk over the 4096 words (4 KiB apart)
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) p[i * 1024] = (i * 7 + 1) & 4095;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  FILE* f = fopen((dir + "/flags.tsv").c_str(), "w");
  fprintf(f, "# flags.cu, %s, sm_clock_khz %d\n", prop.name, khz);
  fprintf(f, "what\tmode\tplace_or_warps\tcycles\tsms\n");
  unsigned *flags, *sms, *sink;
  long long* out;
  CK(cudaMalloc(&flags, 4096 * 1024 * sizeof(unsigned)));
  CK(cudaMalloc(&sms, 2 * sizeof(unsigned)));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&out, 64 * sizeof(long long)));
  using P = void (*)(unsigned*, long long*, unsigned*, int);
  const char* names[] = {"volatile", "relaxed", "atomic"};
  P pp[] = {pingpong<kVolatile>, pingpong<kRelaxed>, pingpong<kAtomic>};
  for (int m = 0; m < 3; ++m)
    for (int one_sm = 0; one_sm < 2; ++one_sm)
      for (int rep = 0; rep < 3; ++rep) {
        CK(cudaMemset(flags, 0, 2 * 16384 * sizeof(unsigned)));
        pp[m]<<<one_sm ? 1 : 2, one_sm ? 64 : 32>>>(flags, out, sms, one_sm);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        long long c;
        unsigned s[2];
        CK(cudaMemcpy(&c, out, sizeof c, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(s, sms, sizeof s, cudaMemcpyDeviceToHost));
        fprintf(f, "pingpong\t%s\t%s\t%.1f\t%u,%u\n", names[m], one_sm ? "one_sm" : "two_sms",
                c < 0 ? -1.0 : (double)c / kRounds, s[0], s[1]);
      }
  using C = void (*)(unsigned*, long long*, unsigned*);
  const char* cnames[] = {"volatile", "relaxed", "atomic", "cg", "plain"};
  C cc[] = {chase<0>, chase<1>, chase<2>, chase<3>, chase<4>};
  chain_init<<<1, 1024>>>(flags);
  for (int m = 0; m < 5; ++m)
    for (int rep = 0; rep < 3; ++rep) {
      cc[m]<<<1, 1>>>(flags, out, sink);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      long long c;
      CK(cudaMemcpy(&c, out, sizeof c, cudaMemcpyDeviceToHost));
      fprintf(f, "chase\t%s\t1\t%.1f\t-\n", cnames[m], (double)c / 512);
    }
  const char* fnames[] = {"fence", "store+fence", "store"};
  for (int kind = 0; kind < 3; ++kind)
    for (int W : {1, 8})
      for (int rep = 0; rep < 3; ++rep) {
        fence_loop<<<1, 32 * W>>>(flags, out, kind);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<long long> c(W);
        CK(cudaMemcpy(c.data(), out, W * sizeof(long long), cudaMemcpyDeviceToHost));
        std::sort(c.begin(), c.end());
        fprintf(f, "fence\t%s\t%d\t%.1f\t-\n", fnames[kind], W, (double)c[W / 2] / 256);
      }
  fclose(f);

  // The scan: event times, then one stamped launch.
  const size_t evict_n = 64ull << 20;
  float* ev;
  CK(cudaMalloc(&ev, evict_n * 4));
  const int max_n = 1 << 22;
  int *x, *y, *counter;
  unsigned long long* state;
  long long* rec;
  CK(cudaMalloc(&x, max_n * sizeof(int)));
  CK(cudaMalloc(&y, max_n * sizeof(int)));
  CK(cudaMalloc(&counter, sizeof(int)));
  // time_launches's 3 warm-ups run without the reset: tiles go on from the counter's value
  const size_t state_n = 5 * (max_n / 1024);
  CK(cudaMalloc(&state, state_n * sizeof(unsigned long long)));
  CK(cudaMemset(state, 0, state_n * sizeof(unsigned long long)));
  CK(cudaMalloc(&rec, (max_n / 1024) * 16 * sizeof(long long)));
  std::vector<int> h(max_n, 3);
  CK(cudaMemcpy(x, h.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
  FILE* g = fopen((dir + "/scan.tsv").c_str(), "w");
  fprintf(g, "# flags.cu, %s: event times, median of 20 (min, max), L2 evicted before each\n", prop.name);
  fprintf(g, "kernel\tn\tblocks\tus_median\tus_min\tus_max\n");
  for (int n : {1 << 20, 1 << 22})
    for (int lookback = 1; lookback >= 0; --lookback) {
      auto before = [&](int) {
        evict<<<264, 1024>>>(ev, evict_n);
        CK(cudaMemsetAsync(counter, 0, sizeof(int)));
        CK(cudaMemsetAsync(state, 0, (n / 1024) * sizeof(unsigned long long)));
      };
      auto t = time_launches(before, [&] {
        if (lookback)
          scan_lookback<<<n / 1024, 256>>>(x, y, state, counter, n);
        else
          scan_no_lookback<<<n / 1024, 256>>>(x, y, state, counter, n);
      });
      fprintf(g, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\n", lookback ? "scan_lookback" : "scan_no_lookback", n,
              n / 1024, t[10], t[0], t[19]);
    }
  fclose(g);
  const int n = 1 << 20, tiles = n / 1024;
  evict<<<264, 1024>>>(ev, evict_n);
  CK(cudaMemset(counter, 0, sizeof(int)));
  CK(cudaMemset(state, 0, tiles * sizeof(unsigned long long)));
  CK(cudaMemset(rec, 0, tiles * 16 * sizeof(long long)));
  scan_lookback_stamped<<<tiles, 256>>>(x, y, state, counter, n, rec);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<long long> r(tiles * 16);
  CK(cudaMemcpy(r.data(), rec, r.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<int> hy(n);
  CK(cudaMemcpy(hy.data(), y, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += hy[i] != 3 * (i + 1);
  long long g0 = r[1];
  for (int i = 0; i < tiles; ++i) g0 = std::min(g0, r[i * 16 + 1]);
  FILE* b = fopen((dir + "/scan_blocks.csv").c_str(), "w");
  fprintf(b, "# flags.cu scan_lookback_stamped, %s, n %d, wrong outputs %d; times in ns from the first block's start\n",
          prop.name, n, bad);
  fprintf(b, "tile,smid,start_ns,tile_ns,walk_ns,walked_ns,published_ns,end_ns,steps,spins,atomic_cycles,walk_cycles,fence_cycles\n");
  for (int i = 0; i < tiles; ++i) {
    const long long* q = &r[i * 16];
    fprintf(b, "%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", i, q[0], q[1] - g0,
            q[2] - g0, q[3] - g0, q[4] - g0, q[5] - g0, q[6] - g0, q[8], q[9], q[10], q[11], q[12]);
  }
  fclose(b);
  printf("flags.cu done (scan wrong outputs: %d)\n", bad);
  return 0;
}
