// WarpLab microbenchmark: the timing of Hopper's asynchronous copies and mbarriers, for the
// [async] section of configs/h100-sxm.toml (sim/timing/async_copy.h, tma.h).
//
//   nvcc -O3 -arch=sm_90 -o async_timing async_timing.cu && ./async_timing > h100-async-DATE.tsv
//
// Every row is `test  param  value  unit` (TSV, '#' lines are comments):
//   ld_latency          l2|dram   one thread's dependent ld.global.cg round trip (the reference)
//   cp_async_latency    l2|dram   one thread: cp.async.cg 16 B + commit + wait_group 0, clock64
//                                 before the cp.async and after the wait (median of 64 copies)
//   cp_async_fill_extra l2|dram   cp_async_latency - ld_latency: what the shared-memory fill adds
//   cp_async_pipeline   STAGES    a 128-thread block per SM streaming 256 MiB through shared
//                                 memory with STAGES-deep cp.async double/multi buffering:
//                                 bytes per SM cycle (all SMs)
//   mbarrier_round_trip 1warp     one thread: arrive then try_wait.parity until the phase flips
//   mbarrier_round_trip 2warps    ping-pong between two warps on two mbarriers, per hand-over
//   bulk_latency        BYTES     one thread: arrive.expect_tx + cp.async.bulk of BYTES (L2 warm)
//                                 + try_wait until complete, clock64 around it
//   bulk_bandwidth      BYTES     every SM repeatedly bulk-copies BYTES-sized chunks from DRAM:
//                                 bytes per SM cycle
// Cycles are SM clock cycles (clock64); bytes per SM cycle use the clock the device reports.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

constexpr int kSamples = 64;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint64_t clk() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// ---- 1. latency of one load / one cp.async, L2 hit or DRAM -------------------------------------
// `warm`: the line is read once (ld.global.cg: into L2, not L1) before it is timed. Lines are
// 64 KiB apart so that no two samples share a line or a DRAM page.
__global__ void latency(const uint4* src, uint64_t* out, int warm) {
  __shared__ __align__(16) uint4 buf[1];
  uint32_t sink = 0;
  for (int i = 0; i < kSamples; ++i) {
    const uint4* p = src + size_t(i) * 4096;
    if (warm) {
      uint4 v;
      asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(p));
      sink += v.x;
    }
    // the load's round trip
    const uint4* q = p + 1024;  // another line of the same kind (warm or not)
    if (warm) {
      uint32_t w;
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w) : "l"(q));
      sink += w;
    }
    uint64_t t0 = clk();
    uint32_t x;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(x) : "l"(q) : "memory");
    sink += x;
    uint64_t t1 = clk();
    out[2 * i] = t1 - t0 + (x == 0xFFFFFFFFu);  // x read before t1 is taken
    // the cp.async's round trip to completion
    t0 = clk();
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n\t"
                 "cp.async.commit_group;\n\t"
                 "cp.async.wait_group 0;" ::"r"(smem(buf)),
                 "l"(p)
                 : "memory");
    uint32_t y;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(y) : "r"(smem(buf)) : "memory");
    t1 = clk();
    out[2 * i + 1] = t1 - t0 + (y == 0xFFFFFFFFu);
    sink += y;
  }
  if (sink == 0x12345678u) out[0] = 0;
}

// ---- 2. a multi-stage cp.async pipeline ---------------------------------------------------------
template <int STAGES>
__global__ void pipeline(const uint4* src, size_t tiles_per_block, uint32_t* out) {
  __shared__ __align__(16) uint4 stage[STAGES][128];
  const uint4* base = src + size_t(blockIdx.x) * tiles_per_block * 128 + threadIdx.x;
  uint32_t s = 0;
  for (int k = 0; k < STAGES - 1; ++k) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&stage[k][threadIdx.x])),
                 "l"(base + size_t(k) * 128)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  for (size_t t = 0; t < tiles_per_block; ++t) {
    const size_t next = t + STAGES - 1;
    if (next < tiles_per_block)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                       smem(&stage[next % STAGES][threadIdx.x])),
                   "l"(base + next * 128)
                   : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 1) : "memory");
    const uint4 v = stage[t % STAGES][threadIdx.x];
    s += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (s == 0x12345678u) out[0] = s;
}

// ---- 3. mbarrier round trips ---------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
      "@!p bra WAIT_%=;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

__global__ void mbar_one(uint64_t* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  for (int i = 0; i < kSamples; ++i) {
    const uint64_t t0 = clk();
    mbar_arrive(&bar);
    mbar_wait(&bar, i & 1);
    out[i] = clk() - t0;
  }
}

__global__ void mbar_two(uint64_t* out) {
  __shared__ uint64_t ping, pong;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(&ping, 1);
    mbar_init(&pong, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (lane != 0) return;
  const uint64_t t0 = clk();
  for (int i = 0; i < kSamples; ++i) {
    if (warp == 0) {
      mbar_arrive(&ping);
      mbar_wait(&pong, i & 1);
    } else {
      mbar_wait(&ping, i & 1);
      mbar_arrive(&pong);
    }
  }
  if (warp == 0) out[0] = (clk() - t0) / (2 * kSamples);  // per hand-over
}

// ---- 4. 1D bulk copies ---------------------------------------------------------------------------
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%2], %3;\n\t"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];" ::"r"(
          smem(dst)),
      "l"(src), "r"(smem(bar)), "r"(bytes)
      : "memory");
}

extern __shared__ __align__(128) uint8_t dyn[];

__global__ void bulk_latency(const uint8_t* src, uint32_t bytes, uint64_t* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x != 0) return;
  mbar_init(&bar, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  for (int i = 0; i < 16; ++i) {  // the same source each time: warm in L2 after the first
    const uint64_t t0 = clk();
    bulk_copy(dyn, src, bytes, &bar);
    mbar_wait(&bar, i & 1);
    out[i] = clk() - t0;
  }
}

__global__ void bulk_stream(const uint8_t* src, uint32_t bytes, int chunks, uint32_t* out) {
  __shared__ uint64_t bar[2];
  if (threadIdx.x != 0) return;
  mbar_init(&bar[0], 1);
  mbar_init(&bar[1], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const uint8_t* base = src + size_t(blockIdx.x) * chunks * bytes;
  // Two copies in flight: while one lands, the next is under way.
  bulk_copy(dyn, base, bytes, &bar[0]);
  uint32_t s = 0;
  for (int c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) bulk_copy(dyn + ((c + 1) & 1) * bytes, base + size_t(c + 1) * bytes,
                                  bytes, &bar[(c + 1) & 1]);
    mbar_wait(&bar[c & 1], (c >> 1) & 1);
    s += dyn[(c & 1) * bytes];
  }
  if (s == 0x12345678u) out[0] = s;
}

uint64_t median(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
float time_ms(F&& launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  launch();  // warm-up
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(a));
  launch();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CK(cudaGetLastError());
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double hz = clock_khz * 1e3;
  const int sms = prop.multiProcessorCount;
  printf("# %s, %d SMs, SM clock %.0f MHz (bytes per SM cycle use it)\n", prop.name, sms,
         hz / 1e6);
  printf("test\tparam\tvalue\tunit\n");

  const size_t big = size_t(512) << 20;
  uint8_t* src;
  CK(cudaMalloc(&src, big));
  CK(cudaMemset(src, 1, big));
  uint64_t* out;
  CK(cudaMalloc(&out, 4096 * sizeof(uint64_t)));
  std::vector<uint64_t> h(2 * kSamples);

  // 1. latencies (a 256 MiB memset first so that the DRAM samples miss in L2)
  for (int warm : {1, 0}) {
    CK(cudaMemset(src + (size_t(256) << 20), 0, size_t(256) << 20));
    latency<<<1, 1>>>(reinterpret_cast<const uint4*>(src), out, warm);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<uint64_t> ld, cp;
    for (int i = 0; i < kSamples; ++i) ld.push_back(h[2 * i]), cp.push_back(h[2 * i + 1]);
    const char* where = warm ? "l2" : "dram";
    printf("ld_latency\t%s\t%llu\tcycles\n", where, (unsigned long long)median(ld));
    printf("cp_async_latency\t%s\t%llu\tcycles\n", where, (unsigned long long)median(cp));
    printf("cp_async_fill_extra\t%s\t%lld\tcycles\n", where,
           (long long)median(cp) - (long long)median(ld));
  }

  // 2. pipelines: 256 MiB, one 128-thread block per SM, 2 KiB tiles
  {
    const size_t tiles = (size_t(256) << 20) / (sms * 2048);
    auto run = [&](int stages, auto kernel) {
      const float ms = time_ms([&] {
        kernel<<<sms, 128>>>(reinterpret_cast<const uint4*>(src), tiles,
                             reinterpret_cast<uint32_t*>(out));
      });
      const double bytes = double(tiles) * 2048 * sms;
      printf("cp_async_pipeline\t%d\t%.2f\tbytes/SM-cycle\n", stages,
             bytes / sms / (ms * 1e-3 * hz));
    };
    run(1, pipeline<1>);
    run(2, pipeline<2>);
    run(3, pipeline<3>);
    run(4, pipeline<4>);
  }

  // 3. mbarrier round trips
  mbar_one<<<1, 32>>>(out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h.data(), out, kSamples * 8, cudaMemcpyDeviceToHost));
  printf("mbarrier_round_trip\t1warp\t%llu\tcycles\n",
         (unsigned long long)median(std::vector<uint64_t>(h.begin(), h.begin() + kSamples)));
  mbar_two<<<1, 64>>>(out);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h.data(), out, 8, cudaMemcpyDeviceToHost));
  printf("mbarrier_round_trip\t2warps\t%llu\tcycles\n", (unsigned long long)h[0]);

  // 4. bulk copies: latency by size (L2 warm), bandwidth by size (DRAM)
  CK(cudaFuncSetAttribute(bulk_latency, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
  CK(cudaFuncSetAttribute(bulk_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
  for (uint32_t bytes : {16u, 128u, 1024u, 4096u, 16384u, 65536u}) {
    bulk_latency<<<1, 32, bytes>>>(src, bytes, out);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), out, 16 * 8, cudaMemcpyDeviceToHost));
    printf("bulk_latency\t%u\t%llu\tcycles\n", bytes,
           (unsigned long long)median(std::vector<uint64_t>(h.begin() + 1, h.begin() + 16)));
  }
  for (uint32_t bytes : {1024u, 4096u, 16384u, 65536u}) {
    const int chunks = static_cast<int>((size_t(256) << 20) / (size_t(sms) * bytes));
    const float ms = time_ms([&] {
      bulk_stream<<<sms, 32, 2 * bytes>>>(src, bytes, chunks, reinterpret_cast<uint32_t*>(out));
    });
    const double total = double(chunks) * bytes * sms;
    printf("bulk_bandwidth\t%u\t%.2f\tbytes/SM-cycle\n", bytes, total / sms / (ms * 1e-3 * hz));
  }
  return 0;
}
