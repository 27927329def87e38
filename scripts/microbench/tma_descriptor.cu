// Device-built TMA tensor maps against host-built ones on the H100: what Triton's
// tl.make_tensor_descriptor costs a block on sm_90, and what the first TMA copy through a tensor
// map the SM has not used yet costs (the TMA unit's descriptor fetch).
//
// Triton 3.9 builds each descriptor like this (PTX of validation/kernels/triton/matmul_descriptor.py,
// SASS from ptxas 13.0):
//   warp 0 zeroes a 128-byte template in shared memory          STS (32 lanes)
//   lane 0: tensormap.replace.tile.<field> x 11                  STS / STS.64 (plain stores)
//   warp 0: tensormap.cp_fenceproxy.global.shared::cta...release.gpu.sync.aligned [g], [s], 128
//                                                                LDS + ATOMG.E.EXCH.STRONG.GPU
//                                                                (a lane a word) + DEPBAR (all)
//   warp 0: fence.proxy.tensormap::generic.acquire.gpu [g], 128 UTMACCTL.IV [g]
//   warp 0: cp.async.bulk.commit_group / wait_group.read 0      UTMACMDFLUSH + DEPBAR.LE SB0
//   bar.sync 0
// three times (A, B, C), then TMA loads (UTMALDG) through the global maps.
//
// Modes (one block of 128 threads; thread 0 takes clock64() stamps, block 0's are printed):
//   param    two __grid_constant__ CUtensorMap parameters (what the corpus's CUDA kernels use)
//   prefetch the same, prefetch.tensormap of both and ~4000 cycles of spinning before the loads
//   global   two maps the host copied into global memory before the launch
//   device   Triton's sequence above for three maps in global scratch, loads through maps 0, 1
//   atomic   warp 0 exchanges a word a lane in one 128-byte line (atom.exch, result used), three
//            lines one after another: the round trip the sim's atomic path already times
// Loads, each waited on its mbarrier before the next (box 64 x 32 f16 = 4096 bytes, 128-byte
// swizzle, the tensor L2-resident in the warm runs):
//   first0   first copy through map 0          warm0   map 0 again
//   first1   first copy through map 1          pair    maps 0 and 1, one mbarrier
// Each mode runs L2-warm (the same launch just before) and L2-cold (a read of 2x the L2 before
// the launch, as warplab's --l2 cold). Stamps are the median over 11 launches.
// Then 12 blocks (the corpus point's grid) of each mode, L2 cold, CUDA events (median of 20).
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o tma_descriptor tma_descriptor.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "event_timer.h"

constexpr int kStamps = 32;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ long long stamp() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ void wait_phase(unsigned bar, unsigned phase) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  }
}

__device__ __forceinline__ void expect(unsigned bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void tma_load(unsigned dst, const void* map, int x, int y,
                                         unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], [%4];" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

// Triton's descriptor build (see the header) of a W x H f16 tensor at `base`, box 64 x 32,
// 128-byte swizzle, into global `g`, by warp 0 with `tmpl` a 128-byte shared template.
__device__ __forceinline__ void build_map(const void* base, int W, int H, void* g, unsigned tmpl,
                                          long long* t, int& n) {
  const unsigned tid = threadIdx.x;
  const unsigned long long s64 = tmpl;
  if (tid < 32) asm volatile("st.shared::cta.b32 [%0], %1;" ::"r"(tmpl + 4 * tid), "r"(0) : "memory");
  __syncwarp();
  if (tid == 0) t[n++] = stamp();
  if (tid == 0) {
    const unsigned long long addr = reinterpret_cast<unsigned long long>(base);
    const unsigned long long stride = static_cast<unsigned long long>(W) * 2;
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"l"(s64), "l"(addr) : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 0x1;" ::"l"(s64) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0x0, %1;" ::"l"(s64), "r"(64) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0x1, %1;" ::"l"(s64), "r"(32) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0x0, %1;" ::"l"(s64), "r"(W) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0x1, %1;" ::"l"(s64), "r"(H) : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0x0, %1;" ::"l"(s64), "l"(stride) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0x0, %1;" ::"l"(s64), "r"(1) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0x1, %1;" ::"l"(s64), "r"(1) : "memory");
    asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 0x6;" ::"l"(s64) : "memory");
    asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 0x3;" ::"l"(s64) : "memory");
    t[n++] = stamp();
  }
  __syncwarp();
  if (tid < 32) {
    asm volatile(
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
        "[%0], [%1], 128;" ::"l"(g),
        "l"(s64)
        : "memory");
    if (tid == 0) t[n] = stamp();
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(g) : "memory");
    if (tid == 0) t[n + 1] = stamp();
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    if (tid == 0) t[n + 2] = stamp();
  }
  n += 3;
  __syncthreads();
  if (tid == 0) t[n] = stamp();
  ++n;
}

enum Mode { kParam = 0, kPrefetch = 1, kGlobal = 2, kDevice = 3, kAtomic = 4 };

__global__ void __launch_bounds__(128) k_desc(const __grid_constant__ CUtensorMap p0,
                                              const __grid_constant__ CUtensorMap p1,
                                              const CUtensorMap* gmaps, char* scratch,
                                              const void* base, int W, int H, int mode,
                                              long long* out, unsigned* sink) {
  extern __shared__ __align__(1024) char sbuf[];  // 2 boxes of 4096 bytes
  __shared__ __align__(128) char tmpl[128];
  __shared__ __align__(8) unsigned long long bar;
  long long t[kStamps];
  int n = 0;
  const unsigned tid = threadIdx.x;
  const unsigned b = smem_addr(&bar), s = smem_addr(sbuf);
  char* my = scratch + static_cast<size_t>(blockIdx.x) * 384;
  if (tid == 0) t[n++] = stamp();  // 0: start
  const void* m0 = &p0;
  const void* m1 = &p1;
  if (mode == kGlobal) m0 = &gmaps[0], m1 = &gmaps[1];
  if (mode == kDevice) {
    build_map(base, W, H, my, smem_addr(tmpl), t, n);        // stamps 1..6
    build_map(base, W, H, my + 128, smem_addr(tmpl), t, n);  // 7..12
    build_map(base, W, H, my + 256, smem_addr(tmpl), t, n);  // 13..18
    m0 = my, m1 = my + 128;
  }
  if (mode == kAtomic) {
    for (int i = 0; i < 3; ++i) {
      if (tid < 32) {
        unsigned old = atomicExch(reinterpret_cast<unsigned*>(my + 128 * i) + tid, tid);
        if (old == 12345u) *sink = old;  // the result is used: the warp waits for it
        __syncwarp();
      }
      if (tid == 0) t[n++] = stamp();  // 1, 2, 3
    }
  }
  if (mode == kPrefetch && tid == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(m0) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(m1) : "memory");
    const long long t0 = stamp();
    while (stamp() - t0 < 4000) {
    }
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) {
    n = 20;
    unsigned phase = 0;
    t[n++] = stamp();  // 20
    expect(b, 4096);   // first0
    tma_load(s, m0, 64, 32, b);
    wait_phase(b, phase), phase ^= 1;
    t[n++] = stamp();  // 21
    expect(b, 4096);   // warm0
    tma_load(s, m0, 64, 32, b);
    wait_phase(b, phase), phase ^= 1;
    t[n++] = stamp();  // 22
    expect(b, 4096);   // first1
    tma_load(s + 4096, m1, 128, 64, b);
    wait_phase(b, phase), phase ^= 1;
    t[n++] = stamp();  // 23
    expect(b, 8192);   // pair
    tma_load(s, m0, 64, 32, b);
    tma_load(s + 4096, m1, 128, 64, b);
    wait_phase(b, phase), phase ^= 1;
    t[n++] = stamp();  // 24
    for (int i = 0; i < 25; ++i) out[blockIdx.x * kStamps + i] = i < n ? t[i] : 0;
    sink[1 + blockIdx.x % 8] = sbuf[tid] + sbuf[4096 + 7];
  }
}

// Reads `bytes` (2x the L2) so that nothing the next launch uses stays in the L2.
__global__ void k_flush(const uint4* buf, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc ^= buf[i].x;
  if (acc == 0x12345678u) *sink = acc;
}

static int encode(CUtensorMap* map, void* base, uint64_t w, uint64_t h) {
  const cuuint64_t dims[2] = {w, h}, strides[1] = {w * 2};
  const cuuint32_t box[2] = {64, 32}, es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides,
                                      box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    fprintf(stderr, "cuTensorMapEncodeTiled: %s\n", s ? s : "?");
    return 1;
  }
  return 0;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  CK(cudaFree(nullptr));
  printf("# %s, %d SMs, cc %d.%d, L2 %d bytes\n", p.name, p.multiProcessorCount, p.major, p.minor,
         p.l2CacheSize);
  const uint64_t W = 4096, H = 1024;
  void* tensor;
  CK(cudaMalloc(&tensor, W * H * 2));
  CK(cudaMemset(tensor, 1, W * H * 2));
  CUtensorMap host[2];
  if (encode(&host[0], tensor, W, H) || encode(&host[1], tensor, W, H)) return 1;
  CUtensorMap* gmaps;
  CK(cudaMalloc(&gmaps, sizeof host));
  CK(cudaMemcpy(gmaps, host, sizeof host, cudaMemcpyHostToDevice));
  char* scratch;
  CK(cudaMalloc(&scratch, 384 * 64));
  CK(cudaMemset(scratch, 0, 384 * 64));
  long long* out;
  unsigned* sink;
  CK(cudaMalloc(&out, 64 * kStamps * sizeof(long long)));
  CK(cudaMalloc(&sink, 64 * sizeof(unsigned)));
  const size_t flush_bytes = 2 * static_cast<size_t>(p.l2CacheSize);
  uint4* fbuf;
  CK(cudaMalloc(&fbuf, flush_bytes));
  CK(cudaMemset(fbuf, 3, flush_bytes));
  const size_t fn = flush_bytes / sizeof(uint4);
  auto flush = [&]() { k_flush<<<4 * p.multiProcessorCount, 512>>>(fbuf, fn, sink); };
  const int smem = 8192;
  CK(cudaFuncSetAttribute(k_desc, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  auto launch = [&](int mode, int blocks) {
    k_desc<<<blocks, 128, smem>>>(host[0], host[1], gmaps, scratch, tensor, static_cast<int>(W),
                                  static_cast<int>(H), mode, out, sink);
  };
  const char* names[] = {"param", "prefetch", "global", "device", "atomic"};
  printf("mode\tl2\tinterval\tcycles_median\tcycles_min\tcycles_max\n");
  for (int mode = 0; mode < 5; ++mode) {
    for (int cold = 0; cold < 2; ++cold) {
      std::vector<std::vector<long long>> runs;
      for (int r = 0; r < 12; ++r) {
        if (cold) flush(); else launch(mode, 1);
        launch(mode, 1);
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
        std::vector<long long> t(kStamps);
        CK(cudaMemcpy(t.data(), out, kStamps * sizeof(long long), cudaMemcpyDeviceToHost));
        if (r > 0) runs.push_back(t);  // the first launch loads the module
      }
      auto row = [&](const std::string& what, int a, int z) {
        std::vector<long long> d;
        for (auto& t : runs) d.push_back(t[z] - t[a]);
        std::sort(d.begin(), d.end());
        printf("%s\t%s\t%s\t%lld\t%lld\t%lld\n", names[mode], cold ? "cold" : "warm", what.c_str(),
               d[d.size() / 2], d.front(), d.back());
      };
      if (mode == kDevice) {
        for (int m = 0; m < 3; ++m) {
          const int o = 1 + 6 * m;  // stamps: zeroed, replaced, cp_fenceproxy, fence, wait, bar
          const std::string k = "map" + std::to_string(m) + "_";
          row(k + "replace", o, o + 1);
          row(k + "cp_fenceproxy", o + 1, o + 2);
          row(k + "fence_acquire", o + 2, o + 3);
          row(k + "commit_wait", o + 3, o + 4);
          row(k + "bar_sync", o + 4, o + 5);
          row(k + "whole", m == 0 ? 0 : o - 1, o + 5);
        }
        row("build_all", 0, 18);
      }
      if (mode == kAtomic) {
        row("exch0", 0, 1);
        row("exch1", 1, 2);
        row("exch2", 2, 3);
      }
      row("first0", 20, 21);
      row("warm0", 21, 22);
      row("first1", 22, 23);
      row("pair", 23, 24);
      row("start_to_loads", 0, 20);
    }
  }
  // The corpus point's grid: 12 blocks, L2 cold, CUDA events.
  printf("mode\tblocks\tl2\tevent_us_median\tevent_us_min\n");
  for (int mode = 0; mode < 5; ++mode) {
    auto t = time_launches([&](int) { flush(); }, [&]() { launch(mode, 12); });
    printf("%s\t12\tcold\t%.3f\t%.3f\n", names[mode], t[10], t[0]);
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
