// Lesson 7b: row softmax, a reduction inside every row.
//
//   y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r)
//
// One block per row. Subtracting the row's maximum first keeps exp() from overflowing and does not
// change the result. The row is reduced twice (its maximum, then the sum of exponentials), each
// time with a shared-memory tree like reduce_shared. Needs a power-of-two block size and
// blockDim.x floats of dynamic shared memory.
extern "C" __global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  extern __shared__ float buf[];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;
  const float* in = x + (size_t)row * cols;
  float* out = y + (size_t)row * cols;

  // 1. Row maximum: each thread scans columns tid, tid + blockDim.x, ..., then a tree.
  float m = __int_as_float(0xff800000);  // -infinity (NVRTC has no <cmath>, so no INFINITY)
  for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  buf[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] = fmaxf(buf[tid], buf[tid + s]);
    __syncthreads();
  }
  m = buf[0];
  __syncthreads();  // everyone has read the maximum before buf is reused

  // 2. Sum of exponentials, the same way.
  float sum = 0.0f;
  for (int c = tid; c < cols; c += blockDim.x) sum += expf(in[c] - m);
  buf[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  float inv = 1.0f / buf[0];

  // 3. Normalise.
  for (int c = tid; c < cols; c += blockDim.x) out[c] = expf(in[c] - m) * inv;
}
