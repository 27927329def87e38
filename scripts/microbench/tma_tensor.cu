// TMA tensor copies on the H100: the latency of one box load (cp.async.bulk.tensor.2d, tile mode,
// completion on an mbarrier) against a 1D bulk copy of the same bytes, and the bandwidth of one
// SM and of the whole GPU streaming boxes, timed with clock64() (SM cycles) and CUDA events.
// What it prints (TSV, the columns of tensor_async.cu: section, what, warps_per_scheduler, value,
// unit) feeds the [async] preset's tma_tensor_latency and tma_bytes_per_cycle (sim/timing/tma.h):
//   tma_latency   box=WxH bytes=B swizzle=S   one thread, each copy waited before the next,
//                                             L2-resident source (the first copy warms it)
//   bulk_latency  bytes=B                     the same bytes as one 1D cp.async.bulk
//   tma_oob       box=WxH                     a box entirely outside the tensor (fill only)
//   tma_stream_sm box=WxH stages=K            one SM, K copies in flight, L2-resident: bytes/cycle
//   tma_stream_gpu box=WxH stages=K           every SM, a 512 MiB tensor from DRAM: GB/s
// Build and run (scripts/microbench/tma_tensor.sh does both):
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o tma_tensor tma_tensor.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda_check.h"

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
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

__device__ __forceinline__ void tma_load_2d(unsigned dst, const CUtensorMap* map, int x, int y,
                                            unsigned bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, "
      "{%2, %3}], [%4];" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

// One thread: `reps` copies of the box at (x, y), each waited for before the next.
__global__ void k_tma_latency(const __grid_constant__ CUtensorMap map, int x, int y, int bytes,
                              int reps, long long* cycles, unsigned* sink) {
  extern __shared__ __align__(1024) char sbuf[];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar), s = smem_addr(sbuf);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("prefetch.tensormap [%0];" ::"l"(&map) : "memory");
  unsigned phase = 0;
  long long t0 = 0;
  for (int it = 0; it < reps + 1; ++it) {
    if (it == 1) t0 = clock64();  // the first copy warms the L2, the TLB and the descriptor
    tma_load_2d(s, &map, x, y, b, bytes);
    wait_phase(b, phase);
    phase ^= 1;
  }
  *cycles = clock64() - t0;
  *sink = sbuf[bytes - 1];
}

// The same with a 1D bulk copy of `bytes` contiguous bytes.
__global__ void k_bulk_latency(const char* src, int bytes, int reps, long long* cycles,
                               unsigned* sink) {
  extern __shared__ __align__(1024) char sbuf[];
  __shared__ __align__(8) unsigned long long bar;
  const unsigned b = smem_addr(&bar), s = smem_addr(sbuf);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned phase = 0;
  long long t0 = 0;
  for (int it = 0; it < reps + 1; ++it) {
    if (it == 1) t0 = clock64();
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(s),
        "l"(src), "r"(bytes), "r"(b)
        : "memory");
    wait_phase(b, phase);
    phase ^= 1;
  }
  *cycles = clock64() - t0;
  *sink = sbuf[bytes - 1];
}

// One thread per block streams `n` boxes (block b takes tiles b*n .. b*n+n-1, row-major over a
// tiles_x x tiles_y grid of boxes) through `stages` shared buffers, `stages` copies in flight.
__global__ void k_tma_stream(const __grid_constant__ CUtensorMap map, int box_w, int box_h,
                             int tiles_x, int tiles_y, int bytes, int stages, int n,
                             long long* cycles, unsigned* sink) {
  extern __shared__ __align__(1024) char sbuf[];
  __shared__ __align__(8) unsigned long long bars[16];
  if (threadIdx.x != 0) return;
  for (int i = 0; i < stages; ++i)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[i])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned phases = 0;
  const long long t0 = clock64();
  for (int i = 0; i < n + stages; ++i) {
    if (i >= stages) {  // the copy `stages` back has landed: its buffer is free
      const int st = (i - stages) % stages;
      wait_phase(smem_addr(&bars[st]), (phases >> st) & 1);
      phases ^= 1u << st;
    }
    if (i < n) {
      const int st = i % stages;
      const int tile = blockIdx.x * n + i;
      const int x = (tile % tiles_x) * box_w, y = (tile / tiles_x % tiles_y) * box_h;
      tma_load_2d(smem_addr(sbuf + st * bytes), &map, x, y, smem_addr(&bars[st]), bytes);
    }
  }
  cycles[blockIdx.x] = clock64() - t0;
  if (blockIdx.x == 0) *sink = sbuf[0];
}

static int encode(CUtensorMap* map, void* base, uint64_t w, uint64_t h, uint32_t box_w,
                  uint32_t box_h, CUtensorMapSwizzle swizzle) {
  const cuuint64_t dims[2] = {w, h}, strides[1] = {w * 2};
  const cuuint32_t box[2] = {box_w, box_h}, es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides,
                                      box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    fprintf(stderr, "cuTensorMapEncodeTiled(%llux%llu, box %ux%u): %s\n",
            (unsigned long long)w, (unsigned long long)h, box_w, box_h, s ? s : "?");
    return 1;
  }
  return 0;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  CK(cudaFree(nullptr));  // the runtime's context, which the driver calls below use
  const int sms = p.multiProcessorCount;
  printf("# %s, %d SMs, cc %d.%d\n", p.name, sms, p.major, p.minor);
  printf("section\twhat\twarps_per_scheduler\tvalue\tunit\n");
  long long* cyc;
  unsigned* sink;
  CK(cudaMalloc(&cyc, 1024 * sizeof(long long)));
  CK(cudaMalloc(&sink, 4));
  const int kMaxSmem = 200 * 1024;
  CK(cudaFuncSetAttribute(k_tma_latency, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  CK(cudaFuncSetAttribute(k_bulk_latency, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));
  CK(cudaFuncSetAttribute(k_tma_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSmem));

  // 1. Latency, L2-resident: a 4096 x 1024 f16 tensor (8 MiB).
  const uint64_t W = 4096, H = 1024;
  void* small;
  CK(cudaMalloc(&small, W * H * 2));
  CK(cudaMemset(small, 1, W * H * 2));
  struct Shape {
    uint32_t w, h;
    CUtensorMapSwizzle sw;
    const char* sw_name;
  };
  const Shape shapes[] = {{8, 1, CU_TENSOR_MAP_SWIZZLE_NONE, "none"},
                          {64, 1, CU_TENSOR_MAP_SWIZZLE_NONE, "none"},
                          {64, 8, CU_TENSOR_MAP_SWIZZLE_128B, "128B"},
                          {64, 32, CU_TENSOR_MAP_SWIZZLE_128B, "128B"},
                          {64, 64, CU_TENSOR_MAP_SWIZZLE_128B, "128B"},
                          {64, 64, CU_TENSOR_MAP_SWIZZLE_NONE, "none"},
                          {32, 64, CU_TENSOR_MAP_SWIZZLE_64B, "64B"},
                          {16, 64, CU_TENSOR_MAP_SWIZZLE_32B, "32B"},
                          {64, 128, CU_TENSOR_MAP_SWIZZLE_128B, "128B"},
                          {64, 256, CU_TENSOR_MAP_SWIZZLE_128B, "128B"},
                          {256, 64, CU_TENSOR_MAP_SWIZZLE_NONE, "none"}};
  const int reps = 64;
  for (const Shape& s : shapes) {
    CUtensorMap map;
    if (encode(&map, small, W, H, s.w, s.h, s.sw)) return 1;
    const int bytes = static_cast<int>(s.w * s.h * 2);
    k_tma_latency<<<1, 1, bytes>>>(map, 128, 64, bytes, reps, cyc, sink);
    long long c;
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
    printf("tma_latency\tbox=%ux%u bytes=%d swizzle=%s\t0.25\t%.2f\tcycles_per_copy\n", s.w, s.h,
           bytes, s.sw_name, c / double(reps));
    k_bulk_latency<<<1, 1, bytes>>>(static_cast<const char*>(small), bytes, reps, cyc, sink);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
    printf("bulk_latency\tbytes=%d\t0.25\t%.2f\tcycles_per_copy\n", bytes, c / double(reps));
  }
  {  // a box entirely outside the tensor: fill only, no memory traffic
    CUtensorMap map;
    if (encode(&map, small, W, H, 64, 64, CU_TENSOR_MAP_SWIZZLE_128B)) return 1;
    k_tma_latency<<<1, 1, 8192>>>(map, 0, static_cast<int>(H) + 256, 8192, reps, cyc, sink);
    long long c;
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
    printf("tma_oob\tbox=64x64 bytes=8192 swizzle=128B\t0.25\t%.2f\tcycles_per_copy\n",
           c / double(reps));
  }

  // 2. One SM streaming boxes from the L2-resident tensor: bytes per cycle.
  for (uint32_t bh : {8u, 32u, 64u, 128u}) {
    for (int stages : {1, 2, 4, 8}) {
      const uint32_t bw = 64;
      const int bytes = static_cast<int>(bw * bh * 2);
      if (bytes * stages > kMaxSmem) continue;
      CUtensorMap map;
      if (encode(&map, small, W, H, bw, bh, CU_TENSOR_MAP_SWIZZLE_128B)) return 1;
      const int tiles_x = static_cast<int>(W / bw), tiles_y = static_cast<int>(H / bh);
      const int n = 256;
      k_tma_stream<<<1, 32, bytes * stages>>>(map, bw, bh, tiles_x, tiles_y, bytes, stages, n,
                                              cyc, sink);  // warm-up: the tensor into L2
      k_tma_stream<<<1, 32, bytes * stages>>>(map, bw, bh, tiles_x, tiles_y, bytes, stages, n,
                                              cyc, sink);
      long long c;
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
      printf("tma_stream_sm\tbox=%ux%u bytes=%d stages=%d\t0.25\t%.2f\tbytes_per_cycle\n", bw, bh,
             bytes, stages, double(bytes) * n / double(c));
    }
  }

  // 3. Every SM streaming a 512 MiB tensor from DRAM: GB/s and bytes per cycle per SM.
  {
    const uint64_t BW = 16384, BH = 16384;
    void* big;
    CK(cudaMalloc(&big, BW * BH * 2));
    CK(cudaMemset(big, 2, BW * BH * 2));
    for (int stages : {2, 4, 8}) {
      const uint32_t bw = 64, bh = 128;
      const int bytes = static_cast<int>(bw * bh * 2);
      CUtensorMap map;
      if (encode(&map, big, BW, BH, bw, bh, CU_TENSOR_MAP_SWIZZLE_128B)) return 1;
      const int tiles_x = static_cast<int>(BW / bw), tiles_y = static_cast<int>(BH / bh);
      const int n = tiles_x * tiles_y / sms;
      cudaEvent_t e0, e1;
      CK(cudaEventCreate(&e0));
      CK(cudaEventCreate(&e1));
      CK(cudaEventRecord(e0));
      k_tma_stream<<<sms, 32, bytes * stages>>>(map, bw, bh, tiles_x, tiles_y, bytes, stages, n,
                                                cyc, sink);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      std::vector<long long> c(static_cast<size_t>(sms));
      CK(cudaMemcpy(c.data(), cyc, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
      long long worst = 0;
      for (long long v : c) worst = v > worst ? v : worst;
      const double total = double(bytes) * n * sms;
      printf("tma_stream_gpu\tbox=%ux%u bytes=%d stages=%d\t0.25\t%.1f\tGB_per_s\n", bw, bh, bytes,
             stages, total / (ms * 1e-3) / 1e9);
      printf("tma_stream_gpu\tbox=%ux%u bytes=%d stages=%d\t0.25\t%.2f\tbytes_per_cycle_per_sm\n",
             bw, bh, bytes, stages, double(bytes) * n / double(worst));
      CK(cudaEventDestroy(e0));
      CK(cudaEventDestroy(e1));
    }
    CK(cudaFree(big));
  }
  CK(cudaFree(small));
  return 0;
}
