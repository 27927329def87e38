// Tensor cores from CUDA with inline PTX: C (f32, MxN) = A (bf16, MxK, row-major) * B (bf16, KxN,
// row-major), one warp per 16x8 tile of C, K in steps of 16:
//   1. the warp copies its A tile (16x16) and B tile (16x8) into its own shared memory;
//   2. ldmatrix.x4 loads A as the four 8x8 matrices of the mma's A fragment (lane l points at
//      row l%8 + 8*((l/8)%2), column 8*(l/16) of the tile); ldmatrix.x2.trans loads B (lane l < 16
//      points at row k = l): .trans hands each lane B's elements down a column, as mma wants;
//   3. mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 accumulates into 4 f32 registers per
//      lane: rows g and g+8, columns 2t and 2t+1 of the tile (g = lane/4, t = lane%4).
// simt_ref computes the same product one thread per element with fmaf in k order (FP32 SIMT),
// the independent reference the experiment checks against.
// M a multiple of 16, N of 8, K of 16.
#include <cuda_bf16.h>

constexpr int kWarps = 4;  // warps per block

extern "C" __global__ void mma_bf16_matmul(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                           float* C, int M, int N, int K) {
  __shared__ __align__(16) unsigned short sa[kWarps][16 * 16];
  __shared__ __align__(16) unsigned short sb[kWarps][16 * 8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x * kWarps + warp, tiles_n = N / 8;
  const int tm = tile / tiles_n, tn = tile % tiles_n;
  if (tm * 16 >= M) return;  // the whole warp leaves together
  const unsigned short* a16 = reinterpret_cast<const unsigned short*>(A);
  const unsigned short* b16 = reinterpret_cast<const unsigned short*>(B);
  const int g = lane / 4, t = lane % 4;
  // ldmatrix row addresses (shared-space, 32-bit), fixed for the whole loop.
  const int a_row = lane % 8 + 8 * ((lane / 8) % 2), a_col = 8 * (lane / 16);
  const unsigned a_addr =
      static_cast<unsigned>(__cvta_generic_to_shared(&sa[warp][a_row * 16 + a_col]));
  const unsigned b_addr = static_cast<unsigned>(__cvta_generic_to_shared(&sb[warp][(lane % 16) * 8]));
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    // 1. Tiles to shared memory: A row lane/2, 8 halves from column (lane%2)*8 (16 bytes); B row
    //    lane/2, 4 halves from column (lane%2)*4 (8 bytes).
    const int r = lane / 2;
    *reinterpret_cast<uint4*>(&sa[warp][r * 16 + (lane % 2) * 8]) =
        *reinterpret_cast<const uint4*>(&a16[(tm * 16 + r) * K + k0 + (lane % 2) * 8]);
    *reinterpret_cast<uint2*>(&sb[warp][r * 8 + (lane % 2) * 4]) =
        *reinterpret_cast<const uint2*>(&b16[(k0 + r) * N + tn * 8 + (lane % 2) * 4]);
    __syncwarp();
    // 2. Fragments.
    unsigned a[4], b[2];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(a_addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(b_addr));
    // 3. D += A * B on the tensor core.
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    __syncwarp();  // the next copy overwrites the tiles
  }
  float* c = C + (tm * 16 + g) * N + tn * 8 + 2 * t;
  c[0] = d[0], c[1] = d[1];
  c[8 * N] = d[2], c[8 * N + 1] = d[3];
}

extern "C" __global__ void simt_ref(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M,
                                    int N, int K) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  const int m = i / N, n = i % N;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc = fmaf(__bfloat162float(A[m * K + k]), __bfloat162float(B[k * N + n]), acc);
  C[i] = acc;
}
