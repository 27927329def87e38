// WarpLab microbenchmark: does wgmma add up its products the way mma.sync does on the H100?
//
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o wgmma_numerics wgmma_numerics.cu
//   ./wgmma_numerics DIR        # writes DIR/wgmma-numerics-{bf16,f16}.bin
//   python3 mma_numerics_rules.py DIR/wgmma-numerics-bf16.bin DIR/wgmma-numerics-f16.bin
//
// WarpLab's wgmma (sim/func/exec_wgmma.cpp) assumes each m64nNk16 is one accumulation step by the
// rule measured for mma.sync m16n8k16 (TENSOR-ASYNC-2026-11-26.md: exact products aligned to the
// largest exponent, truncated to multiples of 2^(emax-25), summed exactly, rounded toward zero).
// This program runs wgmma.mma_async.m64n8k16.f32.{bf16,f16} with A and B from shared memory on
// inputs made as tensor_async.cu's numerics makes them (per group of four cases: small integers,
// exponents spread over 2^-10..2^10, narrow exponents, cancelling columns), and writes inputs and
// outputs in the file format mma_numerics_rules.py reads (256 cases of A 16x16, B 16x8, C and D
// 16x8: the case of warp w of a block is rows 16w..16w+15 of the block's 64x16 A, with the
// block's B). The rule holds for wgmma when the script's best rule is F=25, rz, field, trunc,
// group 16 with every case matched, as it is for mma.sync.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_check.h"

constexpr int CASES = 256;  // warps; 4 per block (one warpgroup)

// No-swizzle K-major core-matrix layout: element (r, k) of a rows x 16 matrix of 16-bit values.
__device__ int core_off(int r, int k) {
  return (r / 8) * 256 + (k / 8) * 128 + (r % 8) * 16 + (k % 8) * 2;
}
__device__ unsigned long long desc(unsigned saddr) {  // LBO 128, SBO 256, no swizzle
  return (unsigned long long)((saddr >> 4) & 0x3fff) | ((unsigned long long)(128 >> 4) << 16) |
         ((unsigned long long)(256 >> 4) << 32);
}

// Block b: cases 4b..4b+3. A (per case 16x16, row-major) makes the block's 64x16 A; B is case
// 4b's 16x8 (k-major rows); C and D per case 16x8 row-major.
__global__ void k_wgmma(int bf16, const unsigned short* A, const unsigned short* B,
                        const float* C, float* D) {
  __shared__ __align__(128) unsigned char sa[64 * 16 * 2];
  __shared__ __align__(128) unsigned char sb[8 * 16 * 2];
  const int tid = threadIdx.x, w = tid / 32, l = tid % 32, g = l / 4, t = l % 4;
  const int c0 = blockIdx.x * 4;
  for (int i = tid; i < 64 * 16; i += 128) {
    const int r = i / 16, k = i % 16;
    *(unsigned short*)&sa[core_off(r, k)] = A[(c0 + r / 16) * 256 + (r % 16) * 16 + k];
  }
  for (int i = tid; i < 8 * 16; i += 128) {
    const int n = i / 16, k = i % 16;
    *(unsigned short*)&sb[core_off(n, k)] = B[c0 * 128 + k * 8 + n];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const float* c = C + (c0 + w) * 128;
  float d[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                c[(g + 8) * 8 + 2 * t + 1]};
  const unsigned long long da = desc((unsigned)__cvta_generic_to_shared(sa));
  const unsigned long long db = desc((unsigned)__cvta_generic_to_shared(sb));
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if (bf16)
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(da), "l"(db));
  else
    asm volatile(
        "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
        "{%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  float* o = D + (c0 + w) * 128;
  o[g * 8 + 2 * t] = d[0], o[g * 8 + 2 * t + 1] = d[1];
  o[(g + 8) * 8 + 2 * t] = d[2], o[(g + 8) * 8 + 2 * t + 1] = d[3];
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  unsigned long long rng = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  for (int bf16 = 1; bf16 >= 0; --bf16) {
    std::vector<unsigned short> A(CASES * 256), B(CASES * 128);
    std::vector<float> C(CASES * 128), D(CASES * 128);
    auto half = [&](double v) {
      return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rz((float)v))
                  : __half_as_ushort(__float2half_rz((float)v));
    };
    for (int w = 0; w < CASES; ++w) {
      const int mode = (w / 4) % 4;  // per block: small integers, wide, narrow, cancelling
      auto gen = [&]() -> double {
        if (mode == 0) return (double)((int)(next() % 9) - 4);
        const int spread = mode == 1 ? 20 : (mode == 2 ? 4 : 10);
        const int e = (int)(next() % (spread + 1)) - spread / 2;
        const double m = 1.0 + (next() % 1024) / 1024.0;
        return ldexp(m, e) * ((next() & 1) ? -1 : 1);
      };
      for (int i = 0; i < 256; ++i) A[w * 256 + i] = half(gen());
      for (int i = 0; i < 128; ++i) B[w * 128 + i] = half(gen());
      for (int i = 0; i < 128; ++i) {
        double v = gen();
        if (mode != 0) v *= 1.0 + (next() % 4096) / 4096.0 / 1024.0;  // fp32 bits below a half's
        C[w * 128 + i] = (float)v;
      }
      if (mode == 3)  // cancelling: the second half of K negates the first for half the columns
        for (int k = 0; k < 8; ++k)
          for (int n = 0; n < 4; ++n) B[w * 128 + (k + 8) * 8 + n] = B[w * 128 + k * 8 + n] ^ 0x8000;
    }
    for (int w = 0; w < CASES; ++w)  // the four warps of a block share their block's B
      for (int i = 0; i < 128; ++i) B[w * 128 + i] = B[(w / 4) * 4 * 128 + i];
    unsigned short *dA, *dB;
    float *dC, *dD;
    CK(cudaMalloc(&dA, A.size() * 2));
    CK(cudaMalloc(&dB, B.size() * 2));
    CK(cudaMalloc(&dC, C.size() * 4));
    CK(cudaMalloc(&dD, D.size() * 4));
    CK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    k_wgmma<<<CASES / 4, 128>>>(bf16, dA, dB, dC, dD);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
    const std::string path = dir + "/wgmma-numerics-" + (bf16 ? "bf16" : "f16") + ".bin";
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) {
      fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    fwrite(A.data(), 2, A.size(), f);
    fwrite(B.data(), 2, B.size(), f);
    fwrite(C.data(), 4, C.size(), f);
    fwrite(D.data(), 4, D.size(), f);
    fclose(f);
    printf("wrote %s\n", path.c_str());
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
  }
  return 0;
}
