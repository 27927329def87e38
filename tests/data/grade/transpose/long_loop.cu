// Correct, but every thread first spins 350,000 iterations of a loop (about 1.4M instructions per
// warp, inside the assignment's max_instructions = 2,000,000): no hang limit stops it, the grade's
// wall-clock budget does (tests/grade/run.sh grades it with --test-time-limit 2: one block
// of it finishes in time, the tests with more blocks do not).
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
  unsigned h = threadIdx.x;
  for (int i = 0; i < 350000; ++i) h = h * 1664525u + 1013904223u;
  if (h == 12345u) return;
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int y = blockIdx.y * 32 + j;
    if (x < cols && y < rows) out[(long)x * rows + y] = in[(long)y * cols + x];
  }
}
