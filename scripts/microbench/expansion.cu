// WarpLab microbenchmark: what one PTX instruction costs once ptxas has expanded it.
//
//   nvcc -O3 -arch=sm_90 -o expansion expansion.cu && ./expansion > expansion.tsv
//   cuobjdump -sass expansion  (the SASS sequence of each op: its issue slots and pipes)
//
// For each op, two kernels, both timed with clock64() inside the kernel (SM cycles):
//   latency:    one warp, one dependent chain of ITER ops: cycles per op;
//   throughput: one block of 1024 threads per SM (8 warps per scheduler), 4 independent chains
//               per thread: cycles per warp instruction per scheduler (the issue cost).
// Each row: op, latency cycles per op, throughput cycles per warp-op per scheduler.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdint>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e = (x);                                                                  \
    if (e != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

constexpr int ITER = 256;

// OP(name, type, init, step): `step` turns v into the next value with one op of the kind
// measured; `p` is a runtime parameter (3, never a compile-time constant). Values stay in the
// normal range (a division v = p / v alternates; v / p would reach denormals and the slow path).
// mix_imad_alu and hash_round mix an integer multiply (IMAD) with shifts and logic (SHF, LOP3):
// their cost says whether the multiply shares the ALU pipe with them.
#define OPS(X)                                                                  \
  X(ffma, float, 1.0f + threadIdx.x * 1e-6f, v = fmaf(v, p, 0.5f))              \
  X(fdiv_rn, float, 1.0f + threadIdx.x * 1e-6f, v = p / v)                      \
  X(fdiv_fast, float, 1.0f + threadIdx.x * 1e-6f, v = __fdividef(v, p))         \
  X(frcp_rn, float, 1.0f + threadIdx.x * 1e-6f, v = __frcp_rn(v + p))           \
  X(fsqrt_rn, float, 1.0f + threadIdx.x * 1e-6f, v = sqrtf(v + p))              \
  X(fsqrt_fast, float, 1.0f + threadIdx.x * 1e-6f, v = __fsqrt_rn(v) * p)       \
  X(frsqrt, float, 1.0f + threadIdx.x * 1e-6f, v = rsqrtf(v + p))               \
  X(fex2, float, 1.0f + threadIdx.x * 1e-6f, v = exp2f(v * p))                  \
  X(fexp_fast, float, 1.0f + threadIdx.x * 1e-6f, v = __expf(v * p))            \
  X(fsin_fast, float, 1.0f + threadIdx.x * 1e-6f, v = __sinf(v + p))            \
  X(imul, unsigned, threadIdx.x + 1u, v = v * (unsigned)p)                      \
  X(imad, unsigned, threadIdx.x + 1u, v = v * (unsigned)p + 7u)                 \
  X(ixorshift, unsigned, threadIdx.x + 1u, v = v ^ (v >> (unsigned)p))          \
  X(mix_imad_alu, unsigned, threadIdx.x + 1u, v = (v * (unsigned)p) ^ (v >> 7))  \
  X(hash_round, unsigned, threadIdx.x + 1u,                                     \
    v ^= v >> 16; v *= 0x7feb352du * (unsigned)p; v ^= v >> 15; v *= 0x846ca68bu) \
  X(idiv_u32, unsigned, threadIdx.x + 1000000u, v = v / (unsigned)p + 1000000u) \
  X(irem_u32, unsigned, threadIdx.x + 1000000u, v = v % (unsigned)p + 1000000u) \
  X(idiv_s32, int, threadIdx.x + 1000000, v = v / (int)p + 1000000)             \
  X(dfma, double, 1.0 + threadIdx.x * 1e-9, v = fma(v, (double)p, 0.5))         \
  X(ddiv_rn, double, 1.0 + threadIdx.x * 1e-9, v = (double)p / v)               \
  X(dsqrt_rn, double, 1.0 + threadIdx.x * 1e-9, v = sqrt(v + (double)p))        \
  X(cvt_f32_s32, float, 1.0f, v = (float)((int)v + (int)p))                     \
  X(popc, unsigned, threadIdx.x + 1u, v = __popc(v) + (unsigned)p)

#define KERNELS(name, T, init, step)                                                       \
  extern "C" __global__ void lat_##name(float p, long long* cycles, T* sink) {             \
    T v = init;                                                                            \
    long long t0 = clock64();                                                              \
    for (int i = 0; i < ITER; ++i) { step; }                                               \
    long long t1 = clock64();                                                              \
    sink[threadIdx.x] = v;                                                                 \
    if (threadIdx.x == 0) cycles[0] = t1 - t0;                                             \
  }                                                                                        \
  extern "C" __global__ void thr_##name(float p, long long* cycles, T* sink) {             \
    T a = init, b = init + (T)1, c = init + (T)2, d = init + (T)3;                         \
    __syncthreads();                                                                       \
    long long t0 = clock64();                                                              \
    for (int i = 0; i < ITER; ++i) {                                                       \
      { T& v = a; step; }                                                                  \
      { T& v = b; step; }                                                                  \
      { T& v = c; step; }                                                                  \
      { T& v = d; step; }                                                                  \
    }                                                                                      \
    __syncthreads();                                                                       \
    long long t1 = clock64();                                                              \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;                           \
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;                                    \
  }
OPS(KERNELS)

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  printf("# %s, driver API %d, %d SMs\n", prop.name, driver, prop.multiProcessorCount);
  printf("op\tlatency_cycles\tthroughput_cycles_per_warp_op_per_scheduler\n");
  const int sms = prop.multiProcessorCount, threads = 1024;
  long long* cycles;
  double* sink;
  CK(cudaMalloc(&cycles, sms * sizeof(long long)));
  CK(cudaMalloc(&sink, (size_t)sms * threads * sizeof(double)));
  long long host[1024];
#define RUN(name, T, init, step)                                                                \
  {                                                                                             \
    lat_##name<<<1, 32>>>(3.0f, cycles, (T*)sink);                                              \
    lat_##name<<<1, 32>>>(3.0f, cycles, (T*)sink);                                              \
    CK(cudaDeviceSynchronize());                                                                \
    CK(cudaMemcpy(host, cycles, sizeof(long long), cudaMemcpyDeviceToHost));                    \
    double lat = (double)host[0] / ITER;                                                        \
    thr_##name<<<sms, threads>>>(3.0f, cycles, (T*)sink);                                       \
    thr_##name<<<sms, threads>>>(3.0f, cycles, (T*)sink);                                       \
    CK(cudaDeviceSynchronize());                                                                \
    CK(cudaMemcpy(host, cycles, sms * sizeof(long long), cudaMemcpyDeviceToHost));              \
    long long mx = 0;                                                                           \
    for (int s = 0; s < sms; ++s) mx = host[s] > mx ? host[s] : mx;                             \
    /* warp-ops per scheduler: 8 warps x 4 chains x ITER */                                     \
    double thr = (double)mx / (8.0 * 4 * ITER);                                                 \
    printf("%s\t%.2f\t%.3f\n", #name, lat, thr);                                                \
  }
  OPS(RUN)
  return 0;
}
