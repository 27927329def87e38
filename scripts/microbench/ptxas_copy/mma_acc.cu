// Lesson 17's matmul_mma_bf16 (lessons/17-tensor-cores/tc_matmul.cu) with fewer accumulator
// tiles a warp: mma_aIJ keeps acc[I][J][4] (mma_acc<I, J>; mma_a24 is the lesson's kernel). The
// copy loop is the lesson's. Compiled only (ptxas 13.0, sm_90a; run.sh): which of the peeled copies
// ptxas loads through one register set (PTXAS-COPY-2026-11-27.md).
#define MMA_BK 32
// ---- 2. mma.sync + ldmatrix: 128 threads, 64 x 64 tile, BK = 32 ----
// Rows padded by 8 elements (16 bytes): the 8 row addresses of one ldmatrix matrix then fall in
// 8 different 16-byte bank groups, with no conflicts.

template <int TI, int TJ>
__device__ __forceinline__ void mma_acc(const unsigned short* A, const unsigned short* B, float* C,
                                        int M, int N, int K) {
  __shared__ __align__(16) unsigned short As[64][MMA_BK + 8];
  __shared__ __align__(16) unsigned short Bs[MMA_BK][64 + 8];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int wm = (warp / 2) * 32, wn = (warp % 2) * 32;  // this warp's 32 x 32 within the block tile
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  float acc[TI][TJ][4] = {};  // [m16 tile][n8 tile][fragment]
  for (int k0 = 0; k0 < K; k0 += MMA_BK) {
    // 64 x 32 of A and 32 x 64 of B: 256 chunks of 16 bytes each, 2 per thread
    for (int c = tid; c < 256; c += 128) {
      int m = c / 4, kc = (c % 4) * 8;
      *(uint4*)&As[m][kc] = *(const uint4*)&A[(size_t)(row0 + m) * K + k0 + kc];
      int k = c / 8, nc = (c % 8) * 8;
      *(uint4*)&Bs[k][nc] = *(const uint4*)&B[(size_t)(k0 + k) * N + col0 + nc];
    }
    __syncthreads();
    for (int kk = 0; kk < MMA_BK; kk += 16) {
      unsigned a[2][4], b[4][2];
      for (int i = 0; i < 2; ++i) {  // A: lanes 0-15 give rows 0-15 at k, lanes 16-31 at k + 8
        unsigned addr = (unsigned)__cvta_generic_to_shared(
            &As[wm + i * 16 + (lane & 15)][kk + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                     : "r"(addr));
      }
      for (int j = 0; j < 4; j += 2) {  // B (k x n, row-major): .trans gives the "col" fragment
        unsigned addr =
            (unsigned)__cvta_generic_to_shared(&Bs[kk + (lane & 15)][wn + j * 8 + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1])
                     : "r"(addr));
      }
      for (int i = 0; i < TI; ++i)
        for (int j = 0; j < TJ; ++j)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
              "{%8,%9}, "
              "{%0,%1,%2,%3};"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    __syncthreads();
  }
  int g = lane / 4, t = lane % 4;  // fragment: c0,c1 at (g, 2t..2t+1), c2,c3 at (g + 8, 2t..2t+1)
  for (int i = 0; i < TI; ++i)
    for (int j = 0; j < TJ; ++j) {
      int r = row0 + wm + i * 16 + g, c = col0 + wn + j * 8 + 2 * t;
      *(float2*)&C[(size_t)r * N + c] = make_float2(acc[i][j][0], acc[i][j][1]);
      *(float2*)&C[(size_t)(r + 8) * N + c] = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}

extern "C" __global__ void mma_a24(const unsigned short* A, const unsigned short* B, float* C,
                                   int M, int N, int K) {
  mma_acc<2, 4>(A, B, C, M, N, K);
}
extern "C" __global__ void mma_a14(const unsigned short* A, const unsigned short* B, float* C,
                                   int M, int N, int K) {
  mma_acc<1, 4>(A, B, C, M, N, K);
}
extern "C" __global__ void mma_a22(const unsigned short* A, const unsigned short* B, float* C,
                                   int M, int N, int K) {
  mma_acc<2, 2>(A, B, C, M, N, K);
}
extern "C" __global__ void mma_a12(const unsigned short* A, const unsigned short* B, float* C,
                                   int M, int N, int K) {
  mma_acc<1, 2>(A, B, C, M, N, K);
}
extern "C" __global__ void mma_a11(const unsigned short* A, const unsigned short* B, float* C,
                                   int M, int N, int K) {
  mma_acc<1, 1>(A, B, C, M, N, K);
}
