// Validation corpus: the tensor pipe by shape and type (mma.sync), and ldmatrix.
//
// mma_tput_*: every thread runs ITERS rounds of 4 independent mma chains (D = A*B + D on its own
// accumulators): with 4 warps per block and several blocks per SM this is the pipe's issue rate.
// mma_lat_*:  one chain: each mma waits for the previous one (the dependent latency).
// A and B hold the same 32-bit fragment word everywhere (ones in the shape's type), so after ITERS
// rounds each accumulator holds ITERS * K exactly; out[thread] is the sum over the chains' d[0].
// ldmatrix_*: 4 x ITERS loads of 8x8 b16 matrices from shared memory (all elements 1), summing the
// registers: out[thread] = 4 * ITERS * (registers per load) * 0x00010001 (mod 2^32).

#define MMA_M16N8K16(TYPES, d, a, b)                                                               \
  asm volatile("mma.sync.aligned.m16n8k16.row.col." TYPES " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, " \
               "{%0,%1,%2,%3};"                                                                    \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_F16_K16(d, a, b) MMA_M16N8K16("f32.f16.f16.f32", d, a, b)
#define MMA_BF16_K16(d, a, b) MMA_M16N8K16("f32.bf16.bf16.f32", d, a, b)
#define MMA_TF32_K8(d, a, b)                                                                        \
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                            \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA_F16_K8(d, a, b)                                                                       \
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, " \
               "{%0,%1,%2,%3};"                                                                  \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                  \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]))
#define MMA_S8_K32(d, a, b)                                                                        \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, " \
               "{%8,%9}, {%0,%1,%2,%3};"                                                           \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

#define MMA_KERNELS(name, T, MACRO)                                                          \
  extern "C" __global__ void mma_tput_##name(const unsigned* A, const unsigned* B, T* out,   \
                                             int iters) {                                    \
    unsigned a[4], b[2];                                                                     \
    for (int i = 0; i < 4; ++i) a[i] = A[(threadIdx.x * 4 + i) % 128];                      \
    for (int i = 0; i < 2; ++i) b[i] = B[(threadIdx.x * 2 + i) % 64];                        \
    T d[4][4] = {};                                                                          \
    for (int it = 0; it < iters; ++it) {                                                     \
      _Pragma("unroll") for (int c = 0; c < 4; ++c) { MACRO(d[c], a, b); }                   \
    }                                                                                        \
    out[blockIdx.x * blockDim.x + threadIdx.x] = d[0][0] + d[1][0] + d[2][0] + d[3][0];      \
  }                                                                                          \
  extern "C" __global__ void mma_lat_##name(const unsigned* A, const unsigned* B, T* out,    \
                                            int iters) {                                     \
    unsigned a[4], b[2];                                                                     \
    for (int i = 0; i < 4; ++i) a[i] = A[(threadIdx.x * 4 + i) % 128];                       \
    for (int i = 0; i < 2; ++i) b[i] = B[(threadIdx.x * 2 + i) % 64];                        \
    T d[4] = {};                                                                             \
    for (int it = 0; it < iters; ++it) { MACRO(d, a, b); }                                   \
    out[blockIdx.x * blockDim.x + threadIdx.x] = d[0];                                       \
  }

MMA_KERNELS(f16_k16, float, MMA_F16_K16)
MMA_KERNELS(bf16_k16, float, MMA_BF16_K16)
MMA_KERNELS(tf32_k8, float, MMA_TF32_K8)
MMA_KERNELS(f16_k8, float, MMA_F16_K8)
MMA_KERNELS(s8_k32, int, MMA_S8_K32)

// Four independent chains per thread; each chain's next address adds the value it loaded (a
// register of two 16-bit ones, masked to zero: the data decides it, so ptxas cannot hoist the
// loop-invariant load out of the loop, as it would a load from a fixed address).
#define LDMATRIX_KERNEL(name, OPS, NREG)                                                    \
  extern "C" __global__ void ldmatrix_##name(unsigned* out, int iters) {                   \
    __shared__ __align__(16) unsigned short tile[4][8][8 + 8];                              \
    for (int i = threadIdx.x; i < 4 * 8 * 16; i += blockDim.x) (&tile[0][0][0])[i] = 1;     \
    __syncthreads();                                                                        \
    int lane = threadIdx.x & 31;                                                            \
    unsigned base = (unsigned)__cvta_generic_to_shared(&tile[lane / 8][lane % 8][0]);       \
    unsigned sum = 0, r[4][4] = {};                                                         \
    for (int it = 0; it < iters; ++it) {                                                    \
      _Pragma("unroll") for (int c = 0; c < 4; ++c) {                                       \
        unsigned addr = base + (r[c][0] & 0x80000000u);                                     \
        OPS;                                                                                \
        for (int i = 0; i < NREG; ++i) sum += r[c][i];                                      \
      }                                                                                     \
    }                                                                                       \
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;                                       \
  }
LDMATRIX_KERNEL(x1, asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[c][0]) : "r"(addr)), 1)
LDMATRIX_KERNEL(x2, asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[c][0]), "=r"(r[c][1]) : "r"(addr)), 2)
LDMATRIX_KERNEL(x4, asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[c][0]), "=r"(r[c][1]), "=r"(r[c][2]), "=r"(r[c][3]) : "r"(addr)), 4)
LDMATRIX_KERNEL(x4_trans, asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[c][0]), "=r"(r[c][1]), "=r"(r[c][2]), "=r"(r[c][3]) : "r"(addr)), 4)
