// Validation corpus: loops the compiler cannot unroll by a known count.
//
// grid_stride_sum: a grid-stride loop whose trip count (n / total threads) is known only at run
//   time; each thread sums its elements of x and writes the sum.
// divergent_loop: thread i runs (i % 32) + 1 iterations of a dependent FMA chain, so a warp's lanes
//   drop out one by one and the warp runs 32 iterations with 1..32 lanes active.
// uniform_loop: the same work per warp (32 iterations) with every lane active, for comparison.
extern "C" __global__ void grid_stride_sum(const float* x, float* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int threads = gridDim.x * blockDim.x;
  float s = 0.f;
  for (int i = t; i < n; i += threads) s += x[i];
  out[t] = s;
}

extern "C" __global__ void divergent_loop(const float* x, float* out, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  int trips = ((i % 32) + 1) * reps;
  for (int k = 0; k < trips; ++k) a = a * 0.5f + 1.0f;
  out[i] = a;
}

extern "C" __global__ void uniform_loop(const float* x, float* out, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  int trips = 32 * reps;
  for (int k = 0; k < trips; ++k) a = a * 0.5f + 1.0f;
  out[i] = a;
}
