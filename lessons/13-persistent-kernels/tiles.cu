// Lesson 13: waves, the tail effect and persistent kernels.
//
// The work is `tiles` equal tiles. Each tile needs a table (a stand-in for whatever a block loads
// before it can start: weights, a lookup table, a matmul's first stages) in shared memory, and then
// a fixed amount of arithmetic (8 x iters FMAs per thread).
//
//   tiles_per_block   one block per tile: the grid has `tiles` blocks. Every block loads the
//                     table again, and the hardware starts a new block for every tile.
//   tiles_persistent  as many blocks as can run at once (one per SM here): each loads the table
//                     once and then loops over tiles blockIdx.x, blockIdx.x + gridDim.x, ...
//
// Both write the same values to out[tile * blockDim.x + threadIdx.x].

// The tile's arithmetic: 8 independent FMA chains per thread, seeded from the table.
__device__ float tile_body(const float* table, int table_n, int tile, int iters) {
  const float a = table[0], b = table[1];  // 0.5 and 0.25 (see the experiments)
  float c[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) c[j] = table[(threadIdx.x + 32 * j) % table_n] + tile;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) c[j] = fmaf(c[j], a, b);
  }
  return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
}

// Copies the table into shared memory; consecutive threads copy consecutive floats.
__device__ void load_table(const float* table, float* s, int table_n) {
  for (int i = threadIdx.x; i < table_n; i += blockDim.x) s[i] = table[i];
  __syncthreads();
}

// Launch `tiles` blocks with table_n * 4 bytes (or more) of dynamic shared memory.
extern "C" __global__ void tiles_per_block(const float* table, float* out, int table_n, int iters) {
  extern __shared__ float s[];
  load_table(table, s, table_n);
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile_body(s, table_n, blockIdx.x, iters);
}

// Launch as many blocks as run at once (SMs x blocks per SM), same shared memory.
extern "C" __global__ void tiles_persistent(const float* table, float* out, int tiles, int table_n,
                                            int iters) {
  extern __shared__ float s[];
  load_table(table, s, table_n);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    out[tile * blockDim.x + threadIdx.x] = tile_body(s, table_n, tile, iters);
  }
}
