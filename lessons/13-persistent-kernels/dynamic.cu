// Lesson 13c: unequal tiles, handed out statically or dynamically.
//
// Tile t costs 1 + (t % 132) / 16 units of work (1 to 9): tiles differ, as the rows of a causal
// attention or the blocks of a sparse matrix do. Both kernels are persistent (one block per SM).
//   tiles_static   block b takes tiles b, b + gridDim.x, b + 2 gridDim.x, ...: a fixed share. Here
//                  every tile block b takes has the same t % 132 = b, so block 131 gets the 8
//                  costliest tiles and block 0 the 8 cheapest: the slowest block sets the time.
//   tiles_dynamic  a block that finishes a tile takes the next one from a counter in global memory
//                  (one atomicAdd per tile): blocks that drew cheap tiles simply take more.
// Both write the same values.

__device__ float tile_work(int tile, int unit_iters) {
  const int iters = unit_iters * (1 + (tile % 132) / 16);
  float c[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) c[j] = float(threadIdx.x + j) + tile;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = fmaf(c[j], 0.5f, 0.25f);
  }
  return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
}

extern "C" __global__ void tiles_static(float* out, int tiles, int unit_iters) {
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x)
    out[tile * blockDim.x + threadIdx.x] = tile_work(tile, unit_iters);
}

// `next` must be 0 when the kernel starts (the experiment clears it before the launch).
extern "C" __global__ void tiles_dynamic(float* out, int tiles, int unit_iters,
                                         unsigned int* next) {
  __shared__ int tile;
  for (;;) {
    // 1. One thread claims the next tile for the whole block; the barrier publishes it.
    if (threadIdx.x == 0) tile = int(atomicAdd(next, 1u));
    __syncthreads();
    const int t = tile;
    // 2. Everyone has read `tile` before thread 0 may overwrite it in the next round.
    __syncthreads();
    if (t >= tiles) return;
    out[t * blockDim.x + threadIdx.x] = tile_work(t, unit_iters);
  }
}
