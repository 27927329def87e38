// Lesson 5b: shared-memory tiling, matrix transpose (out = in^T; in is rows x cols, row-major).
//
// The naive kernel reads rows of `in` (coalesced) but writes columns of `out`: neighbouring lanes
// write addresses `rows` floats apart, one sector each. The tiled kernel reads a 32 x 32 tile into
// shared memory with coalesced loads, then writes it out transposed with coalesced stores; the
// transposition happens in shared memory. The tile has an extra column (TILE + PAD, PAD = 1) so
// that reading a column of the tile hits 32 different shared-memory banks instead of the same one
// 32 times.

#define TILE 32
#ifndef PAD
#define PAD \
  1  // extra columns per tile row; transpose.toml's `pad` sets it (-DPAD=0: bank conflicts)
#endif

// One thread per element. Launch with a 2-D grid: x covers columns of `in`, y covers rows.
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column in `in`
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row in `in`
  if (x < cols && y < rows) {
    out[x * rows + y] = in[y * cols + x];
  }
}

// Launch with blocks of 32 x 8 threads: each block moves one 32 x 32 tile, each thread 4 elements.
extern "C" __global__ void transpose_tiled(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];

  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  // 1. Coalesced read of the tile: lanes of a warp read consecutive columns of one row.
  for (int j = 0; j < TILE; j += blockDim.y) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  __syncthreads();

  // 2. Coalesced write of the transposed tile: swap the block's x and y.
  x = blockIdx.y * TILE + threadIdx.x;  // now a column of `out` (a row of `in`)
  y = blockIdx.x * TILE + threadIdx.y;  // now a row of `out` (a column of `in`)
  for (int j = 0; j < TILE; j += blockDim.y) {
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}
