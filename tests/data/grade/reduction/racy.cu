// Racy: a shared-memory tree with no __syncthreads() between its rounds.
extern "C" __global__ void reduce_sum(const float* x, float* out, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.f;
  for (int h = 128; h > 0; h >>= 1)
    if (t < h) s[t] += s[t + h];
  if (t == 0) atomicAdd(out, s[0]);
}
