// Copy loops of two tiles through shared memory (the shape of lesson 17's), compiled only (ptxas 13.0,
// sm_90a; run.sh): k1 with the lesson's addressing inside an outer loop, k2 with plain addressing,
// k3 with no outer loop; run.sh also builds them with 4- and 8-byte elements (VEC=unsigned, uint2).
#ifndef VEC
#define VEC uint4
#endif
// copy loops of two tiles through shared memory, then a use; trip count 2 per thread at 128 threads
extern "C" __global__ void k1(const VEC* A, const VEC* B, float* C, int K, int N) {
  __shared__ VEC As[256], Bs[256];
  int tid = threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 32) {
    for (int c = tid; c < 256; c += 128) {
      As[c] = A[(size_t)(blockIdx.y * 64 + c / 4) * K + k0 + c % 4];
      Bs[c] = B[(size_t)(k0 + c / 8) * N + blockIdx.x * 8 + c % 8];
    }
    __syncthreads();
    acc += __uint_as_float(*(const unsigned*)&As[tid]) * __uint_as_float(*(const unsigned*)&Bs[tid ^ 1]);
    __syncthreads();
  }
  C[blockIdx.x * 128 + tid] = acc;
}
// same addresses for both tiles
extern "C" __global__ void k2(const VEC* A, const VEC* B, float* C, int K, int N) {
  __shared__ VEC As[256], Bs[256];
  int tid = threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 32) {
    for (int c = tid; c < 256; c += 128) {
      As[c] = A[k0 * 256 + c];
      Bs[c] = B[k0 * 256 + c];
    }
    __syncthreads();
    acc += __uint_as_float(*(const unsigned*)&As[tid]) * __uint_as_float(*(const unsigned*)&Bs[tid ^ 1]);
    __syncthreads();
  }
  C[blockIdx.x * 128 + tid] = acc;
}
// no outer loop
extern "C" __global__ void k3(const VEC* A, const VEC* B, float* C, int K, int N) {
  __shared__ VEC As[256], Bs[256];
  int tid = threadIdx.x;
  for (int c = tid; c < 256; c += 128) {
    As[c] = A[(size_t)(blockIdx.y * 64 + c / 4) * K + c % 4];
    Bs[c] = B[(size_t)(c / 8) * N + blockIdx.x * 8 + c % 8];
  }
  __syncthreads();
  C[blockIdx.x * 128 + tid] = __uint_as_float(*(const unsigned*)&As[tid]) * __uint_as_float(*(const unsigned*)&Bs[tid ^ 1]);
}
