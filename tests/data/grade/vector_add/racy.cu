// Racy: stages sums in shared memory and reads another warp's slot with no __syncthreads().
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] + y[i] : 0.f;
  const int o = t ^ 32, j = blockIdx.x * blockDim.x + o;
  if (j < n) z[j] = s[o];
}
