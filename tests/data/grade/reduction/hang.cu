// Hangs: after adding its part, every thread waits for the total to be complete, as if all blocks
// ran at once. Blocks that are not resident yet can never add theirs, and a block's own partial
// sum is added by its thread 0 after the others already wait.
extern "C" __global__ void reduce_sum(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
  while (((volatile float*)out)[0] < 1e30f) {  // the sum never gets this large
  }
}
