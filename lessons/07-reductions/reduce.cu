// Lesson 7a: parallel reduction (sum), two ways.
//
// Each kernel adds up one block's worth of elements and writes one partial sum per block. Run it
// again on the partial sums (one block) to get the total. Floating-point addition is not
// associative, so the order of the additions is part of the result: both kernels below add in a
// fixed tree order, and a CPU loop adding left to right gets a slightly different answer.

// Tree in shared memory: at each step the first half of the active threads adds in the second
// half. Needs a power-of-two block size and blockDim.x floats of dynamic shared memory.
extern "C" __global__ void reduce_shared(const float* in, float* partial, int n) {
  extern __shared__ float buf[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  buf[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();  // every step must finish before the next reads its results
  }
  if (tid == 0) partial[blockIdx.x] = buf[0];
}

// Warp shuffles: the 32 lanes of a warp add their values through registers, with no shared memory
// and no __syncthreads. Then one value per warp goes through shared memory and the first warp adds
// those up the same way. Needs a block size that is a multiple of 32 (at most 1024).
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    v += __shfl_down_sync(0xffffffffu, v, offset);  // lane l adds lane l + offset's value
  }
  return v;  // lane 0 holds the warp's sum
}

extern "C" __global__ void reduce_warp_shuffle(const float* in, float* partial, int n) {
  __shared__ float warp_sums[32];
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  float v = warp_sum((i < n) ? in[i] : 0.0f);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();

  if (warp == 0) {
    int warps = blockDim.x / 32;
    v = warp_sum((lane < warps) ? warp_sums[lane] : 0.0f);
    if (lane == 0) partial[blockIdx.x] = v;
  }
}
