// WarpLab microbenchmark: the H100's tensor pipe (mma.sync, ldmatrix), its numerics, and the
// asynchronous machinery (cp.async, mbarrier, 1D bulk copies), timed with clock64() (SM cycles).
//
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o tensor_async tensor_async.cu
//   ./tensor_async timing  > h100-tensor-async-DATE.tsv
//   ./tensor_async numerics [DIR] > h100-mma-numerics-DATE.tsv   (DIR: raw inputs/outputs, .bin)
//   cuobjdump -sass tensor_async | grep -E 'HMMA|IMMA|LDSM|LDGSTS|SYNCS|UBLKCP'   (the SASS)
//
// timing rows:  section, what, warps_per_scheduler, value, unit
//   mma latency:    one warp, one dependent chain (D of one mma is C of the next): cycles per mma;
//   mma throughput: W warps per scheduler (4W per SM, one block), 4 independent chains per warp:
//                   cycles per warp mma per scheduler (the issue interval of the tensor pipe);
//   ldmatrix latency: one warp, the next address depends on the loaded value;
//   cp.async latency: one thread, a pointer chase where each step is cp.async 16 B + commit +
//                   wait_group 0 + ld.shared; beside it the same chase through ld.global.cg;
//   mbarrier:       one thread (count 1) or a warp (count 32): arrive + try_wait.parity loop;
//   bulk copy:      one thread: cp.async.bulk global->shared of S bytes completing on an mbarrier
//                   (complete_tx), waited with try_wait: cycles per copy, L2-resident source.
// numerics rows: case, kind, gpu_bits, and for each candidate accumulation rule whether it gives
//   the same bits; a summary line per rule counts the matches over all cases.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.h"

constexpr int ITER = 512;

// ---- mma.sync shapes: one macro per shape/type: the asm for D = A*B + D on chain registers ----
#define MMA_F16_K16_F32(d, a, b)                                                                   \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                           \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_BF16_K16_F32(d, a, b)                                                                    \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                             \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_F16_K8_F32(d, a, b)                                                                    \
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, " \
               "{%0,%1,%2,%3};"                                                                   \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                   \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]))
#define MMA_TF32_K8_F32(d, a, b)                                                                     \
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                             \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_E4M3_K32_F32(d, a, b)                                                                    \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                             \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_F16_K16_F16(d, a, b)                                                                 \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, "     \
               "{%6,%7}, {%0,%1};"                                                               \
               : "+r"(d[0]), "+r"(d[1])                                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_S8_K32_S32(d, a, b)                                                                    \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                           \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// One kernel per shape: CHAINS independent accumulators per warp; each warp times its own loop.
#define MMA_KERNEL(name, DT, DN, MACRO)                                                        \
  template <int CHAINS>                                                                        \
  __global__ void k_##name(unsigned seed, long long* cycles, void* sinkv) {                    \
    DT* sink = (DT*)sinkv;                       \
    unsigned a[4], b[2];                                                                       \
    for (int i = 0; i < 4; ++i) a[i] = (seed * (threadIdx.x + 1) * (i + 3)) & 0x3c003c00u;     \
    for (int i = 0; i < 2; ++i) b[i] = (seed * (threadIdx.x + 7) * (i + 5)) & 0x3c003c00u;     \
    DT d[CHAINS][4] = {};                                                                      \
    __syncthreads();                                                                           \
    long long t0 = clock64();                                                                  \
    for (int it = 0; it < ITER; ++it) {                                                        \
      _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) { MACRO(d[c], a, b); }                \
    }                                                                                          \
    long long t1 = clock64();                                                                  \
    DT s = DT();                                                                               \
    for (int c = 0; c < CHAINS; ++c)                                                           \
      for (int i = 0; i < DN; ++i) s += d[c][i];                                               \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s;                                           \
    if ((threadIdx.x & 31) == 0) cycles[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = t1 - t0; \
  }

MMA_KERNEL(f16_k16_f32, float, 4, MMA_F16_K16_F32)
MMA_KERNEL(bf16_k16_f32, float, 4, MMA_BF16_K16_F32)
MMA_KERNEL(f16_k8_f32, float, 4, MMA_F16_K8_F32)
MMA_KERNEL(tf32_k8_f32, float, 4, MMA_TF32_K8_F32)
MMA_KERNEL(e4m3_k32_f32, float, 4, MMA_E4M3_K32_F32)
MMA_KERNEL(f16_k16_f16, unsigned, 2, MMA_F16_K16_F16)
MMA_KERNEL(s8_k32_s32, int, 4, MMA_S8_K32_S32)

// Launches `blocks` blocks of `threads`; returns the slowest warp's cycles.
template <typename K>
static long long launch_mma(K kernel, int blocks, int threads) {
  long long* cyc;
  void* sink;
  int nwarps = blocks * threads / 32;
  CK(cudaMalloc(&cyc, nwarps * sizeof(long long)));
  CK(cudaMalloc(&sink, (size_t)blocks * threads * 8));
  kernel<<<blocks, threads>>>(0x9e3779b9u, cyc, sink);
  CK(cudaDeviceSynchronize());
  std::vector<long long> h(nwarps);
  CK(cudaMemcpy(h.data(), cyc, nwarps * sizeof(long long), cudaMemcpyDeviceToHost));
  long long mx = 0;
  for (auto v : h) mx = v > mx ? v : mx;
  CK(cudaFree(cyc));
  CK(cudaFree(sink));
  return mx;
}

// ---- ldmatrix latency: the next address depends on the value loaded (all zeros) ----
template <int X>
__global__ void k_ldmatrix(long long* cycles, unsigned* sink) {
  __shared__ __align__(128) unsigned short tile[4 * 8 * 8 * 2];
  for (int i = threadIdx.x; i < 4 * 8 * 8 * 2; i += blockDim.x) tile[i] = 0;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(tile) + (threadIdx.x % (8 * X)) * 16;
  unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  long long t0 = clock64();
  for (int it = 0; it < ITER; ++it) {
    unsigned addr = base + (r0 & 0xffff);
    if (X == 1)
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
    else if (X == 2)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
    else
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                   : "r"(addr));
  }
  long long t1 = clock64();
  sink[threadIdx.x] = r0 + r1 + r2 + r3;
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

// A plain ld.shared chase for reference (same structure, 4-byte load).
__global__ void k_lds_chase(long long* cycles, unsigned* sink) {
  __shared__ unsigned tile[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) tile[i] = 0;
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(tile) + threadIdx.x * 4;
  unsigned r0 = 0;
  long long t0 = clock64();
  for (int it = 0; it < ITER; ++it) {
    unsigned addr = base + r0;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r0) : "r"(addr));
  }
  long long t1 = clock64();
  sink[threadIdx.x] = r0;
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

// ---- cp.async chase: chain[i] holds the index of the next 16-byte element ----
__global__ void k_cpasync_chase(const uint4* chain, int steps, long long* cycles, unsigned* sink) {
  __shared__ __align__(16) uint4 s[1];
  unsigned idx = 0;
  unsigned saddr = (unsigned)__cvta_generic_to_shared(s);
  long long t0 = clock64();
  for (int it = 0; it < steps; ++it) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(chain + idx) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(idx) : "r"(saddr) : "memory");
  }
  long long t1 = clock64();
  *sink = idx;
  *cycles = t1 - t0;
}
__global__ void k_ldg_chase(const uint4* chain, int steps, long long* cycles, unsigned* sink) {
  unsigned idx = 0;
  long long t0 = clock64();
  for (int it = 0; it < steps; ++it) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(chain + idx) : "memory");
    idx = v;
  }
  long long t1 = clock64();
  *sink = idx;
  *cycles = t1 - t0;
}

// ---- mbarrier: arrive + try_wait.parity round trips, count = arrivals per phase ----
__global__ void k_mbarrier(int count, long long* cycles, unsigned* sink) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(count));
  __syncthreads();
  unsigned phase = 0;
  long long t0 = clock64();
  for (int it = 0; it < ITER; ++it) {
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(b), "r"(phase)
          : "memory");
    }
    phase ^= 1;
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    *cycles = t1 - t0;
    *sink = phase;
  }
}

// ---- 1D bulk copy global -> shared, completion on an mbarrier (complete_tx) ----
__global__ void k_bulk(const char* src, int bytes, int reps, long long* cycles, unsigned* sink) {
  extern __shared__ __align__(128) char sbuf[];
  __shared__ __align__(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned s = (unsigned)__cvta_generic_to_shared(sbuf);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned phase = 0;
  long long t0 = 0;
  for (int it = 0; it < reps + 1; ++it) {
    if (it == 1) t0 = clock64();  // the first copy warms the L2 and the TLB
    unsigned long long st;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(s),
                 "l"(src), "r"(bytes), "r"(b)
                 : "memory");
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(b), "r"(phase)
          : "memory");
    }
    phase ^= 1;
  }
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = sbuf[bytes - 1];
}

static long long one(long long* dcyc) {
  long long h;
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&h, dcyc, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

static int timing() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int sms = p.multiProcessorCount;
  printf("# %s, %d SMs, cc %d.%d\n", p.name, sms, p.major, p.minor);
  printf("section\twhat\twarps_per_scheduler\tvalue\tunit\n");
#define ROW_MMA(name)                                                                              \
  do {                                                                                             \
    launch_mma(k_##name<1>, 1, 32); /* warm-up */                                                  \
    printf("mma_latency\t%s\t0.25\t%.2f\tcycles\n", #name,                                        \
           launch_mma(k_##name<1>, 1, 32) / double(ITER));                                         \
    for (int w : {1, 2, 4, 8}) {                                                                   \
      /* W warps per scheduler, 4 chains each: W*4 mma per scheduler per iteration */             \
      long long c = launch_mma(k_##name<4>, sms, 128 * w);                                         \
      printf("mma_interval\t%s\t%d\t%.3f\tcycles_per_warp_mma_per_scheduler\n", #name, w,        \
             c / double(ITER) / (4.0 * w));                                                        \
    }                                                                                              \
    for (int w : {1, 2}) {                                                                         \
      long long c = launch_mma(k_##name<1>, sms, 128 * w);                                         \
      printf("mma_interval_1chain\t%s\t%d\t%.3f\tcycles_per_warp_mma_per_scheduler\n", #name, w, \
             c / double(ITER) / (1.0 * w));                                                        \
    }                                                                                              \
  } while (0)
  ROW_MMA(f16_k16_f32);
  ROW_MMA(bf16_k16_f32);
  ROW_MMA(f16_k8_f32);
  ROW_MMA(tf32_k8_f32);
  ROW_MMA(e4m3_k32_f32);
  ROW_MMA(f16_k16_f16);
  ROW_MMA(s8_k32_s32);
#undef ROW_MMA

  long long* cyc;
  unsigned* sink;
  CK(cudaMalloc(&cyc, sizeof(long long) * 64));
  CK(cudaMalloc(&sink, 4096 * 4));
  // ldmatrix and ld.shared chases
  for (int rep = 0; rep < 2; ++rep) {
    k_lds_chase<<<1, 32>>>(cyc, sink);
    long long c0 = one(cyc);
    k_ldmatrix<1><<<1, 32>>>(cyc, sink);
    long long c1 = one(cyc);
    k_ldmatrix<2><<<1, 32>>>(cyc, sink);
    long long c2 = one(cyc);
    k_ldmatrix<4><<<1, 32>>>(cyc, sink);
    long long c4 = one(cyc);
    if (rep == 1) {
      printf("lds_latency\tld.shared.u32\t0.25\t%.2f\tcycles\n", c0 / double(ITER));
      printf("ldmatrix_latency\tx1\t0.25\t%.2f\tcycles\n", c1 / double(ITER));
      printf("ldmatrix_latency\tx2\t0.25\t%.2f\tcycles\n", c2 / double(ITER));
      printf("ldmatrix_latency\tx4\t0.25\t%.2f\tcycles\n", c4 / double(ITER));
    }
  }
  // cp.async and ld.global.cg chases: L2-resident (64 KiB, stride 272 B) and DRAM (1 GiB spread)
  {
    struct Case { const char* name; size_t bytes; size_t stride; int steps; };
    Case cases[] = {{"l2", 64 << 10, 272, 4096}, {"dram", (size_t)1 << 30, (size_t)(1 << 20) + 4096 + 272, 1000}};
    for (const Case& cs : cases) {
      size_t n = cs.bytes / 16;
      std::vector<uint4> h(n);
      memset(h.data(), 0, n * 16);
      size_t elem_stride = cs.stride / 16;
      size_t idx = 0;
      for (int s = 0; s < cs.steps + 1; ++s) {
        size_t next = (idx + elem_stride) % n;
        h[idx].x = (unsigned)next;
        idx = next;
      }
      uint4* d;
      CK(cudaMalloc(&d, cs.bytes));
      CK(cudaMemcpy(d, h.data(), cs.bytes, cudaMemcpyHostToDevice));
      for (int rep = 0; rep < 2; ++rep) {
        k_ldg_chase<<<1, 1>>>(d, cs.steps, cyc, sink);
        long long a = one(cyc);
        k_cpasync_chase<<<1, 1>>>(d, cs.steps, cyc, sink);
        long long b = one(cyc);
        if (rep == 1 || cs.bytes > (64 << 20)) {
          printf("chase_%s\tld.global.cg\t0.25\t%.2f\tcycles_per_step\n", cs.name, a / double(cs.steps));
          printf("chase_%s\tcp.async.cg16+wait+lds\t0.25\t%.2f\tcycles_per_step\n", cs.name, b / double(cs.steps));
        }
      }
      CK(cudaFree(d));
    }
  }
  // mbarrier round trips
  for (int count : {1, 32}) {
    k_mbarrier<<<1, count>>>(count, cyc, sink);
    one(cyc);
    k_mbarrier<<<1, count>>>(count, cyc, sink);
    printf("mbarrier_roundtrip\tarrive+try_wait.parity count=%d\t0.25\t%.2f\tcycles\n", count, one(cyc) / double(ITER));
  }
  // 1D bulk copies, L2-resident source
  {
    char* src;
    CK(cudaMalloc(&src, 1 << 20));
    CK(cudaMemset(src, 1, 1 << 20));
    CK(cudaFuncSetAttribute(k_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    for (int bytes : {16, 128, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}) {
      k_bulk<<<1, 1, bytes>>>(src, bytes, 64, cyc, sink);
      long long c = one(cyc);
      printf("bulk_copy\tg2s bytes=%d\t0.25\t%.2f\tcycles_per_copy\n", bytes, c / 64.0);
    }
    CK(cudaFree(src));
  }
  return 0;
}

int numerics(const char* dump);
int main(int argc, char** argv) {
  if (argc > 1 && !strcmp(argv[1], "numerics")) return numerics(argc > 2 ? argv[2] : nullptr);
  return timing();
}


// ---------------------------------------------------------------------------------------------
// Numerics: D = A*B + C for one m16n8k16 tile per warp, A and B of bf16 or f16, C and D fp32.
// Fragments per lane as the PTX ISA gives them (g = lane / 4, t = lane % 4):
//   A: {A[g][2t..2t+1]}, {A[g+8][2t..2t+1]}, {A[g][2t+8..2t+9]}, {A[g+8][2t+8..2t+9]}
//   B: {B[2t..2t+1][g]}, {B[2t+8..2t+9][g]}      C/D: D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1]
__global__ void k_numerics(int bf16, const unsigned short* A, const unsigned short* B, const float* C,
                           float* D) {
  int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const unsigned short* a = A + w * 256;
  const unsigned short* b = B + w * 128;
  const float* c = C + w * 128;
  float* d = D + w * 128;
  auto pk = [](unsigned short lo, unsigned short hi) { return (unsigned)lo | ((unsigned)hi << 16); };
  unsigned ar[4] = {pk(a[g * 16 + 2 * t], a[g * 16 + 2 * t + 1]), pk(a[(g + 8) * 16 + 2 * t], a[(g + 8) * 16 + 2 * t + 1]),
                    pk(a[g * 16 + 2 * t + 8], a[g * 16 + 2 * t + 9]),
                    pk(a[(g + 8) * 16 + 2 * t + 8], a[(g + 8) * 16 + 2 * t + 9])};
  unsigned br[2] = {pk(b[(2 * t) * 8 + g], b[(2 * t + 1) * 8 + g]), pk(b[(2 * t + 8) * 8 + g], b[(2 * t + 9) * 8 + g])};
  float dr[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]};
  if (bf16)
    MMA_BF16_K16_F32(dr, ar, br);
  else
    MMA_F16_K16_F32(dr, ar, br);
  d[g * 8 + 2 * t] = dr[0];
  d[g * 8 + 2 * t + 1] = dr[1];
  d[(g + 8) * 8 + 2 * t] = dr[2];
  d[(g + 8) * 8 + 2 * t + 1] = dr[3];
}

typedef __int128 i128;
constexpr int UNIT = 64;  // exact values as integers in units of 2^-64

static double half_value(unsigned short h, bool bf16) {
  int s = h >> 15;
  if (bf16) {
    int e = (h >> 7) & 0xff, m = h & 0x7f;
    double v = e == 0 ? ldexp(m, -133) : ldexp(128 + m, e - 134);
    return s ? -v : v;
  }
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
  return s ? -v : v;
}
static i128 to_units(double v) {  // exact for the values used (|v| < 2^40, granularity >= 2^-64)
  double a = fabs(v);
  int e;
  double m = frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  long long im = (long long)ldexp(m, 53);
  int sh = e - 53 + UNIT;
  i128 r = sh >= 0 ? ((i128)im << sh) : ((i128)im >> -sh);
  return v < 0 ? -r : r;
}
static int msb(i128 v) {
  unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
  int m = -1;
  while (u) { u >>= 1; ++m; }
  return m;
}
static i128 round_f32(i128 v, bool rne) {  // to 24 significant bits
  if (v == 0) return 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
  int m = msb(v);
  if (m >= 24) {
    int sh = m - 23;
    unsigned __int128 q = u >> sh, rem = u & (((unsigned __int128)1 << sh) - 1);
    unsigned __int128 half = (unsigned __int128)1 << (sh - 1);
    if (rne && (rem > half || (rem == half && (q & 1)))) ++q;
    u = q << sh;
  }
  return neg ? -(i128)u : (i128)u;
}
static float units_to_float(i128 v) {
  double d = 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
  d = ldexp((double)(unsigned long long)(u >> 64), 0) * 18446744073709551616.0 + (double)(unsigned long long)u;
  d = ldexp(d, -UNIT);
  return (float)(neg ? -d : d);  // v already has at most 24 significant bits: exact
}
// Candidate rule: accumulator and `group` products aligned to the largest exponent among them,
// each truncated to F bits below it, summed exactly, then rounded to fp32 (RZ or RNE).
static float rule_group(i128 c, const i128* p, int group, int F, bool rne) {
  i128 acc = c;
  for (int k0 = 0; k0 < 16; k0 += group) {
    i128 terms[17];
    int n = 0;
    terms[n++] = acc;
    for (int k = k0; k < k0 + group; ++k) terms[n++] = p[k];
    int emax = -1;
    for (int i = 0; i < n; ++i)
      if (terms[i] != 0 && msb(terms[i]) > emax) emax = msb(terms[i]);
    i128 sum = 0;
    for (int i = 0; i < n; ++i) {
      i128 x = terms[i];
      int sh = emax - F;
      if (sh > 0) {
        bool neg = x < 0;
        unsigned __int128 u = neg ? -(unsigned __int128)x : (unsigned __int128)x;
        u = (u >> sh) << sh;
        x = neg ? -(i128)u : (i128)u;
      }
      sum += x;
    }
    acc = round_f32(sum, rne);
  }
  return units_to_float(acc);
}

int numerics(const char* dump) {
  const int WARPS = 256;
  printf("# mma.sync m16n8k16 numerics: rule\ttype\tmatches\ttotal\n");
  unsigned long long rng = 0x1234567887654321ull;
  auto next = [&]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  for (int bf16 = 1; bf16 >= 0; --bf16) {
    std::vector<unsigned short> A(WARPS * 256), B(WARPS * 128);
    std::vector<float> C(WARPS * 128), D(WARPS * 128);
    for (int w = 0; w < WARPS; ++w) {
      int mode = w % 4;  // 0: small integers (layout check), 1: wide exponents, 2: narrow, 3: cancelling
      auto gen = [&](bool is_c) -> double {
        if (mode == 0) return (double)((int)(next() % 9) - 4);
        int spread = mode == 1 ? 20 : (mode == 2 ? 4 : 10);
        int e = (int)(next() % (spread + 1)) - spread / 2;
        double m = 1.0 + (next() % 1024) / 1024.0;
        double v = ldexp(m, e) * ((next() & 1) ? -1 : 1);
        (void)is_c;
        return v;
      };
      for (int i = 0; i < 256; ++i) {
        double v = gen(false);
        A[w * 256 + i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rz((float)v)) : __half_as_ushort(__float2half_rz((float)v));
      }
      for (int i = 0; i < 128; ++i) {
        double v = gen(false);
        B[w * 128 + i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rz((float)v)) : __half_as_ushort(__float2half_rz((float)v));
      }
      for (int i = 0; i < 128; ++i) {
        double v = gen(true);
        if (mode != 0) v *= 1.0 + (next() % 4096) / 4096.0 / 1024.0;  // fp32 bits below the halves'
        C[w * 128 + i] = (float)v;
      }
      if (mode == 3)  // cancelling: B's second half negates the first for half the columns
        for (int k = 0; k < 8; ++k)
          for (int n = 0; n < 4; ++n) B[w * 128 + (k + 8) * 8 + n] = B[w * 128 + k * 8 + n] ^ 0x8000;
    }
    unsigned short *dA, *dB;
    float *dC, *dD;
    CK(cudaMalloc(&dA, A.size() * 2));
    CK(cudaMalloc(&dB, B.size() * 2));
    CK(cudaMalloc(&dC, C.size() * 4));
    CK(cudaMalloc(&dD, D.size() * 4));
    CK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    k_numerics<<<WARPS / 4, 128>>>(bf16, dA, dB, dC, dD);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
    struct Rule { std::string name; int group, F; bool rne; long matches = 0; };
    std::vector<Rule> rules;
    rules.push_back({"exact_rne", 16, 200, true});
    rules.push_back({"exact_rz", 16, 200, false});
    for (int g : {1, 2, 4, 8, 16})
      for (int F : {23, 24, 25, 26, 27, 28, 30})
        for (int rne : {0, 1})
          rules.push_back({"group" + std::to_string(g) + "_F" + std::to_string(F) + (rne ? "_rne" : "_rz"), g, F, (bool)rne});
    long seq_match = 0, layout_ok = 0, layout_total = 0, total = 0;
    for (int w = 0; w < WARPS; ++w)
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
          i128 p[16];
          float seq = C[w * 128 + m * 8 + n];
          for (int k = 0; k < 16; ++k) {
            double a = half_value(A[w * 256 + m * 16 + k], bf16), b = half_value(B[w * 128 + k * 8 + n], bf16);
            p[k] = to_units(a * b);  // exact: 8- or 11-bit significands
            seq = fmaf((float)a, (float)b, seq);
          }
          i128 c = to_units(C[w * 128 + m * 8 + n]);
          float got = D[w * 128 + m * 8 + n];
          ++total;
          if (w % 4 == 0) {
            ++layout_total;
            layout_ok += rule_group(c, p, 16, 200, true) == got;
          }
          seq_match += seq == got;
          for (Rule& r : rules) r.matches += rule_group(c, p, r.group, r.F, r.rne) == got;
        }
    const char* ty = bf16 ? "bf16" : "f16";
    if (dump) {  // raw A, B, C, D for offline analysis of other rules
      std::string path = std::string(dump) + "/mma-numerics-" + ty + ".bin";
      FILE* f = fopen(path.c_str(), "wb");
      if (f) {
        fwrite(A.data(), 2, A.size(), f);
        fwrite(B.data(), 2, B.size(), f);
        fwrite(C.data(), 4, C.size(), f);
        fwrite(D.data(), 4, D.size(), f);
        fclose(f);
      }
    }
    printf("layout_check\t%s\t%ld\t%ld\n", ty, layout_ok, layout_total);
    printf("sequential_fp32_fma\t%s\t%ld\t%ld\n", ty, seq_match, total);
    for (Rule& r : rules) printf("%s\t%s\t%ld\t%ld\n", r.name.c_str(), ty, r.matches, total);
    // a few raw examples for the record
    for (int i = 0; i < 6; ++i) {
      int w = 1 + 4 * i, m = i % 16, n = (3 * i) % 8;
      float got = D[w * 128 + m * 8 + n];
      unsigned bits;
      memcpy(&bits, &got, 4);
      printf("# example warp %d D[%d][%d] = %.9g (0x%08x)\n", w, m, n, got, bits);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dD);
  }
  return 0;
}
