// Racy: the barrier between writing and reading the tile is missing. Otherwise the reference: a 32 x 32 tile staged in shared memory (one padding column against bank
// conflicts); blocks of 32 x 8 threads, each thread moves rows y, y+8, y+16, y+24 of its tile.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int y = blockIdx.y * 32 + j;
    if (x < cols && y < rows) tile[j][threadIdx.x] = in[(long)y * cols + x];
  }
  // racy: no __syncthreads() between writing the tile and reading it
  const int ox = blockIdx.y * 32 + threadIdx.x;  // a row of `in` is a column of `out`
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int oy = blockIdx.x * 32 + j;
    if (ox < rows && oy < cols) out[(long)oy * rows + ox] = tile[threadIdx.x][j];
  }
}
