// Lesson 2's strided copy (lessons/02-coalescing/coalescing.cu, included as is) launched at the
// lesson's sizes for stride 1 and 32, for Nsight Compute's memory-workload and speed-of-light
// sections: which link (L1<->L2 or L2<->DRAM) runs nearest its peak.
//   nvcc -arch=sm_90a -O3 -o stride_ncu stride_ncu.cu && ncu ... ./stride_ncu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "../../lessons/02-coalescing/coalescing.cu"

int main() {
  const int sizes[] = {65536, 1048576, 16777216};
  const int strides[] = {1, 32};
  for (int n : sizes) {
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = float((i * 2654435761u) % 2000) / 1000.0f - 1.0f;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(y, 0, n * sizeof(float));
    for (int s : strides) {
      const int block = 256, grid = (n + block - 1) / block;
      strided_copy<<<grid, block>>>(x, y, n, s);
      cudaError_t e = cudaDeviceSynchronize();
      std::printf("n=%d stride=%d grid=%d block=%d: %s\n", n, s, grid, block, cudaGetErrorString(e));
    }
    cudaFree(x);
    cudaFree(y);
  }
  return 0;
}
