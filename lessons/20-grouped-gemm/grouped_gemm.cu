// The grouped GEMM of a mixture-of-experts layer: E experts, expert e multiplies its M_e tokens
// (rows of A, bf16) by its own weight matrix B_e (K x N, bf16) into C (fp32), the M_e differing
// from expert to expert. counts[e] = M_e is a buffer: the kernels read it on the device.
//
//   moe_grouped     one persistent launch for every expert: a grid of CTAs that walks the list of
//                   all experts' output tiles (t = blockIdx.x, + gridDim.x, ...), in GROUP_M order
//                   within each expert;
//   moe_expert      one launch per expert (args: e): one CTA per output tile of expert e, the same
//                   tile code (gemm_tiles) as moe_grouped, so the two write bit-identical results;
//   moe_reference   the same products in FP32 FMAs on the SIMT cores (a 4 x 4 patch per thread),
//                   the independent check of the other two.
//
// Each output tile is BM x BN = 64 x 128, computed by one warpgroup (4 warps, 128 threads) with
// wgmma.mma_async.m64n128k16 from shared memory. Its operands arrive by cp.async.bulk (on the
// H100, the TMA unit copies contiguous bytes from global to shared memory and completes the
// copy on an mbarrier) in a ring of STAGES stages, each holding one BK = 64 slice of K: thread 0
// issues the copies of work item i + STAGES while the warpgroup computes item i.
//
// Layouts. A bulk copy moves contiguous bytes, so A and B are stored in global memory already in
// the order wgmma reads shared memory ("no swizzle" core matrices: 8 rows x 16 bytes, 128
// contiguous bytes each), one BK slice of one tile per contiguous chunk:
//   A: the tokens sorted by expert; expert e's rows padded to a multiple of BM (row tiles); chunk
//      (row tile r, k block kb) = 8 KiB at element (r * (K / BK) + kb) * BM * BK;
//   B: chunk (expert e, column tile nt, k block kb) = 16 KiB at element
//      ((e * (N / BN) + nt) * (K / BK) + kb) * BN * BK, B stored as N x K (K-major), as wgmma reads it
//      without a transpose.
// Within a chunk, element (row r, k) of the tile sits at byte slice(k / 16) + core(r, k % 16)
// (pack_off below). C is row-major, TOKENS x N, expert e's rows after those of experts 0..e-1.
// A tensor map (cp.async.bulk.tensor) would let the TMA gather the same tiles from row-major A and
// B, swizzled; a box past an expert's last token would read the next expert's rows (not stored),
// or, with one tensor map per expert (tensormap.replace on the device), zeros.
//
// N a multiple of BN, K a multiple of BK; any counts (a row tile's rows past M_e compute from
// padding and are not stored).
#define BM 64
#define BN 128
#define BK 64
#ifndef STAGES
#define STAGES 4
#endif
#define A_CHUNK (BM * BK * 2)  // bytes per stage
#define B_CHUNK (BN * BK * 2)

__device__ __forceinline__ float bf16_to_f32(unsigned short h) { return __uint_as_float((unsigned)h << 16); }

// byte offset of element (r, k) within a chunk of `rows` rows x BK: 4 slices of rows x 16 k; in a
// slice, 8-row groups 256 bytes apart, the two 8-k halves 128 bytes apart, 16 bytes a row
__device__ __forceinline__ int pack_off(int rows, int r, int k) {
  return (k / 16) * rows * 32 + (r / 8) * 256 + ((k % 16) / 8) * 128 + (r % 8) * 16 + (k % 8) * 2;
}

// wgmma shared-memory descriptor, no swizzle: start address, leading byte offset 128 (between the
// two core matrices along K), stride byte offset 256 (between 8-row groups)
__device__ __forceinline__ unsigned long long desc(unsigned saddr) {
  return (unsigned long long)((saddr >> 4) & 0x3fff) | ((unsigned long long)(128 >> 4) << 16) |
         ((unsigned long long)(256 >> 4) << 32);
}

// Where output tile t (numbered over every expert: expert 0's tiles first) lies.
struct Tile {
  int e;       // expert
  int mt, nt;  // row tile within the expert, column tile
  int rt;      // row tile counted over all experts (A's chunk row)
  int row0;    // the expert's first token (C's row)
  int m;       // the expert's token count
};

__device__ Tile find_tile(const int* counts, int E, int NT, int GROUP_M, int t) {
  int base = 0, rt0 = 0, row0 = 0, e = 0;
  for (; e < E - 1; ++e) {  // the expert whose tiles contain t
    int mts = (counts[e] + BM - 1) / BM;
    if (t < base + mts * NT) break;
    base += mts * NT;
    rt0 += mts;
    row0 += counts[e];
  }
  int mts = (counts[e] + BM - 1) / BM;
  // GROUP_M order (as Triton's matmul tutorial): GROUP_M row tiles, column by column, then the
  // next GROUP_M rows. Consecutive tiles share a column of B; GROUP_M = 1 is row by row.
  int local = t - base, per_group = GROUP_M * NT;
  int first = (local / per_group) * GROUP_M;
  int rows = min(mts - first, GROUP_M);
  Tile tile;
  tile.e = e;
  tile.mt = first + (local % per_group) % rows;
  tile.nt = (local % per_group) / rows;
  tile.rt = rt0 + tile.mt;
  tile.row0 = row0;
  tile.m = counts[e];
  return tile;
}

__device__ int tiles_before(const int* counts, int e, int NT) {
  int n = 0;
  for (int i = 0; i < e; ++i) n += (counts[i] + BM - 1) / BM * NT;
  return n;
}

__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
}

// The tiles t_first, t_first + t_step, ... (below t_end) of this CTA, one after the other. Work
// item i is k block i % KB of this CTA's tile i / KB: the ring of STAGES runs across tiles, so the
// copies of a CTA's next tile start while it finishes the current one.
__device__ void gemm_tiles(const unsigned short* A, const unsigned short* B, float* C, const int* counts, int E,
                           int N, int K, int GROUP_M, int t_first, int t_end, int t_step) {
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES x (A chunk, B chunk)
  __shared__ __align__(8) unsigned long long full[STAGES];
  int tid = threadIdx.x, NT = N / BN, KB = K / BK;
  int my_tiles = t_first < t_end ? (t_end - t_first + t_step - 1) / t_step : 0;
  int items = my_tiles * KB;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      unsigned b = (unsigned)__cvta_generic_to_shared(&full[s]);
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int i) {  // thread 0: arm stage i % STAGES for both chunks, start the two copies
    Tile tl = find_tile(counts, E, NT, GROUP_M, t_first + (i / KB) * t_step);
    int kb = i % KB, s = i % STAGES;
    unsigned b = (unsigned)__cvta_generic_to_shared(&full[s]);
    unsigned sa = (unsigned)__cvta_generic_to_shared(smem + s * (A_CHUNK + B_CHUNK));
    const unsigned short* ga = A + ((size_t)tl.rt * KB + kb) * (BM * BK);
    const unsigned short* gb = B + (((size_t)tl.e * NT + tl.nt) * KB + kb) * (BN * BK);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "n"(A_CHUNK + B_CHUNK) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(sa),
                 "l"(ga), "n"(A_CHUNK), "r"(b)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     sa + A_CHUNK),
                 "l"(gb), "n"(B_CHUNK), "r"(b)
                 : "memory");
  };
  if (tid == 0)
    for (int i = 0; i < STAGES && i < items; ++i) issue(i);

  float d[BN / 2];
  for (int j = 0; j < BN / 2; ++j) d[j] = 0.f;
#pragma unroll 1
  for (int i = 0; i < items; ++i) {
    int s = i % STAGES;
    wait_parity((unsigned)__cvta_generic_to_shared(&full[s]), (i / STAGES) & 1);
    unsigned sa = (unsigned)__cvta_generic_to_shared(smem + s * (A_CHUNK + B_CHUNK));
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      unsigned long long da = desc(sa + ks * (BM * 32)), db = desc(sa + A_CHUNK + ks * (BN * 32));
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
    __syncthreads();  // every warp's wgmma has read stage s: it may be refilled
    if (tid == 0 && i + STAGES < items) issue(i + STAGES);
    if (i % KB == KB - 1) {  // the tile is done: store its rows that are tokens, start the next at 0
      Tile tl = find_tile(counts, E, NT, GROUP_M, t_first + (i / KB) * t_step);
      // accumulator fragment: warp w holds rows 16w..16w+15; for each 8-column chunk j,
      // registers 4j..4j+3 hold (g, 8j+2t), (g, 8j+2t+1), (g+8, 8j+2t), (g+8, 8j+2t+1)
      int warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
      int r = tl.mt * BM + warp * 16 + g;
      for (int j = 0; j < BN / 8; ++j) {
        int c = tl.nt * BN + j * 8 + 2 * q;
        if (r < tl.m) *(float2*)&C[(size_t)(tl.row0 + r) * N + c] = make_float2(d[4 * j], d[4 * j + 1]);
        if (r + 8 < tl.m)
          *(float2*)&C[(size_t)(tl.row0 + r + 8) * N + c] = make_float2(d[4 * j + 2], d[4 * j + 3]);
      }
      for (int j = 0; j < BN / 2; ++j) d[j] = 0.f;
    }
  }
}

// Persistent: every CTA takes every gridDim.x-th tile of all experts' tiles.
extern "C" __global__ void __launch_bounds__(128) moe_grouped(const unsigned short* A, const unsigned short* B,
                                                              float* C, const int* counts, int E, int N, int K,
                                                              int GROUP_M) {
  int total = tiles_before(counts, E, N / BN);
  gemm_tiles(A, B, C, counts, E, N, K, GROUP_M, blockIdx.x, total, gridDim.x);
}

// One launch per expert: CTA b computes tile b of expert e (the grid is expert e's tile count).
extern "C" __global__ void __launch_bounds__(128) moe_expert(const unsigned short* A, const unsigned short* B,
                                                             float* C, const int* counts, int E, int N, int K,
                                                             int GROUP_M, int e) {
  int t = tiles_before(counts, e, N / BN) + blockIdx.x;
  gemm_tiles(A, B, C, counts, E, N, K, GROUP_M, t, t + 1, 1);
}

// The routing step's result: expert e gets M0 + DM * e tokens (a ramp, so that the host's loop of
// per-expert launches can size each grid from the parameters; the grouped kernels read counts).
extern "C" __global__ void moe_counts(int* counts, int E, int M0, int DM) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < E) counts[e] = M0 + DM * e;
}

// The reference: 16 x 16 threads per 64 x 64 block of one row tile (blockIdx.y counts row tiles
// over all experts), 4 x 4 outputs per thread, FP32 FMAs, operands staged in shared memory.
extern "C" __global__ void moe_reference(const unsigned short* A, const unsigned short* B, float* C,
                                         const int* counts, int E, int N, int K) {
  __shared__ float As[16][64 + 1];
  __shared__ float Bs[16][64];
  int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx, KB = K / BK;
  int rt = blockIdx.y, col0 = blockIdx.x * 64;
  int e = 0, rt0 = 0, row0 = 0;  // the expert of row tile rt
  for (; e < E - 1; ++e) {
    int mts = (counts[e] + BM - 1) / BM;
    if (rt < rt0 + mts) break;
    rt0 += mts;
    row0 += counts[e];
  }
  int mt = rt - rt0, nt = col0 / BN, n_in = col0 % BN;
  if (mt >= (counts[e] + BM - 1) / BM) return;  // the grid's spare row tiles (it is an upper bound)
  const unsigned char* a_tile = (const unsigned char*)(A + (size_t)rt * KB * BM * BK);
  const unsigned char* b_tile = (const unsigned char*)(B + ((size_t)e * (N / BN) + nt) * KB * BN * BK);
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    const unsigned char* a_chunk = a_tile + (size_t)(k0 / BK) * A_CHUNK;
    const unsigned char* b_chunk = b_tile + (size_t)(k0 / BK) * B_CHUNK;
    {  // 64 rows of A and 64 of B, 16 k each: 8 k of one row are 16 contiguous bytes, one per thread
      int r = (tid % 128) / 2, kh = (tid % 2) * 8;
      uint4 v = tid < 128 ? *(const uint4*)(a_chunk + pack_off(BM, r, k0 % BK + kh))
                          : *(const uint4*)(b_chunk + pack_off(BN, n_in + r, k0 % BK + kh));
      const unsigned short* h = (const unsigned short*)&v;
      for (int j = 0; j < 8; ++j) {
        if (tid < 128) As[kh + j][r] = bf16_to_f32(h[j]);
        else Bs[kh + j][r] = bf16_to_f32(h[j]);
      }
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
  for (int i = 0; i < 4; ++i) {
    int r = mt * BM + ty * 4 + i;
    if (r < counts[e])
      for (int j = 0; j < 4; ++j) C[(size_t)(row0 + r) * N + col0 + tx * 4 + j] = acc[i][j];
  }
}
