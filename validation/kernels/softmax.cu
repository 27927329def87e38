// Validation corpus: the pieces of a row softmax as separate kernels, one block of 256 threads per
// row (blockDim.x must be 256).
// row_max: m[r] = max over the row.   row_sum_exp: s[r] = sum of exp(x - m[r]).
// row_normalize: y = exp(x - m[r]) / s[r].
__device__ float block_reduce(float v, bool is_max) {
  __shared__ float part[8];
  for (int o = 16; o > 0; o >>= 1) {
    float u = __shfl_down_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, u) : v + u;
  }
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  v = part[0];
  for (int w = 1; w < 8; ++w) v = is_max ? fmaxf(v, part[w]) : v + part[w];
  return v;
}

extern "C" __global__ void row_max(const float* x, float* m, int cols) {
  const float* row = x + (long long)blockIdx.x * cols;
  float v = -3.0e38f;
  for (int c = threadIdx.x; c < cols; c += 256) v = fmaxf(v, row[c]);
  v = block_reduce(v, true);
  if (threadIdx.x == 0) m[blockIdx.x] = v;
}

extern "C" __global__ void row_sum_exp(const float* x, const float* m, float* s, int cols) {
  const float* row = x + (long long)blockIdx.x * cols;
  float mr = m[blockIdx.x], v = 0.f;
  for (int c = threadIdx.x; c < cols; c += 256) v += __expf(row[c] - mr);
  v = block_reduce(v, false);
  if (threadIdx.x == 0) s[blockIdx.x] = v;
}

extern "C" __global__ void row_normalize(const float* x, const float* m, const float* s, float* y,
                                         int cols) {
  long long base = (long long)blockIdx.x * cols;
  float mr = m[blockIdx.x], inv = 1.0f / s[blockIdx.x];
  for (int c = threadIdx.x; c < cols; c += 256) y[base + c] = __expf(x[base + c] - mr) * inv;
}
