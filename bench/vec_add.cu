// Benchmark workload: vector add, one element per thread (memory-bound on a real GPU).
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
