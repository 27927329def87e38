// Validation corpus, second generalization set (issue 25; written 2026-11-26 before any model change
// was made for it): launches of 1 to 24 blocks, far fewer than the SMs, where one warp's chain of
// dependent instructions sets the time.
// softmax_one_block: one block of 1024 threads over a row of n: a max pass and a sum-of-exp pass,
//   each ending in a shared-memory tree, then a normalising pass (x constant: every output 1/n).
// row_max_thread: a thread per row of a rows x cols matrix (row-major), 4 blocks of 256: each warp
//   step touches 32 lines (x = iota: row r's max is r * cols + cols - 1).
// chain_sum_one_block: one block of 256 threads; each sums n / 256 values strided by 256 (a
//   dependent add chain), then a shared tree of 8 levels.
// tiny_matvec: y = A x for a small square A (a thread per row, one block).
extern "C" __global__ void softmax_one_block(const float* x, float* y, int n) {
  __shared__ float red[1024];
  int t = threadIdx.x;
  float m = -3.0e38f;
  for (int i = t; i < n; i += blockDim.x) m = fmaxf(m, x[i]);
  red[t] = m;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (t < w) red[t] = fmaxf(red[t], red[t + w]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0.f;
  for (int i = t; i < n; i += blockDim.x) s += __expf(x[i] - m);
  red[t] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (t < w) red[t] += red[t + w];
    __syncthreads();
  }
  float inv = 1.f / red[0];
  for (int i = t; i < n; i += blockDim.x) y[i] = __expf(x[i] - m) * inv;
}

extern "C" __global__ void row_max_thread(const float* x, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* p = x + (size_t)r * cols;
  float m = p[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, p[c]);
  out[r] = m;
}

extern "C" __global__ void chain_sum_one_block(const float* x, float* out, int n) {
  __shared__ float red[256];
  int t = threadIdx.x;
  float s = 0.f;
  for (int i = t; i < n; i += 256) s += x[i];
  red[t] = s;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) red[t] += red[t + w];
    __syncthreads();
  }
  if (t == 0) out[0] = red[0];
}

extern "C" __global__ void tiny_matvec(const float* a, const float* x, float* y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float s = 0.f;
  for (int c = 0; c < n; ++c) s += a[r * n + c] * x[c];
  y[r] = s;
}
