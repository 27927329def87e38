// Lesson 9b: the same 32 x 32 shared-memory tile transpose three ways, and the bug of a missing
// barrier.
//
// Each block of 32 x 8 threads moves one 32 x 32 tile of `in` (rows x cols, row-major) to `out`
// (cols x rows): it reads the tile row by row into shared memory (coalesced global loads), waits
// at a barrier, then writes it out row by row of `out`, which means reading the shared tile by
// *column*. Each thread moves 4 elements (rows threadIdx.y, +8, +16, +24 of the tile).
//
// Where the column read lands in the banks:
//   tile_plain     float t[32][32]: t[r][c] is word 32 r + c, bank c. A column (fixed c, 32 rows)
//                  is 32 words in one bank: a 32-way conflict, 32 wavefronts per warp read.
//   tile_padded    float t[32][33]: word 33 r + c, bank (r + c) % 32. A column covers all 32
//                  banks: one wavefront. Costs 32 unused words (128 bytes) per tile.
//   tile_swizzled  float t[32][32], but column c of row r is stored at c ^ r (XOR swizzle). Row r
//                  is a permutation of the banks, and column c reads bank c ^ r for r = 0..31:
//                  all 32 banks. One wavefront, no wasted words (this is what CUTLASS and
//                  TMA's swizzle modes do in hardware-friendly form).
//   tile_nosync    tile_padded without the __syncthreads(): a warp may read a column before
//                  the warps that write its other rows have written them. A data race: run
//                  bugs/race.toml with --racecheck.

#define TILE 32
#define ROWS_PER_PASS 8  // blockDim.y

// The three correct kernels below are this template with different shared layouts.
//   index(r, c): the word of the tile's element (row r, column c) in the shared array.
template <int LD, bool SWIZZLE>
__device__ void tile_transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float t[TILE * LD];
  auto index = [](int r, int c) { return r * LD + (SWIZZLE ? (c ^ r) : c); };

  // 1. Coalesced read: lanes of a warp read consecutive columns of one row of `in`.
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    if (x < cols && y + j < rows) t[index(threadIdx.y + j, threadIdx.x)] = in[(y + j) * cols + x];
  }
  // 2. Wait until every warp of the block has written its rows of the tile.
  __syncthreads();

  // 3. Coalesced write: lanes write consecutive columns of one row of `out`, which is a column of
  //    the tile: lane l reads tile row l.
  x = blockIdx.y * TILE + threadIdx.x;  // a column of `out` = a row of `in`
  y = blockIdx.x * TILE + threadIdx.y;  // a row of `out` = a column of `in`
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = t[index(threadIdx.x, threadIdx.y + j)];
  }
}

extern "C" __global__ void tile_plain(const float* in, float* out, int rows, int cols) {
  tile_transpose<TILE, false>(in, out, rows, cols);
}
extern "C" __global__ void tile_padded(const float* in, float* out, int rows, int cols) {
  tile_transpose<TILE + 1, false>(in, out, rows, cols);
}
extern "C" __global__ void tile_swizzled(const float* in, float* out, int rows, int cols) {
  tile_transpose<TILE, true>(in, out, rows, cols);
}

// tile_padded written out, with its barrier missing (written out rather than instantiated from
// the template, so that a race report names the lines of the write and the read).
extern "C" __global__ void tile_nosync(const float* in, float* out, int rows, int cols) {
  __shared__ float t[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    if (x < cols && y + j < rows) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  // BUG: no __syncthreads() here. Lane l of every warp now reads row l of the tile, which the
  // warp with threadIdx.y == l % 8 writes; nothing makes this warp wait for that one.
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = t[threadIdx.x][threadIdx.y + j];
  }
}
