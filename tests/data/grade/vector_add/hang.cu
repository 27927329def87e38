// Hangs: waits for x[0] to become impossible.
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (((const volatile float*)x)[0] > -1e30f) {
  }
  if (i < n) z[i] = x[i] + y[i];
}
