// Validation corpus: C = relu(A * B + bias) with 16x16 shared-memory tiles and the bias add and
// ReLU fused into the store (M, N, K multiples of 16). With A = B = 1 (integers) and bias = -1
// every element is K - 1, exact in float.
#define T 16
extern "C" __global__ void matmul_bias_relu(const float* A, const float* B, const float* bias,
                                            float* C, int M, int N, int K) {
  __shared__ float As[T][T], Bs[T][T];
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * N + col] = fmaxf(acc + bias[col], 0.f);
}
