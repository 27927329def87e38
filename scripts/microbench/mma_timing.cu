// WarpLab microbenchmark: latency and issue rate of the tensor pipe (mma.sync) and of ldmatrix.
//
//   nvcc -O3 -arch=sm_90 -o mma_timing mma_timing.cu && ./mma_timing > h100-mma-timing.tsv
//
// Timed with clock64() inside the kernel (SM cycles), ITER instructions per measurement:
//   latency     one warp, one dependent chain: each mma's accumulator is the previous mma's D
//               (ldmatrix: each address depends on the previous load's result). cycles per op.
//   throughput  one block of 4*W warps on one SM (W warps per sub-partition, W = 1..4), each warp
//               running CHAINS independent accumulator chains (enough to hide the latency):
//               cycles per mma per sub-partition = elapsed / (ITER * CHAINS * W).
// Columns: op, kind (latency | throughput), warps_per_subpartition, cycles_per_op, and for
// throughput the dense FLOP per cycle per SM it implies (2*M*N*K per mma, 4 sub-partitions).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e = (x);                                                                  \
    if (e != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

constexpr int ITER = 512;
constexpr int CHAINS = 8;

// One mma of each form on accumulator registers d[0..3] (f32 or s32 bits), A and B constant.
#define MMA_F16(d, a, b)                                                                      \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "           \
               "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                       \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_BF16(d, a, b)                                                                     \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "         \
               "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                       \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_TF32(d, a, b)                                                                     \
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "          \
               "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                       \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_S8(d, a, b)                                                                       \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "             \
               "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                       \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// Latency: one chain. Throughput: CHAINS chains per warp. Small inputs (0x3c00 = 1.0 in f16,
// tiny in bf16/tf32, 1 in s8) keep the values finite; the results are stored so nothing is
// dead code.
#define KERNELS(NAME, MMA)                                                                    \
  __global__ void NAME##_lat(uint32_t* out, long long* cyc, uint32_t seed) {                 \
    uint32_t a[4] = {seed, seed, seed, seed}, b[2] = {seed, seed}, d[4] = {0, 0, 0, 0};     \
    __syncwarp();                                                                             \
    const long long t0 = clock64();                                                           \
    for (int i = 0; i < ITER; ++i) MMA(d, a, b);                                              \
    const long long t1 = clock64();                                                           \
    out[threadIdx.x] = d[0] ^ d[1] ^ d[2] ^ d[3];                                             \
    if (threadIdx.x == 0) cyc[0] = t1 - t0;                                                   \
  }                                                                                           \
  __global__ void NAME##_thr(uint32_t* out, long long* cyc, uint32_t seed) {                 \
    uint32_t a[4] = {seed, seed, seed, seed}, b[2] = {seed, seed};                           \
    uint32_t d[CHAINS][4] = {};                                                               \
    __syncthreads();                                                                          \
    const long long t0 = clock64();                                                           \
    for (int i = 0; i < ITER; ++i) {                                                          \
      _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) MMA(d[c], a, b);                     \
    }                                                                                         \
    __syncthreads();                                                                          \
    const long long t1 = clock64();                                                           \
    uint32_t x = 0;                                                                           \
    for (int c = 0; c < CHAINS; ++c) x ^= d[c][0] ^ d[c][1] ^ d[c][2] ^ d[c][3];             \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;                                           \
    if (threadIdx.x == 0) cyc[0] = t1 - t0;                                                   \
  }

#define MMA MMA_F16
KERNELS(f16, MMA)
#undef MMA
#define MMA MMA_BF16
KERNELS(bf16, MMA)
#undef MMA
#define MMA MMA_TF32
KERNELS(tf32, MMA)
#undef MMA
#define MMA MMA_S8
KERNELS(s8, MMA)
#undef MMA

// ldmatrix latency: each lane's row address comes from the previous load's result (masked to
// stay inside the 4 KB array), so loads cannot overlap.
template <int NUM>
__global__ void ldmatrix_lat(uint32_t* out, long long* cyc) {
  __shared__ __align__(16) uint16_t sm[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) sm[i] = 0;  // every row address -> 0
  __syncthreads();
  uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(sm));
  uint32_t off = (threadIdx.x % 8) * 16 + (threadIdx.x / 8) * 128;
  uint32_t r[4] = {0, 0, 0, 0};
  const long long t0 = clock64();
  for (int i = 0; i < ITER; ++i) {
    const uint32_t addr = base + ((off + r[0]) & 2047);
    if (NUM == 1)
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    if (NUM == 2)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                   : "=r"(r[0]), "=r"(r[1])
                   : "r"(addr));
    if (NUM == 4)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(addr));
  }
  const long long t1 = clock64();
  out[threadIdx.x] = r[0] ^ r[1] ^ r[2] ^ r[3];
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

using Kern = void (*)(uint32_t*, long long*, uint32_t);

int main() {
  uint32_t* out;
  long long* cyc;
  CK(cudaMalloc(&out, 1024 * 4));
  CK(cudaMalloc(&cyc, 8));
  struct Op {
    const char* name;
    Kern lat, thr;
    uint32_t seed;
    double flop;  // dense FLOP (or integer OP) per mma: 2*M*N*K
  };
  const Op ops[] = {
      {"mma_m16n8k16_f16_f32", f16_lat, f16_thr, 0x00010001u, 2.0 * 16 * 8 * 16},
      {"mma_m16n8k16_bf16_f32", bf16_lat, bf16_thr, 0x00010001u, 2.0 * 16 * 8 * 16},
      {"mma_m16n8k8_tf32_f32", tf32_lat, tf32_thr, 0x00002000u, 2.0 * 16 * 8 * 8},
      {"mma_m16n8k32_s8_s32", s8_lat, s8_thr, 0x01010101u, 2.0 * 16 * 8 * 32},
  };
  printf("op\tkind\twarps_per_subpartition\tcycles_per_op\tflop_per_cycle_per_sm\n");
  long long c = 0;
  for (const Op& op : ops) {
    for (int rep = 0; rep < 2; ++rep) {  // the first launch warms up; the second is reported
      op.lat<<<1, 32>>>(out, cyc, op.seed);
      CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("%s\tlatency\t1\t%.2f\t\n", op.name, double(c) / ITER);
    for (int w = 1; w <= 4; ++w) {
      for (int rep = 0; rep < 2; ++rep) {
        op.thr<<<1, 128 * w>>>(out, cyc, op.seed);
        CK(cudaDeviceSynchronize());
      }
      CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
      const double per_sub = double(c) / (double(ITER) * CHAINS * w);
      printf("%s\tthroughput\t%d\t%.3f\t%.1f\n", op.name, w, per_sub, 4 * op.flop / per_sub);
    }
  }
  void (*ldm[3])(uint32_t*, long long*) = {ldmatrix_lat<1>, ldmatrix_lat<2>, ldmatrix_lat<4>};
  const int nums[3] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    for (int rep = 0; rep < 2; ++rep) {
      ldm[i]<<<1, 32>>>(out, cyc);
      CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("ldmatrix_x%d\tlatency\t1\t%.2f\t\n", nums[i], double(c) / ITER);
  }
  return 0;
}
