// Validation corpus: launch-bound tiny grids. y[i] = x[i] + 1 for a handful of elements, so the
// measured time is launch overhead, block dispatch and one round trip to memory.
extern "C" __global__ void tiny_add(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
