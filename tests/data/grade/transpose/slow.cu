// Correct but slow: no shared memory; each warp writes 32 different rows of `out` (uncoalesced).
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int y = blockIdx.y * 32 + j;
    if (x < cols && y < rows) out[(long)x * rows + y] = in[(long)y * cols + x];
  }
}
