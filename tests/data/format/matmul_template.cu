// A templated tiled matrix multiply in the style of cuda-samples' MatrixMulCUDA<BLOCK_SIZE>:
// C = A * B for square n x n matrices, n a multiple of BLOCK_SIZE. Never instantiated here: the
// experiment names MatrixMulCUDA<16> and NVRTC instantiates it from the name expression.
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* C, const float* A, const float* B, int n) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BLOCK_SIZE + ty, col = blockIdx.x * BLOCK_SIZE + tx;
  float sum = 0.0f;
  for (int t = 0; t < n / BLOCK_SIZE; ++t) {
    As[ty][tx] = A[row * n + t * BLOCK_SIZE + tx];
    Bs[ty][tx] = B[(t * BLOCK_SIZE + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = sum;
}

namespace demo {
template <typename T>
__global__ void fill(T* out, T value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}
}  // namespace demo
