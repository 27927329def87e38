// Lesson 11: the three costs. One kernel whose arithmetic intensity is a parameter, and a tiny
// kernel whose time is almost all launch overhead.
//
// `fma_chain` reads one float per thread, does k fused multiply-adds on it (2 k floating-point
// operations), and writes one float: 8 bytes of DRAM traffic per element whatever k is. Its
// arithmetic intensity is 2 k / 8 = k / 4 FLOP per byte. Small k: the memory system is the
// bottleneck and the FMAs are free. Large k: the FP32 pipes are, and the time grows with k.

// y[i] = x[i] after k steps of v = v * a + b, split over 8 independent chains so that one
// thread's FMAs do not all wait for each other (k must be a multiple of 8; a and b keep the values
// bounded: |v| stays below max(|x|, b / (1 - a)) for 0 < a < 1).
extern "C" __global__ void fma_chain(const float* x, float* y, int n, int k, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float c[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = v + j;
    for (int it = 0; it < k / 8; ++it) {
#pragma unroll
      for (int j = 0; j < 8; ++j) c[j] = fmaf(c[j], a, b);
    }
    y[i] = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
  }
}

// The overhead side: y = s * x on n elements, launched small and often or big and once.
extern "C" __global__ void scale(const float* x, float* y, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i];
}
