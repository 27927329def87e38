// WarpLab microbenchmark: the tensor-core lesson's TFLOP/s ladder on a real GPU. One bf16 matmul
// (fp32 accumulate) four ways: validation/kernels/tensor/tc_matmul.cu's SIMT, mma.sync + ldmatrix
// and wgmma kernels, and cuBLAS (cublasGemmEx, the library's best) for the ceiling.
//
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o tc_ladder tc_ladder.cu -lcublas && ./tc_ladder
//
// Each result is checked against a CPU fp64 reference on 512 sampled entries (relative error
// < 1e-3 of the row's magnitude); times are CUDA events over 10 launches after 2 warm-ups.
// Rows: kernel, M=N=K, microseconds per launch, TFLOP/s, max relative error, check.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../validation/kernels/tensor/tc_matmul.cu"

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t err_ = (x);                                                                  \
    if (err_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(err_)); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static unsigned short to_bf16(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static float from_bf16(unsigned short h) {
  unsigned u = (unsigned)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0;
  cudaDriverGetVersion(&drv);
  printf("# %s, %d SMs, driver API %d\n", p.name, p.multiProcessorCount, drv);
  printf("kernel\tsize\tus\ttflops\tmax_rel_err\tcheck\n");
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  for (int n : {1024, 2048, 4096}) {
    size_t e = (size_t)n * n;
    std::vector<unsigned short> hA(e), hB(e);
    unsigned long long s = 12345;
    auto rnd = [&]() {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return ((s >> 33) % 2001) / 1000.0f - 1.0f;
    };
    for (auto& v : hA) v = to_bf16(rnd());
    for (auto& v : hB) v = to_bf16(rnd());
    unsigned short *dA, *dB;
    float* dC;
    CK(cudaMalloc(&dA, e * 2));
    CK(cudaMalloc(&dB, e * 2));
    CK(cudaMalloc(&dC, e * 4));
    CK(cudaMemcpy(dA, hA.data(), e * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB.data(), e * 2, cudaMemcpyHostToDevice));
    // sampled reference
    std::vector<int> ri(512), ci(512);
    std::vector<double> ref(512), mag(512);
    for (int i = 0; i < 512; ++i) {
      ri[i] = (i * 7919) % n;
      ci[i] = (i * 104729 + 13) % n;
      double acc = 0, m = 0;
      for (int k = 0; k < n; ++k) {
        double t = (double)from_bf16(hA[(size_t)ri[i] * n + k]) * from_bf16(hB[(size_t)k * n + ci[i]]);
        acc += t;
        m += fabs(t);
      }
      ref[i] = acc;
      mag[i] = m;
    }
    for (int which = 0; which < 4; ++which) {
      const char* name[] = {"simt_bf16", "mma_sync_bf16", "wgmma_bf16", "cublas_bf16"};
      auto launch = [&]() {
        if (which == 0) matmul_simt_bf16<<<dim3(n / 64, n / 64), dim3(16, 16)>>>(dA, dB, dC, n, n, n);
        if (which == 1) matmul_mma_bf16<<<dim3(n / 64, n / 64), 128>>>(dA, dB, dC, n, n, n);
        if (which == 2) matmul_wgmma_bf16<<<dim3(n / 128, n / 64), 128>>>(dA, dB, dC, n, n, n);
        if (which == 3) {
          // row-major C = A B  <=>  column-major C^T = B^T A^T
          float one = 1, zero = 0;
          cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB, CUDA_R_16BF, n, dA, CUDA_R_16BF, n,
                       &zero, dC, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        }
      };
      CK(cudaMemset(dC, 0, e * 4));
      launch();
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<float> hC(e);
      CK(cudaMemcpy(hC.data(), dC, e * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int i = 0; i < 512; ++i) {
        double err = fabs(hC[(size_t)ri[i] * n + ci[i]] - ref[i]) / (mag[i] + 1e-30);
        worst = err > worst ? err : worst;
      }
      cudaEvent_t a, b;
      cudaEventCreate(&a);
      cudaEventCreate(&b);
      cudaEventRecord(a);
      for (int r = 0; r < 10; ++r) launch();
      cudaEventRecord(b);
      CK(cudaEventSynchronize(b));
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      double us = ms * 1000 / 10;
      printf("%s\t%d\t%.1f\t%.1f\t%.2e\t%s\n", name[which], n, us, 2.0 * n * n * n / (us * 1e-6) / 1e12, worst,
             worst < 1e-3 ? "ok" : "WRONG");
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }
  return 0;
}
