// Validation corpus: a working set of n floats read `passes` times (float4 loads, grid-stride),
// each thread summing what it read. With n * 4 bytes well under the L2 (50 MiB on an H100) every
// pass after the first hits in L2; above it every pass comes from DRAM.
// n must be a multiple of 4 * total threads; with x = 1 every thread's sum is 4 * passes * n /
// (4 * threads).
extern "C" __global__ void l2_stream(const float4* x, float* out, int n4, int passes) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int threads = gridDim.x * blockDim.x;
  float s = 0.f;
  for (int p = 0; p < passes; ++p)
    for (int i = t; i < n4; i += threads) {
      float4 v = x[i];
      s += (v.x + v.y) + (v.z + v.w);
    }
  out[t] = s;
}
