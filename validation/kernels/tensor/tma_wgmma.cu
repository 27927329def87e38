// TMA tensor copies feeding Hopper's tensor cores (sm_90a), for the validation corpus
// (validation/experiments/tma_wgmma.toml):
//   tma_copy_f32       each block moves one 32 x 32 f32 box of a W x H tensor through shared
//                      memory with a TMA load (mbarrier completion) and a TMA store (bulk group);
//                      boxes on the tensor's right and bottom edges are partly outside it: the
//                      load fills zeros there and the store skips them, so out == in exactly;
//   matmul_tma_wgmma   C (M x N, f32) = A (M x K) * B, bf16 inputs with B given transposed
//                      (Bt: N x K, both operands K-major): one warpgroup per 64 x 128 tile of C,
//                      BK = 64, a 3-stage ring of shared buffers filled by TMA (128-byte swizzle,
//                      the layout wgmma's descriptors read with swizzle mode 1), one mbarrier per
//                      stage; thread 0 refills a stage once the warpgroup's wgmmas on it are done;
//   matmul_ref_bt      the same product on the SIMT cores (one thread per element of C, f32 FMA
//                      in K order), the check's reference.
// The tensor maps are `const __grid_constant__` 128-byte parameters (CUtensorMap; NVRTC has no
// cuda.h, so the type is declared here with the same size and alignment), built by the
// experiment's { tensormap = ... } arguments. bf16 values are 16-bit integers (their bits).

struct __align__(64) TensorMap {
  unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned phase) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  }
}

// A 2D box at (x, y) (innermost first) into shared memory, reporting `bytes` to `bar`.
__device__ __forceinline__ void tma_load(unsigned dst, const TensorMap* map, int x, int y,
                                         unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, "
      "{%2, %3}], [%4];" ::"r"(dst),
      "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

// ---- 1. TMA load + TMA store of one 32 x 32 f32 box per block ----
extern "C" __global__ void tma_copy_f32(const __grid_constant__ TensorMap in,
                                        const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  if (threadIdx.x == 0) {
    const unsigned b = smem_addr(&bar);
    mbar_init(b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
    mbar_wait(b, 0);
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&out),
        "r"(x), "r"(y), "r"(smem_addr(tile))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

// ---- 2. TMA + mbarrier + wgmma matmul ----
#define TW_BM 64
#define TW_BN 128
#define TW_BK 64
#define TW_STAGES 3
#define TW_A_BYTES (TW_BM * TW_BK * 2)  // 8 KiB: 64 rows of 128 bytes
#define TW_B_BYTES (TW_BN * TW_BK * 2)  // 16 KiB: 128 rows of 128 bytes

// K-major operand, 128-byte swizzle: rows of 64 bf16 (128 bytes), groups of 8 rows 1024 bytes
// apart (stride byte offset), swizzle mode 1 (bits 62-63); the k16 slice s starts 32 * s bytes in.
__device__ __forceinline__ unsigned long long sw128_desc(unsigned saddr) {
  return (unsigned long long)((saddr >> 4) & 0x3fff) | (1ull << 16) |
         ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
}

extern "C" __global__ void __launch_bounds__(128)
    matmul_tma_wgmma(const __grid_constant__ TensorMap mapA, const __grid_constant__ TensorMap mapB,
                     float* C, int M, int N, int K) {
  extern __shared__ __align__(1024) unsigned char dyn[];
  __shared__ __align__(8) unsigned long long full[TW_STAGES];
  // The ring, 1024-byte aligned (the swizzle pattern is of the shared address itself).
  const unsigned base = (smem_addr(dyn) + 1023u) & ~1023u;
  const unsigned a0 = base, b0 = base + TW_STAGES * TW_A_BYTES;
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * TW_BM, col0 = blockIdx.x * TW_BN;
  const int kt_count = K / TW_BK;
  if (tid == 0) {
    for (int s = 0; s < TW_STAGES; ++s) mbar_init(smem_addr(&full[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&mapA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&mapB) : "memory");
    for (int s = 0; s < TW_STAGES && s < kt_count; ++s) {
      tma_load(a0 + s * TW_A_BYTES, &mapA, s * TW_BK, row0, smem_addr(&full[s]),
               TW_A_BYTES + TW_B_BYTES);
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
          "[%1, {%2, %3}], [%4];" ::"r"(b0 + s * TW_B_BYTES),
          "l"(&mapB), "r"(s * TW_BK), "r"(col0), "r"(smem_addr(&full[s]))
          : "memory");
    }
  }
  __syncthreads();
  float d[TW_BN / 2];
  for (int i = 0; i < TW_BN / 2; ++i) d[i] = 0.f;
  for (int kt = 0; kt < kt_count; ++kt) {
    const int s = kt % TW_STAGES;
    mbar_wait(smem_addr(&full[s]), (kt / TW_STAGES) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int k = 0; k < TW_BK / 16; ++k) {
      const unsigned long long da = sw128_desc(a0 + s * TW_A_BYTES + 32 * k);
      const unsigned long long db = sw128_desc(b0 + s * TW_B_BYTES + 32 * k);
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
    __syncthreads();  // every warp's wgmmas have read stage s: it may be refilled
    const int next = kt + TW_STAGES;
    if (tid == 0 && next < kt_count) {
      tma_load(a0 + s * TW_A_BYTES, &mapA, next * TW_BK, row0, smem_addr(&full[s]),
               TW_A_BYTES + TW_B_BYTES);
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
          "[%1, {%2, %3}], [%4];" ::"r"(b0 + s * TW_B_BYTES),
          "l"(&mapB), "r"(next * TW_BK), "r"(col0), "r"(smem_addr(&full[s]))
          : "memory");
    }
  }
  // accumulator fragment (as lesson 17's matmul_wgmma_bf16): warp w holds rows 16w..16w+15
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  for (int j = 0; j < TW_BN / 8; ++j) {
    const int r = row0 + warp * 16 + g, c = col0 + j * 8 + 2 * t;
    *(float2*)&C[(size_t)r * N + c] = make_float2(d[4 * j], d[4 * j + 1]);
    *(float2*)&C[(size_t)(r + 8) * N + c] = make_float2(d[4 * j + 2], d[4 * j + 3]);
  }
}

// ---- 3. the reference: one thread per element of C ----
extern "C" __global__ void matmul_ref_bt(const unsigned short* A, const unsigned short* Bt, float* C,
                                         int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= N || row >= M) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k)
    acc = fmaf(__uint_as_float((unsigned)A[(size_t)row * K + k] << 16),
               __uint_as_float((unsigned)Bt[(size_t)col * K + k] << 16), acc);
  C[(size_t)row * N + col] = acc;
}
