// Calibration: what a memory-bound kernel's warps see, timed from inside.
//
// The vector add of lesson 3, with lane 0 of every warp writing four stamps per warp:
//   [0] clock64() at the warp's start, [1] clock64() once its loads are back and its store is
//   issued, [2] the SM it ran on (%smid), [3] its block.
// clock64() counts SM cycles and each SM has its own counter, so stamps compare only within an SM.
// From them: the latency a load sees under load (stamp 1 - stamp 0, which also holds a few
// address instructions) and the gap between one block's last warp and the next block's first
// warp on the same SM (store drain, block retirement and the next block's launch).
// Run on both backends with the occupancy sweep's padding (lessons/03-block-size/occupancy.toml)
// to compare the simulator's latency under load with the GPU's.
// store = 0 makes it read-only (z is written only where x + y is negative, which never happens
// with the file's data), to separate what the write-back stream costs the reads. Only the first
// `lanes` lanes of each warp take part: lanes = 1 makes every request a single 32-byte sector.
extern "C" __global__ void vec_add_stamped(const float* x, const float* y, float* z, int n,
                                           long long* stamps, int store, int lanes) {
  long long t0 = clock64();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (threadIdx.x & 31) < lanes) {
    float s = x[i] + y[i];
    if (store || s < 0.0f) z[i] = s;
  }
  long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    stamps[4 * w + 0] = t0;
    stamps[4 * w + 1] = t1;
    stamps[4 * w + 2] = sm;
    stamps[4 * w + 3] = blockIdx.x;
  }
}
