// Lesson 5a: shared-memory tiling, matrix multiply C = A * B (A is M x K, B is K x N, row-major).
//
// The naive kernel reads a row of A and a column of B from global memory for every output, so each
// input element is fetched N (or M) times. The tiled kernel has the block load a 16 x 16 tile of A
// and of B into shared memory once, then every thread of the block reuses it 16 times from there.
// Both kernels add the products in the same order (k = 0, 1, 2, ...), so they give identical
// results.

#define TILE 16

// One thread per element of C. Launch with a 2-D grid: x covers columns, y covers rows.
extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N,
                                        int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}

// Launch with 16 x 16 blocks. Tiles that stick out past the edge of A or B are padded with zeros.
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N,
                                        int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];

  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;

  for (int t = 0; t < K; t += TILE) {
    // 1. Every thread loads one element of each tile (consecutive tx: consecutive addresses).
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    __syncthreads();  // 2. wait until the whole tile is in shared memory
    // 3. Multiply the two tiles out of shared memory.
    for (int k = 0; k < TILE; ++k) {
      sum += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();  // 4. wait until everyone is done before the next tile overwrites this one
  }
  if (row < M && col < N) {
    C[row * N + col] = sum;
  }
}
