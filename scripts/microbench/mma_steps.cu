// WarpLab microbenchmark: lesson 17's matmul_mma_bf16 (lessons/17-tensor-cores/tc_matmul.cu) on the H100:
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -Ilessons/17-tensor-cores -o mma_steps \
//        scripts/microbench/mma_steps.cu && ./mma_steps
// event time by size with cold and warm L2, and a clock64-stamped copy of the kernel that records,
// for every k-step of block 0 / warp 0 lane 0 (and block 0 warp 3), when the global loads' data
// reached shared memory, when the first __syncthreads released, when the mma work was done and
// when the second __syncthreads released.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include "tc_matmul.cu"
#include "cuda_check.h"
__device__ __forceinline__ long long clk() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory"); return t; }

extern "C" __global__ void mma_stamped(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K, long long* st) {
  __shared__ __align__(16) unsigned short As[64][MMA_BK + 8];
  __shared__ __align__(16) unsigned short Bs[MMA_BK][64 + 8];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  bool rec = blockIdx.x == 0 && blockIdx.y == 0 && lane == 0 && (warp == 0 || warp == 3);
  long long* s = st + (warp == 3 ? 1 : 0) * 4096;
  int step = 0;
  float acc[2][4][4] = {};
  long long t0 = clk();
  if (rec) s[0] = t0;
  for (int k0 = 0; k0 < K; k0 += MMA_BK) {
    long long a0 = clk();
    for (int c = tid; c < 256; c += 128) {
      int m = c / 4, kc = (c % 4) * 8;
      *(uint4*)&As[m][kc] = *(const uint4*)&A[(size_t)(row0 + m) * K + k0 + kc];
      int k = c / 8, nc = (c % 8) * 8;
      *(uint4*)&Bs[k][nc] = *(const uint4*)&B[(size_t)(k0 + k) * N + col0 + nc];
    }
    long long a1 = clk();
    __syncthreads();
    long long a2 = clk();
    for (int kk = 0; kk < MMA_BK; kk += 16) {
      unsigned a[2][4], b[4][2];
      for (int i = 0; i < 2; ++i) {
        unsigned addr = (unsigned)__cvta_generic_to_shared(&As[wm + i * 16 + (lane & 15)][kk + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]) : "r"(addr));
      }
      for (int j = 0; j < 4; j += 2) {
        unsigned addr = (unsigned)__cvta_generic_to_shared(&Bs[kk + (lane & 15)][wn + j * 8 + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1]) : "r"(addr));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    long long a3 = clk();
    __syncthreads();
    long long a4 = clk();
    if (rec && step < 1000) { s[1 + step * 4] = a1 - a0; s[2 + step * 4] = a2 - a1; s[3 + step * 4] = a3 - a2; s[4 + step * 4] = a4 - a3; }
    ++step;
  }
  int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      int r = row0 + wm + i * 16 + g, c = col0 + wn + j * 8 + 2 * t;
      *(float2*)&C[(size_t)r * N + c] = make_float2(acc[i][j][0], acc[i][j][1]);
      *(float2*)&C[(size_t)(r + 8) * N + c] = make_float2(acc[i][j][2], acc[i][j][3]);
    }
  if (rec) s[4000] = clk() - t0;
}

int main() {
  const int maxn = 1024;
  unsigned short *A, *B; float* C; long long* st; char* flush;
  CK(cudaMalloc(&A, maxn * maxn * 2)); CK(cudaMalloc(&B, maxn * maxn * 2)); CK(cudaMalloc(&C, maxn * maxn * 4));
  CK(cudaMalloc(&st, 8192 * 8)); CK(cudaMalloc(&flush, 256 << 20));
  std::vector<unsigned short> h(maxn * maxn);
  for (size_t i = 0; i < h.size(); ++i) h[i] = 16000 + (i * 2654435761u >> 20) % 256;
  CK(cudaMemcpy(A, h.data(), h.size() * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(B, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  printf("# section\tn\tl2\tvalue\tunit\n");
  for (int n : {256, 512, 1024})
    for (int cold = 1; cold >= 0; --cold) {
      std::vector<float> v;
      for (int r = 0; r < 11; ++r) {
        if (cold) CK(cudaMemset(flush, r, 256 << 20));
        else matmul_mma_bf16<<<dim3(n / 64, n / 64), 128>>>(A, B, C, n, n, n);
        CK(cudaEventRecord(e0));
        matmul_mma_bf16<<<dim3(n / 64, n / 64), 128>>>(A, B, C, n, n, n);
        CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
        float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); v.push_back(ms * 1000);
      }
      std::sort(v.begin(), v.end());
      printf("event_us\t%d\t%s\t%.2f\tus\n", n, cold ? "cold" : "warm", v[5]);
    }
  for (int n : {256, 1024})
    for (int cold = 1; cold >= 0; --cold) {
      if (cold) CK(cudaMemset(flush, 7, 256 << 20));
      else mma_stamped<<<dim3(n / 64, n / 64), 128>>>(A, B, C, n, n, n, st);
      CK(cudaMemset(st, 0, 8192 * 8));
      mma_stamped<<<dim3(n / 64, n / 64), 128>>>(A, B, C, n, n, n, st);
      CK(cudaDeviceSynchronize());
      std::vector<long long> s(8192); CK(cudaMemcpy(s.data(), st, 8192 * 8, cudaMemcpyDeviceToHost));
      for (int w = 0; w < 2; ++w) {
        long long* p = s.data() + w * 4096;
        printf("stamp_total\t%d\t%s\t%lld\tcycles_w%d\n", n, cold ? "cold" : "warm", p[4000], w ? 3 : 0);
        for (int k = 0; k < n / 32 && k < 40; ++k)
          printf("stamp_step\t%d\t%s\t%d:%lld,%lld,%lld,%lld\tload,sync1,mma,sync2_w%d\n", n, cold ? "cold" : "warm", k, p[1 + 4 * k], p[2 + 4 * k], p[3 + 4 * k], p[4 + 4 * k], w ? 3 : 0);
      }
    }
  return 0;
}
