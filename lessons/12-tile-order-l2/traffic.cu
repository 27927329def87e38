// Lesson 12b: a tiled matmul's memory traffic without its arithmetic.
//
// A block of a tiled matmul C = A B that computes the BM x BN tile (tm, tn) of C reads a BM x K
// panel of A (rows tm*BM ...) and a K x BN panel of B (columns tn*BN ...), and does BM * BN * K
// FMAs on them. The simulator cannot run that many FMAs on matrices larger than the 50 MiB L2 in
// reasonable time. `panel_sum` reads exactly the same two panels, in the same block order, but
// computes only the sum of the entries of the C tile, which needs far less arithmetic:
//     sum_{r,c} C[r][c] = sum_k (sum_r A[r][k]) * (sum_c B[k][c])
// so its L2 and DRAM traffic is a matmul's, and its time is mostly that traffic.
#include "order.h"

#define BM 128
#define BN 128  // = 32 lanes x 4 floats: one float4 per lane covers a row of the B panel

// Launch with 256 threads (any multiple of 32 that divides K / 4 works) and dynamic shared memory
// of at least K floats. K must be a multiple of 4 * blockDim.x, N of BN, M of BM.
extern "C" __global__ void panel_sum(const float* A, const float* B, float* out, int M, int N,
                                     int K, int order, int group_m) {
  extern __shared__ float4 colA4[];  // K / 4 float4: the column sums of the A panel
  __shared__ float warp_sums[32];
  const int tiles_m = M / BM, tiles_n = N / BN;
  int tm, tn;
  tile_of_block(blockIdx.x, tiles_m, tiles_n, order, group_m, tm, tn);

  // 1. Column sums of the A panel: a warp reads 32 float4 = 512 consecutive bytes of a row.
  const float* a = A + size_t(tm) * BM * K;
  for (int k4 = threadIdx.x; k4 < K / 4; k4 += blockDim.x) {
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
    for (int r = 0; r < BM; ++r) {
      const float4 v = reinterpret_cast<const float4*>(a + size_t(r) * K)[k4];
      s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    }
    colA4[k4] = s;
  }
  __syncthreads();

  // 2. Rows of the B panel, each weighted by the A panel's column sum: warp w reads rows
  //    w, w + 8, ...; each row is BN = 128 consecutive floats (one float4 per lane).
  const float* colA = reinterpret_cast<const float*>(colA4);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const float* b = B + size_t(tn) * BN + 4 * lane;
  float acc = 0.f;
#pragma unroll 4
  for (int k = warp; k < K; k += warps) {
    const float4 v = *reinterpret_cast<const float4*>(b + size_t(k) * N);
    acc += colA[k] * ((v.x + v.y) + (v.z + v.w));
  }

  // 3. Sum over the block: within each warp, then the warps' sums.
  for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int w = 0; w < warps; ++w) total += warp_sums[w];
    out[tm * tiles_n + tn] = total;
  }
}
