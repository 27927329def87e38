// Validation corpus, generalization set (written 2026-11-25, measured before any model change was
// made for it): row-wise operations on a rows x cols matrix (row-major).
// gemv_warp: y = A x with one warp per row: lanes stride over the columns (coalesced), then a
//   shuffle reduction. blockDim.x == 256 (8 rows per block).
// gemv_thread: y = A x with one thread per row: at each step the 32 lanes of a warp read 32
//   different rows (a stride of cols floats), so each line is reused from L1 over 32 steps.
// layernorm: one block of 256 per row; mean, then variance, each a shuffle + shared reduction,
//   then y = (x - mean) / sqrt(var + 1e-5).
extern "C" __global__ void gemv_warp(const float* A, const float* x, float* y, int rows, int cols) {
  int row = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += A[(size_t)row * cols + c] * x[c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) y[row] = s;
}

extern "C" __global__ void gemv_thread(const float* A, const float* x, float* y, int rows,
                                       int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += A[(size_t)row * cols + c] * x[c];
  y[row] = s;
}

__device__ float block_sum_256(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float t = 0.f;
  for (int w = 0; w < 8; ++w) t += scratch[w];
  __syncthreads();
  return t;
}

extern "C" __global__ void layernorm(const float* x, float* y, int cols) {
  __shared__ float scratch[8];
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 256) s += xr[c];
  float mean = block_sum_256(s, scratch) / cols;
  float q = 0.f;
  for (int c = threadIdx.x; c < cols; c += 256) {
    float d = xr[c] - mean;
    q += d * d;
  }
  float inv = rsqrtf(block_sum_256(q, scratch) / cols + 1e-5f);
  for (int c = threadIdx.x; c < cols; c += 256) yr[c] = (xr[c] - mean) * inv;
}
