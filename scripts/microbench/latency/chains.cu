// WarpLab microbenchmark (issue 25): dependent-issue latency per SASS class, with 1, 2 and 4 warps
// per scheduler (one block of 4, 8 or 16 warps on one SM), timed with clock64() inside the kernel.
//
//   nvcc -O3 -arch=sm_90 -o chains chains.cu && ./chains > chains.csv
//   cuobjdump -sass chains   (check each chain is the SASS class named below, one per link)
//
// Every kernel runs one chain per warp: each link needs the result of the one before, so a warp
// issues a link only when the previous one has finished. cycles_per_op is the median over the
// block's warps of (clock64 after - clock64 before) / links. With one warp per scheduler that is
// the dependent-issue latency; with 2 and 4 it shows whether warps of one scheduler overlap their
// chains (a latency) or queue for a unit (a throughput).
//   alu     IADD3 and LOP3 alternating (add.u32, xor.b32)
//   imad    IMAD (mad.lo.u32 with run-time operands)
//   ffma    FFMA (fma.rn.f32)
//   mufu    MUFU.RSQ (rsqrt.approx.ftz.f32)
//   shfl    SHFL.BFLY (shfl.sync.bfly.b32)
//   lds     LDS: a pointer chase in shared memory
//   ldg_l1  LDG: a pointer chase over 4 KiB, after one pass that brings it into L1
//   ldg_l2  LDG.E.STRONG.GPU/CG: a chase over 4 MiB of 128-byte lines with ld.global.cg (L2 hits)
//   ldg_dram a chase over 1 GiB, a random line each step (ld.global.cg; L2 misses, TLB misses too)
//   bar     BAR.SYNC of the whole block (an IADD3 between), 1..4 warps in one block (bar_w*)
//   bar_late the last warp runs 16 dependent FFMAs before each barrier (cycles per barrier):
//           tells counting as warps arrive (flat) from a per-warp cost at release (+2 per warp)
//   bar_sm  the same as bar with 132 * k blocks of 4 warps, k blocks on each SM (k = 1, 2, 4, 8; the
//           warps_per_scheduler column is k): flat if each block counts its own arrivals, rising
//           by 2 cycles per warp of the SM if the SM's blocks share one counting unit
//   match   MATCH.ANY (match.any.sync.b32)
//   vote    VOTE.ANY (vote.sync.ballot.b32)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../cuda_check.h"

constexpr int LINKS = 1024;  // links per chain (16 per loop body)

// Writes the warp's cycles and keeps v alive.
__device__ __forceinline__ void finish(long long t0, unsigned v, long long* cycles, unsigned* sink) {
  long long t1 = clock64();
  if (threadIdx.x % 32 == 0) cycles[threadIdx.x / 32] = t1 - t0;
  if (v == 0x12345678u) sink[threadIdx.x] = v;
}

#define BODY16(S) S S S S S S S S S S S S S S S S

__global__ void k_alu(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("add.u32 %0, %0, %1;" : "+r"(v) : "r"(p)); asm volatile("xor.b32 %0, %0, %1;" : "+r"(v) : "r"(q));)
  }
  finish(t0, v, cycles, sink);  // 2 * LINKS links
}

__global__ void k_imad(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(v) : "r"(p), "r"(q));)
  }
  finish(t0, v, cycles, sink);
}

__global__ void k_ffma(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  float v = (float)threadIdx.x, a = 0.999f + 1e-9f * (float)p, b = 1e-3f * (float)q;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(v) : "f"(a), "f"(b));)
  }
  finish(t0, __float_as_uint(v), cycles, sink);
}

__global__ void k_mufu(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  float v = 1.0f + (float)(p & 1u);
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(v));)
  }
  finish(t0, __float_as_uint(v), cycles, sink);
}

__global__ void k_shfl(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x ^ p;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(v));)
  }
  finish(t0, v, cycles, sink);
}

__global__ void k_match(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x & p;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("match.any.sync.b32 %0, %0, 0xffffffff;" : "+r"(v));)
  }
  finish(t0, v, cycles, sink);
}

__global__ void k_vote(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x & p;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("{ .reg .pred t; setp.ne.u32 t, %0, 0; vote.sync.ballot.b32 %0, t, 0xffffffff; }" : "+r"(v));)
  }
  finish(t0, v, cycles, sink);
}

__global__ void k_lds(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  __shared__ unsigned s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = (i + 32u * p) % 1024u;
  __syncthreads();
  unsigned v = threadIdx.x % 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(v = s[v];)
  }
  finish(t0, v, cycles, sink);
}

// A chase over `next` (in units of 4-byte words); `cg` reads through ld.global.cg (L2 only).
template <bool cg>
__global__ void k_chase(const unsigned* next, unsigned start_steps, unsigned start_line,
                        long long* cycles, unsigned* sink) {
  unsigned v = start_line * 32u + threadIdx.x % 32;
  for (unsigned i = 0; i < start_steps; ++i) v = cg ? __ldcg(next + v) : next[v];  // warm pass
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    if (cg) {
      BODY16(v = __ldcg(next + v);)
    } else {
      BODY16(v = next[v];)
    }
  }
  finish(t0, v, cycles, sink);
}

__global__ void k_bar(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  unsigned v = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    BODY16(asm volatile("add.u32 %0, %0, %1;" : "+r"(v) : "r"(p)); __syncthreads();)
  }
  finish(t0, v, cycles, sink);
}

// The last warp of the block arrives late: before every barrier it runs 16 dependent FFMAs (about
// 64 cycles) while the others go straight to the barrier. If arrivals are counted as they come,
// the early ones are counted while the late warp computes and a step costs the chain plus one
// warp's barrier (about 64 + 17.5 whatever the block size); if the cost is paid at release, per
// warp, it grows by 2 cycles per warp as in `bar`.
__global__ void k_bar_late(unsigned p, unsigned q, long long* cycles, unsigned* sink) {
  float v = (float)threadIdx.x, a = 0.999f + 1e-9f * (float)p, b = 1e-3f * (float)q;
  const bool late = threadIdx.x / 32 == blockDim.x / 32 - 1;
  long long t0 = clock64();
  for (int i = 0; i < LINKS / 16; ++i) {
    if (late) {
      BODY16(asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(v) : "f"(a), "f"(b));)
    }
    __syncthreads();
  }
  finish(t0, __float_as_uint(v), cycles, sink);
}

struct Result {
  double median, min, max;
};

template <typename Launch>
Result run(Launch launch, int warps, long long* d_cycles, double links) {
  launch();  // warm-up (instruction cache, L1)
  CK(cudaDeviceSynchronize());
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<long long> c(warps);
  CK(cudaMemcpy(c.data(), d_cycles, warps * sizeof(long long), cudaMemcpyDeviceToHost));
  std::sort(c.begin(), c.end());
  return {c[warps / 2] / links, c.front() / links, c.back() / links};
}

// A random cyclic permutation of `lines` lines of `line_words` words: next[line * w + lane]
// points to the same lane of the next line on the cycle, so a warp's 32 lanes read one line.
static std::vector<unsigned> make_chase(size_t lines, size_t line_words) {
  std::vector<size_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = i;
  uint64_t s = 88172645463325252ull;
  for (size_t i = lines - 1; i > 0; --i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    std::swap(order[i], order[s % (i + 1)]);
  }
  std::vector<unsigned> next(lines * line_words, 0);
  for (size_t i = 0; i < lines; ++i) {
    size_t from = order[i], to = order[(i + 1) % lines];
    for (size_t lane = 0; lane < 32 && lane < line_words; ++lane) {
      next[from * line_words + lane] = (unsigned)(to * line_words + lane);
    }
  }
  return next;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  long long* d_cycles;
  unsigned* d_sink;
  CK(cudaMalloc(&d_cycles, 64 * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 1024 * sizeof(unsigned)));
  unsigned p = 3;
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  printf("# device,%s,sm_clock_khz,%d\n", prop.name, khz);
  printf("class,sass,warps_per_scheduler,warps,cycles_per_op_median,cycles_per_op_min,cycles_per_op_max\n");
  struct Simple {
    const char* name;
    const char* sass;
    void (*k)(unsigned, unsigned, long long*, unsigned*);
    double links;
  } simple[] = {
      {"alu", "IADD3+LOP3", k_alu, 2.0 * LINKS}, {"imad", "IMAD", k_imad, LINKS},
      {"ffma", "FFMA", k_ffma, LINKS},           {"mufu", "MUFU.RSQ", k_mufu, LINKS},
      {"shfl", "SHFL.BFLY", k_shfl, LINKS},      {"match", "MATCH.ANY", k_match, LINKS},
      {"vote", "VOTE.ANY", k_vote, LINKS},       {"lds", "LDS", k_lds, LINKS},
  };
  for (auto& s : simple) {
    for (int per : {1, 2, 4}) {
      int warps = 4 * per;
      Result r = run([&] { s.k<<<1, warps * 32>>>(p, 3u, d_cycles, d_sink); }, warps, d_cycles, s.links);
      printf("%s,%s,%d,%d,%.2f,%.2f,%.2f\n", s.name, s.sass, per, warps, r.median, r.min, r.max);
    }
  }
  // Pointer chases: L1 (4 KiB, 32 lines), L2 (4 MiB), DRAM (1 GiB).
  struct Chase {
    const char* name;
    size_t bytes;
    bool cg;
  } chases[] = {{"ldg_l1", 4096, false}, {"ldg_l2", 4u << 20, true}, {"ldg_dram", 1u << 30, true}};
  for (auto& c : chases) {
    size_t lines = c.bytes / 128;
    std::vector<unsigned> next = make_chase(lines, 32);
    unsigned* d_next;
    CK(cudaMalloc(&d_next, next.size() * 4));
    CK(cudaMemcpy(d_next, next.data(), next.size() * 4, cudaMemcpyHostToDevice));
    // L1 and L2: a first pass over every line, then the timed chase. DRAM: no warm pass, and
    // every launch starts at a new line, so no launch finds lines an earlier one left in L2.
    const bool dram = c.bytes > (4u << 20);
    unsigned warm = dram ? 0u : (unsigned)lines;
    unsigned launch_no = 0;
    for (int per : {1, 2, 4}) {
      int warps = 4 * per;
      Result r = run(
          [&] {
            unsigned start = dram ? (unsigned)((++launch_no * 1000003ull) % lines) : 0u;
            if (c.cg) k_chase<true><<<1, warps * 32>>>(d_next, warm, start, d_cycles, d_sink);
            else k_chase<false><<<1, warps * 32>>>(d_next, warm, start, d_cycles, d_sink);
          },
          warps, d_cycles, LINKS);
      printf("%s,LDG,%d,%d,%.2f,%.2f,%.2f\n", c.name, per, warps, r.median, r.min, r.max);
    }
    CK(cudaFree(d_next));
  }
  // Barriers: blocks of 1..4 warps (and 8, 16), one IADD3 between two BAR.SYNCs.
  for (int warps : {1, 2, 3, 4, 8, 16}) {
    Result r = run([&] { k_bar<<<1, warps * 32>>>(p, 3u, d_cycles, d_sink); }, warps, d_cycles, LINKS);
    printf("bar,BAR.SYNC+IADD3,%.2f,%d,%.2f,%.2f,%.2f\n", warps / 4.0, warps, r.median, r.min, r.max);
  }
  // One late warp per barrier (cycles per barrier, not per link: LINKS / 16 barriers).
  for (int warps : {1, 2, 4, 8, 16}) {
    Result r = run([&] { k_bar_late<<<1, warps * 32>>>(p, 3u, d_cycles, d_sink); }, warps, d_cycles,
                   LINKS / 16);
    printf("bar_late,16 FFMA+BAR.SYNC,%.2f,%d,%.2f,%.2f,%.2f\n", warps / 4.0, warps, r.median,
           r.min, r.max);
  }
  // Barriers of k blocks on each SM (sim/timing/block_barrier.h assumes a counter per block).
  for (int k : {1, 2, 4, 8}) {
    Result r = run([&] { k_bar<<<prop.multiProcessorCount * k, 128>>>(p, 3u, d_cycles, d_sink); },
                   4, d_cycles, LINKS);
    printf("bar_sm,BAR.SYNC+IADD3,%d,4,%.2f,%.2f,%.2f\n", k, r.median, r.min, r.max);
  }
  return 0;
}
