// Lesson 18: where time goes. Three kernels whose warps spend their cycles waiting on different
// things, so that the warp-state mix (the simulator's, or Nsight Compute's stall reasons on a GPU)
// tells them apart.

// A stream: y = a * x, one element per thread. Each warp issues a handful of instructions and then
// waits for its load to come back from DRAM (long scoreboard).
extern "C" __global__ void stream_scale(const float* x, float* y, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

// Each block copies a 32 x 32 tile into shared memory with rows `32 + pad` floats apart, then lane
// l of every warp sums row l of the tile, `reps` times over. With pad = 0 the 32 lanes of a warp
// read 32 addresses 128 bytes apart: one bank, a 32-way conflict, so every shared load takes 32
// wavefronts. With pad = 1 the rows start one bank apart and every load takes one.
// Launch with 256 threads (8 warps) per block; out gets one float per thread: its row's sum
// averaged over the reps (32 when every element is 1).
extern "C" __global__ void row_sums(const float* in, float* out, int pad, int reps) {
  __shared__ float tile[32 * 33];
  const int stride = 32 + pad;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float* src = in + blockIdx.x * 1024;
  for (int r = warp; r < 32; r += 8) tile[r * stride + lane] = src[r * 32 + lane];
  __syncthreads();
  float s = 0.f;
  for (int k = 0; k < reps; ++k)
    for (int c = 0; c < 32; ++c) s += tile[lane * stride + ((c + warp + k) % 32)];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s / reps;
}

// `rounds` rounds, each ending at __syncthreads(). In a round warp 0 runs a chain of `chain`
// dependent FMAs; with all_warps = 1 every warp of the block runs its own chain. With all_warps =
// 0 the other warps have nothing to do but wait at the barrier for warp 0.
extern "C" __global__ void rounds(float* out, int rounds, int chain, int all_warps) {
  float v = threadIdx.x * 1e-3f;
  for (int r = 0; r < rounds; ++r) {
    if (all_warps || threadIdx.x < 32)
      for (int k = 0; k < chain; ++k) v = v * 0.999f + 0.001f;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
