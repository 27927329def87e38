// Reference solution: one thread per element, the tail guarded.
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
