// Lesson 12a: the tiled matmul of lesson 5 (16 x 16 shared-memory tiles), launched as a 1-D grid
// whose block ids are mapped to output tiles in row-major or grouped order (order.h). The
// arithmetic of every tile is the same in both orders, so C is identical bit for bit; only which
// tiles run at the same time changes.
#include "order.h"

#define TILE 16

// C = A B, A is M x K, B is K x N, row-major. Launch (M / 16) * (N / 16) blocks of 16 x 16 threads.
// M, N and K must be multiples of 16.
__device__ void matmul_ordered(const float* A, const float* B, float* C, int M, int N, int K,
                               int order, int group_m) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tm, tn;
  tile_of_block(blockIdx.x, M / TILE, N / TILE, order, group_m, tm, tn);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = tm * TILE + ty, col = tn * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = A[row * K + t + tx];    // the block's A panel: rows tm*16 .. tm*16 + 15
    Bs[ty][tx] = B[(t + ty) * N + col];  // the block's B panel: columns tn*16 .. tn*16 + 15
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

extern "C" __global__ void matmul_rows(const float* A, const float* B, float* C, int M, int N,
                                       int K) {
  matmul_ordered(A, B, C, M, N, K, 0, 1);
}

extern "C" __global__ void matmul_grouped(const float* A, const float* B, float* C, int M, int N,
                                          int K, int group_m) {
  matmul_ordered(A, B, C, M, N, K, 1, group_m);
}
