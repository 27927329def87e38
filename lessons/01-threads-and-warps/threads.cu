// Lesson 1: threads, blocks and warps.
//
// Every thread runs the same kernel body. The only thing that tells threads apart is where they sit
// in the launch: threadIdx (position inside its block) and blockIdx (which block). The hardware
// groups each block's threads into warps of 32 consecutive threads; a warp issues one instruction
// at a time for all of its lanes.

// Each thread writes down who it is, so you can look at the buffers after the run.
extern "C" __global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane_id,
                                  int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {                      // the last block may stick out past the end of the arrays
    global_id[i] = i;
    block_id[i] = blockIdx.x;
    warp_id[i] = threadIdx.x / 32;  // warp index inside the block
    lane_id[i] = threadIdx.x % 32;  // lane inside the warp
  }
}

// The "hello world" of GPU programming: one thread per element.
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    z[i] = x[i] + y[i];
  }
}
