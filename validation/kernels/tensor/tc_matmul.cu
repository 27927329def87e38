// One matmul, C = A * B (A: M x K, B: K x N, both bf16 row-major; C: fp32 row-major), three ways:
//
//   matmul_simt_bf16   FP32 FMA on the SIMT cores: 64 x 64 tiles in shared memory, each thread
//                      computes a 4 x 4 patch (the lesson 5 idea, with bf16 inputs);
//   matmul_mma_bf16    the tensor cores through mma.sync.m16n8k16 (SASS HMMA.16816): a block of 4
//                      warps computes 64 x 64, each warp 32 x 32 = 2 x 4 tiles of 16 x 8; fragments
//                      come from shared memory with ldmatrix (A as stored, B with .trans);
//   matmul_wgmma_bf16  Hopper's warpgroup MMA (wgmma.mma_async m64n128k16, SASS HGMMA): one
//                      warpgroup (4 warps) computes 64 x 128 with A and B read by the tensor cores
//                      straight from shared memory through matrix descriptors (needs sm_90a).
//
// M, N multiples of 64 (128 for wgmma's N), K a multiple of 32 (64 for wgmma). No bounds checks:
// the experiments choose sizes that fit. bf16 values are carried as 16-bit integers (their bits):
// a bf16 is the upper half of an fp32.

__device__ __forceinline__ float bf16_to_f32(unsigned short h) { return __uint_as_float((unsigned)h << 16); }

// ---- 1. SIMT: 16 x 16 threads, 64 x 64 tile, BK = 16 ----
extern "C" __global__ void matmul_simt_bf16(const unsigned short* A, const unsigned short* B, float* C,
                                            int M, int N, int K) {
  __shared__ float As[16][64 + 1];  // As[k][m]
  __shared__ float Bs[16][64];      // Bs[k][n]
  int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int i = tid; i < 64 * 16; i += 256) {
      int m = i / 16, k = i % 16;  // A tile: 64 rows of 16
      As[k][m] = bf16_to_f32(A[(size_t)(row0 + m) * K + k0 + k]);
      int kk = i / 64, n = i % 64;  // B tile: 16 rows of 64
      Bs[kk][n] = bf16_to_f32(B[(size_t)(k0 + kk) * N + col0 + n]);
    }
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      float a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty * 4 + i];
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx * 4 + j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(size_t)(row0 + ty * 4 + i) * N + col0 + tx * 4 + j] = acc[i][j];
}

// ---- 2. mma.sync + ldmatrix: 128 threads, 64 x 64 tile, BK = 32 ----
// Rows padded by 8 elements (16 bytes): the 8 row addresses of one ldmatrix matrix then fall in
// 8 different 16-byte bank groups, with no conflicts.
#define MMA_BK 32
extern "C" __global__ void matmul_mma_bf16(const unsigned short* A, const unsigned short* B, float* C, int M,
                                           int N, int K) {
  __shared__ __align__(16) unsigned short As[64][MMA_BK + 8];
  __shared__ __align__(16) unsigned short Bs[MMA_BK][64 + 8];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int wm = (warp / 2) * 32, wn = (warp % 2) * 32;  // this warp's 32 x 32 within the block tile
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  float acc[2][4][4] = {};  // [m16 tile][n8 tile][fragment]
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
        unsigned addr = (unsigned)__cvta_generic_to_shared(&As[wm + i * 16 + (lane & 15)][kk + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                     : "r"(addr));
      }
      for (int j = 0; j < 4; j += 2) {  // B (k x n, row-major): .trans gives the "col" fragment
        unsigned addr = (unsigned)__cvta_generic_to_shared(&Bs[kk + (lane & 15)][wn + j * 8 + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1])
                     : "r"(addr));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    __syncthreads();
  }
  int g = lane / 4, t = lane % 4;  // fragment: c0,c1 at (g, 2t..2t+1), c2,c3 at (g + 8, 2t..2t+1)
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      int r = row0 + wm + i * 16 + g, c = col0 + wn + j * 8 + 2 * t;
      *(float2*)&C[(size_t)r * N + c] = make_float2(acc[i][j][0], acc[i][j][1]);
      *(float2*)&C[(size_t)(r + 8) * N + c] = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}

// ---- 3. wgmma from shared memory: 128 threads (one warpgroup), 64 x 128 tile, BK = 64 ----
// Shared memory holds each k16 slice of a tile in the "no swizzle" core-matrix layout: a core
// matrix is 8 rows of 16 bytes (8 bf16 along K), stored as 128 contiguous bytes; the two core
// matrices along K sit 128 bytes apart (the descriptor's leading byte offset), successive groups
// of 8 rows 256 bytes apart (its stride byte offset). B is stored transposed (N x K, K-major),
// like A, so neither operand needs wgmma's transpose.
#define WG_BK 64
#define WG_N 128
__device__ __forceinline__ unsigned long long wg_desc(unsigned saddr) {
  return (unsigned long long)((saddr >> 4) & 0x3fff) | ((unsigned long long)(128 >> 4) << 16) |
         ((unsigned long long)(256 >> 4) << 32);
}
// byte offset of element (r, k) of a rows x 16 k-slice in the core-matrix layout
__device__ __forceinline__ int wg_off(int r, int k) { return (r / 8) * 256 + (k / 8) * 128 + (r % 8) * 16 + (k % 8) * 2; }

extern "C" __global__ void __launch_bounds__(128) matmul_wgmma_bf16(const unsigned short* A, const unsigned short* B,
                                                                    float* C, int M, int N, int K) {
  // per k16 slice: A 64 x 16 (2 KiB), B 128 x 16 (4 KiB); 4 slices per BK = 64
  __shared__ __align__(128) unsigned char As[WG_BK / 16][64 * 16 * 2];
  __shared__ __align__(128) unsigned char Bs[WG_BK / 16][WG_N * 16 * 2];
  int tid = threadIdx.x;
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * WG_N;
  float d[WG_N / 2];
  for (int i = 0; i < WG_N / 2; ++i) d[i] = 0.f;
  for (int k0 = 0; k0 < K; k0 += WG_BK) {
    // A: 64 rows x 64 k: 512 chunks of 8 bf16 (16 bytes), 4 per thread
    for (int c = tid; c < 64 * WG_BK / 8; c += 128) {
      int m = c / (WG_BK / 8), k = (c % (WG_BK / 8)) * 8;
      *(uint4*)&As[k / 16][wg_off(m, k % 16)] = *(const uint4*)&A[(size_t)(row0 + m) * K + k0 + k];
    }
    // B: 64 k x 128 n, stored transposed: element (n, k); 8 k values of one n are 8 separate loads
    for (int c = tid; c < WG_N * WG_BK / 8; c += 128) {
      int n = c % WG_N, k = (c / WG_N) * 8;
      unsigned short v[8];
      for (int e = 0; e < 8; ++e) v[e] = B[(size_t)(k0 + k + e) * N + col0 + n];
      *(uint4*)&Bs[k / 16][wg_off(n, k % 16)] = *(uint4*)v;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> async proxy
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int s = 0; s < WG_BK / 16; ++s) {
      unsigned long long da = wg_desc((unsigned)__cvta_generic_to_shared(As[s]));
      unsigned long long db = wg_desc((unsigned)__cvta_generic_to_shared(Bs[s]));
      asm volatile(
          "{ .reg .pred p; setp.ne.b32 p, 1, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
          "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,"
          "%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,"
          "%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0; }"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
            "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
            "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
            "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
            "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
            "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
            "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
            "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
          : "l"(da), "l"(db));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();  // the next tile overwrites shared memory only after every warp's wgmma read it
  }
  // accumulator fragment: warp w holds rows 16w..16w+15; for each 8-column chunk j, registers
  // 4j..4j+3 hold (g, 8j+2t), (g, 8j+2t+1), (g+8, 8j+2t), (g+8, 8j+2t+1)
  int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  for (int j = 0; j < WG_N / 8; ++j) {
    int r = row0 + warp * 16 + g, c = col0 + j * 8 + 2 * t;
    *(float2*)&C[(size_t)r * N + c] = make_float2(d[4 * j], d[4 * j + 1]);
    *(float2*)&C[(size_t)(r + 8) * N + c] = make_float2(d[4 * j + 2], d[4 * j + 3]);
  }
}
