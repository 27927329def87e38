// Lesson 8: atomics, a histogram of bytes.
//
// Many threads add to the same few counters at once, so the adds must be atomic. In the first
// kernel every thread adds straight into the histogram in global memory; atomics on the same
// address are serialised (on the GPU they are resolved in the L2 cache). The second kernel gives
// each block a private histogram in shared memory, where atomics are cheap, and adds it to the
// global one once at the end: at most `bins` global atomics per block instead of one per element.
//
// Byte b goes to bin b * bins / 256, so fewer bins means more threads hitting the same counter
// (bins = 1: every thread adds to one counter). bins must be between 1 and 256.

#define MAX_BINS 256

extern "C" __global__ void histogram_global(const unsigned char* data, unsigned int* hist, int n,
                                            int bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int bin = data[i] * bins / 256;
    atomicAdd(&hist[bin], 1u);
  }
}

extern "C" __global__ void histogram_shared(const unsigned char* data, unsigned int* hist, int n,
                                            int bins) {
  __shared__ unsigned int local[MAX_BINS];
  // 1. Clear the block's private histogram (the block may have fewer threads than bins).
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  // 2. Count into shared memory.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int bin = data[i] * bins / 256;
    atomicAdd(&local[bin], 1u);
  }
  __syncthreads();
  // 3. Add the private histogram into the global one.
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&hist[b], local[b]);
  }
}
