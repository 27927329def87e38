// Wrong: a tree that only sums the first half of each block.
extern "C" __global__ void reduce_sum(const float* x, float* out, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int h = 64; h > 0; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}
