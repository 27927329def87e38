// Lesson 15b: softmax over the rows of a rows x cols matrix, as four kernels and as one.
//
//   y[r][c] = exp(x[r][c] - m[r]) / s[r],  m[r] = max_c x[r][c],  s[r] = sum_c exp(x[r][c] - m[r])
//
// Unfused, as an eager framework runs it: sm_max reads x; sm_exp reads x and writes e; sm_sum
// reads e; sm_div reads e and writes y. Four launches, x or e read four times, two full writes.
// Fused: one block per row keeps the row in registers: x is read once and y written once.
// Subtracting the row maximum keeps exp() from overflowing; it does not change the result.

#define NEG_INF (-__int_as_float(0x7f800000))  // NVRTC has no <math.h>, so no INFINITY

// Block-wide reduction of one value per thread (blockDim.x a multiple of 32, at most 1024).
// MAX: the maximum, else the sum. Every thread gets the result.
template <bool MAX>
__device__ float block_reduce(float v) {
  __shared__ float partial[32];
  for (int off = 16; off > 0; off /= 2) {
    const float o = __shfl_xor_sync(0xffffffffu, v, off);
    v = MAX ? fmaxf(v, o) : v + o;
  }
  const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
  __syncthreads();  // partial[] may still be read by the previous call
  if (threadIdx.x % 32 == 0) partial[warp] = v;
  __syncthreads();
  v = partial[0];
  for (int w = 1; w < warps; ++w) v = MAX ? fmaxf(v, partial[w]) : v + partial[w];
  return v;
}

// ---- Four kernels, one block per row ------------------------------------------------------------
extern "C" __global__ void sm_max(const float* x, float* m, int cols) {
  const float* row = x + size_t(blockIdx.x) * cols;
  float v = NEG_INF;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v = fmaxf(v, row[c]);
  v = block_reduce<true>(v);
  if (threadIdx.x == 0) m[blockIdx.x] = v;
}

extern "C" __global__ void sm_exp(const float* x, const float* m, float* e, int cols) {
  const size_t base = size_t(blockIdx.x) * cols;
  const float mr = m[blockIdx.x];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) e[base + c] = expf(x[base + c] - mr);
}

extern "C" __global__ void sm_sum(const float* e, float* s, int cols) {
  const float* row = e + size_t(blockIdx.x) * cols;
  float v = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v += row[c];
  v = block_reduce<false>(v);
  if (threadIdx.x == 0) s[blockIdx.x] = v;
}

extern "C" __global__ void sm_div(const float* e, const float* s, float* y, int cols) {
  const size_t base = size_t(blockIdx.x) * cols;
  const float sr = s[blockIdx.x];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[base + c] = e[base + c] / sr;
}

// ---- One kernel -------------------------------------------------------------------------------
// One block per row; each thread keeps its PER elements of the row in registers
// (cols <= PER * blockDim.x; PER is a compile-time constant so that v[] stays in registers).
#define PER 4
extern "C" __global__ void softmax_fused(const float* x, float* y, int cols) {
  const size_t base = size_t(blockIdx.x) * cols;
  float v[PER];
  float mx = NEG_INF;
#pragma unroll
  for (int k = 0; k < PER; ++k) {  // 1. read the row once
    const int c = threadIdx.x + k * blockDim.x;
    v[k] = c < cols ? x[base + c] : NEG_INF;
    mx = fmaxf(mx, v[k]);
  }
  mx = block_reduce<true>(mx);  // 2. row maximum
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < PER; ++k) {  // 3. exponentials, kept in registers
    v[k] = expf(v[k] - mx);        //    (exp(-inf) = 0 for the padding)
    sum += v[k];
  }
  sum = block_reduce<false>(sum);  // 4. row sum
#pragma unroll
  for (int k = 0; k < PER; ++k) {  // 5. write the row once
    const int c = threadIdx.x + k * blockDim.x;
    if (c < cols) y[base + c] = v[k] / sum;
  }
}
