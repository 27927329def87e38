// Correct but slow: each thread re-reads its inputs 32 times through volatile loads.
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const volatile float* vx = x;
  const volatile float* vy = y;
  float s = 0;
  for (int k = 0; k < 32; ++k) s = vx[i] + vy[i];
  z[i] = s;
}
