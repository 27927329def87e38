// acc7b (issue 25): does the ldmatrix + mma.sync phase of lesson 17's k-step take longer after the
// warp idled? Lesson 17's matmul_mma_bf16 at 256 (scripts/microbench/h100-l17-mma-steps-*.tsv)
// spends 344-782 cycles from its first barrier to its last HMMA issued with a cold L2 (load phase
// ~1550 cycles) and 201-249 warm (~900). Here one block per SM runs 16 steps of lesson 17's
// ldmatrix + 16 HMMA from a shared tile that never changes; before each, the warps either spin
// d = (step % 8) * 250 cycles on clock64 (MODE 0) or wait for one cold global load (MODE 1).
// st[w * 128 + 4 * step + i], warps 0 and 3 of block 0: i = 0 wait, 1 first barrier,
// 2 ldmatrix + HMMA issued, 3 HMMA results used (an FADD on every accumulator).
__device__ __forceinline__ long long clk() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory"); return t; }
extern "C" __global__ void idle_mma(const unsigned short* A, const unsigned short* B, const unsigned* cold,
                                    long long* st, float* out, int mode) {
  __shared__ __align__(16) unsigned short As[64][40];
  __shared__ __align__(16) unsigned short Bs[32][72];
  __shared__ volatile float sinkf[4];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  for (int c = tid; c < 64 * 40; c += 128) As[c / 40][c % 40] = A[c];
  for (int c = tid; c < 32 * 72; c += 128) Bs[c / 72][c % 72] = B[c];
  bool rec = blockIdx.x == 0 && lane == 0 && (warp == 0 || warp == 3);
  long long* s = st + (warp == 3 ? 128 : 0);
  float acc[2][4][4] = {};
  unsigned sink = 0;
  __syncthreads();
  for (int step = 0; step < 16; ++step) {
    long long t0 = clk();
    if (mode == 0) {
      long long d = (step % 8) * 250;
      while (clk() - t0 < d) {}
    } else {
      sink += cold[(size_t)(blockIdx.x * 16 + step) * 2048 + tid];
      sinkf[warp] = (float)sink;
    }
    long long a1 = clk();
    __syncthreads();
    long long a2 = clk();
    for (int kk = 0; kk < 32; kk += 16) {
      unsigned a[2][4], b[4][2];
      for (int i = 0; i < 2; ++i) {
        unsigned addr = (unsigned)__cvta_generic_to_shared(&As[wm + i * 16 + (lane & 15)][kk + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]) : "r"(addr));
      }
      for (int j = 0; j < 4; j += 2) {
        unsigned addr = (unsigned)__cvta_generic_to_shared(&Bs[kk + (lane & 15)][wn + j * 8 + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1]) : "r"(addr));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    long long a3 = clk();
    float f = 0;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) f += acc[i][j][0] + acc[i][j][1] + acc[i][j][2] + acc[i][j][3];
    sinkf[warp] = f;
    long long a4 = clk();
    if (rec) { s[4 * step] = a1 - t0; s[4 * step + 1] = a2 - a1; s[4 * step + 2] = a3 - a2; s[4 * step + 3] = a4 - a3; }
  }
  if (lane == 0) out[blockIdx.x * 4 + warp] = acc[0][0][0] + (float)sink;
}
