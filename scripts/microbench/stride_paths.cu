// Lesson 2's strided copy split into its loads and its stores (N = 2^20, block 256), to see which
// side of the L2 limits stride 32: each kernel timed alone with CUDA events, L2 flushed before
// each timed launch (a 256 MiB memset), median of 21; then under Nsight Compute (run.sh).
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

extern "C" __global__ void strided_copy(const float* x, float* y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = (i * stride) % n;
    y[j] = x[j];
  }
}
// The loads only: the value is kept live by a store that never happens (x holds no NaN).
extern "C" __global__ void strided_load(const float* x, float* y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = (i * stride) % n;
    float v = x[j];
    if (v != v) y[i] = v;
  }
}
// The stores only.
extern "C" __global__ void strided_store(const float* x, float* y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = (i * stride) % n;
    y[j] = float(i);
  }
}

int main(int argc, char**) {
  const int n = 1 << 20, block = 256;
  float *x, *y;
  char* flush;
  const size_t flush_bytes = size_t(256) << 20;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMalloc(&flush, flush_bytes);
  cudaMemset(x, 0, n * 4);
  cudaMemset(y, 0, n * 4);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  using K = void (*)(const float*, float*, int, int);
  struct Named { const char* name; K k; } ks[] = {{"strided_copy", strided_copy},
                                               {"strided_load", strided_load},
                                               {"strided_store", strided_store}};
  if (argc > 1) {  // under Nsight Compute: each kernel once per stride, after a flush
    for (int stride : {1, 32})
      for (const Named& k : ks) {
        cudaMemset(flush, 1, flush_bytes);
        k.k<<<(n + block - 1) / block, block>>>(x, y, n, stride);
      }
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
  }
  printf("kernel\tN\tstride\tmedian_us\tmin_us\n");
  for (int stride : {1, 32})
    for (const Named& k : ks) {
      std::vector<float> t;
      for (int r = 0; r < 24; ++r) {
        cudaMemsetAsync(flush, r & 0xff, flush_bytes);
        cudaEventRecord(a);
        k.k<<<(n + block - 1) / block, block>>>(x, y, n, stride);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 3) t.push_back(ms * 1000);
      }
      std::sort(t.begin(), t.end());
      printf("%s\t%d\t%d\t%.3f\t%.3f\n", k.name, n, stride, t[t.size() / 2], t[0]);
    }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
  return 0;
}
