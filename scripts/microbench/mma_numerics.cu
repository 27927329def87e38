// WarpLab microbenchmark: how the H100's tensor cores add up an mma.sync.
//
//   nvcc -O2 -arch=sm_90 -o mma_numerics mma_numerics.cu && ./mma_numerics > h100-mma-numerics.tsv
//
// One warp runs mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 on inputs built
// to tell accumulation rules apart: row 0 of A, column 0 of B and C[0][0] hold a case (the rest
// are zero), so D[0][0] = C + sum_k A[0][k] * B[k][0] with the K = 16 products chosen per case
// (large cancellation, tiny addends to a large accumulator, sums whose order matters, ties).
// For each case the TSV row gives the GPU's D[0][0] bits and what each candidate rule gives:
//   exact_rn      the exact sum, rounded once to nearest even (WarpLab's provisional rule)
//   seq_rn        C + p0 + p1 + ... left to right, each addition rounded to f32 (nearest even)
//   pair_rn       a binary tree over the 16 products (pairwise), then + C, f32 additions
//   truncG_E_M    groups of G products added to the running accumulator: within a group every
//                 addend (and the accumulator) is aligned to the group's largest exponent and
//                 truncated below 24+E bits, summed exactly, and the group's result rounded to
//                 f32 by M (rz: toward zero, rn: nearest even)
// and the last column lists the rules that match the GPU. A summary at the end counts matches
// per rule over all cases; the rule with every case matched is the hardware's (of those tried).
// WarpLab's sim/func/numeric_tensor.cpp (accumulate) implements the chosen rule.
// A last table (rows "tf32") runs m16n8k8.tf32 on f32 bit patterns with low bits set: it shows
// whether the tensor core truncates a .tf32 operand's 13 low fraction bits (WarpLab's model,
// tf32_operand_to_double) or rounds them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.h"

// A: 16x16 row-major, B: 16x8 (k-major rows), C and D: 16x8 row-major; 16-bit element bits.
template <bool BF16>
__global__ void mma_kernel(const uint16_t* A, const uint16_t* B, const float* C, float* D) {
  const int l = threadIdx.x, g = l >> 2, t = l & 3;
  auto pack = [](uint16_t lo, uint16_t hi) { return uint32_t(lo) | (uint32_t(hi) << 16); };
  uint32_t a[4], b[2];
  a[0] = pack(A[g * 16 + 2 * t], A[g * 16 + 2 * t + 1]);
  a[1] = pack(A[(g + 8) * 16 + 2 * t], A[(g + 8) * 16 + 2 * t + 1]);
  a[2] = pack(A[g * 16 + 2 * t + 8], A[g * 16 + 2 * t + 9]);
  a[3] = pack(A[(g + 8) * 16 + 2 * t + 8], A[(g + 8) * 16 + 2 * t + 9]);
  b[0] = pack(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
  b[1] = pack(B[(2 * t + 8) * 8 + g], B[(2 * t + 9) * 8 + g]);
  float c[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t],
                C[(g + 8) * 8 + 2 * t + 1]};
  float d[4];
  if (BF16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
  D[g * 8 + 2 * t] = d[0], D[g * 8 + 2 * t + 1] = d[1];
  D[(g + 8) * 8 + 2 * t] = d[2], D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

// tf32 operands: m16n8k8 with A[0][0] = a (an f32 bit pattern), B[0][0] = 1, the rest 0, C = 0:
// D[0][0] shows what the tensor core makes of a's low 13 fraction bits (truncated or rounded).
__global__ void tf32_kernel(uint32_t a_bits, float* D) {
  const int l = threadIdx.x;
  uint32_t a[4] = {l == 0 ? a_bits : 0u, 0u, 0u, 0u};  // lane 0, a0 = A[0][0]
  uint32_t b[2] = {l == 0 ? 0x3F800000u : 0u, 0u};     // lane 0, b0 = B[0][0] = 1
  float d[4] = {0, 0, 0, 0};
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  if (l == 0) D[0] = d[0];
}

// ---- host: candidate rules -------------------------------------------------------------------
uint32_t bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

// Exact sum of doubles in a wide fixed-point integer (bit 0 = 2^-400), rounded to f32 by `rz`
// (toward zero) or nearest even. Doubles here are products of 16-bit floats: exact.
struct Wide {
  static constexpr int W = 14, LSB = 400;
  uint64_t w[W] = {};
  void add(double v) {
    if (v == 0) return;
    int e;
    const double f = std::frexp(std::fabs(v), &e);
    const uint64_t m = (uint64_t)std::ldexp(f, 53);
    const int pos = e - 53 + LSB;
    for (int b = 0; b < 53; ++b)
      if ((m >> b) & 1) add_bit(pos + b, v < 0);
  }
  void add_bit(int p, bool neg) {  // +/- 2^(p - LSB), two's complement
    int i = p / 64;
    const uint64_t one = 1ull << (p % 64);
    if (!neg) {
      uint64_t old = w[i];
      w[i] += one;
      while (w[i] < old && ++i < W) old = w[i], w[i] += 1;
    } else {
      uint64_t old = w[i];
      w[i] -= one;
      while (w[i] > old && ++i < W) old = w[i], w[i] -= 1;
    }
  }
  float round(bool rz) const {
    uint64_t m[W];
    memcpy(m, w, sizeof m);
    const bool neg = m[W - 1] >> 63;
    if (neg) {
      uint64_t c = 1;
      for (auto& x : m) x = ~x + c, c = (c && x == 0);
    }
    int h = -1;
    for (int i = W * 64 - 1; i >= 0; --i)
      if ((m[i / 64] >> (i % 64)) & 1) {
        h = i;
        break;
      }
    if (h < 0) return 0.0f;
    auto bit = [&](int i) { return i >= 0 && ((m[i / 64] >> (i % 64)) & 1); };
    int e = h - LSB;                             // value in [2^e, 2^(e+1))
    const int lsb = std::max(e - 23, -149) + LSB;  // f32 ulp position (subnormals: 2^-149)
    double q = 0;
    for (int i = h; i >= lsb; --i) q = q * 2 + bit(i);
    bool half = bit(lsb - 1), sticky = false;
    for (int i = lsb - 2; i >= 0 && !sticky; --i) sticky = bit(i);
    if (!rz && half && (sticky || std::fmod(q, 2) == 1)) q += 1;
    const float r = (float)std::ldexp(q, lsb - LSB);
    return neg ? -r : r;
  }
};

float exact_rn(const double* p, int k, float c) {
  Wide s;
  for (int i = 0; i < k; ++i) s.add(p[i]);
  s.add(c);
  return s.round(false);
}
float seq_rn(const double* p, int k, float c) {
  float acc = c;
  for (int i = 0; i < k; ++i) acc = acc + (float)p[i];  // products of 16-bit floats fit in f32
  return acc;
}
float pair_rn(const double* p, int k, float c) {
  float v[16];
  for (int i = 0; i < k; ++i) v[i] = (float)p[i];
  for (int n = k; n > 1; n /= 2)
    for (int i = 0; i < n / 2; ++i) v[i] = v[2 * i] + v[2 * i + 1];
  return v[0] + c;
}
// Groups of G: accumulator and the group's products aligned to the largest exponent among them,
// truncated below 24+E bits under it, summed exactly, rounded to f32 (rz or rn).
float trunc_rule(const double* p, int k, float c, int G, int E, bool rz) {
  float acc = c;
  for (int g0 = 0; g0 < k; g0 += G) {
    int emax = -100000;
    auto ex = [](double v) { return v == 0 ? -100000 : std::ilogb(v); };
    emax = std::max(emax, ex(acc));
    for (int i = g0; i < g0 + G; ++i) emax = std::max(emax, ex(p[i]));
    if (emax == -100000) continue;
    const double unit = std::ldexp(1.0, emax - (23 + E));
    Wide s;
    auto trunc = [&](double v) { return std::trunc(v / unit) * unit; };
    s.add(trunc(acc));
    for (int i = g0; i < g0 + G; ++i) s.add(trunc(p[i]));
    acc = s.round(rz);
  }
  return acc;
}

struct Case {
  std::string name;
  std::vector<double> a, b;  // 16 each (A row 0, B column 0)
  double c;
};

double to_double(uint16_t h, bool bf) {
  return bf ? (double)__bfloat162float(__ushort_as_bfloat16(h))
            : (double)__half2float(__ushort_as_half(h));
}
uint16_t from_double(double v, bool bf) {
  return bf ? __bfloat16_as_ushort(__float2bfloat16_rn((float)v))
            : __half_as_ushort(__float2half_rn((float)v));
}

int main() {
  std::vector<Case> cases;
  auto ones = std::vector<double>(16, 1.0);
  auto one_hot = [](std::vector<std::pair<int, double>> v) {
    std::vector<double> r(16, 0.0);
    for (auto [i, x] : v) r[i] = x;
    return r;
  };
  // Values stay inside f16's range where both types are run (the f16 rows skip what f16 cannot
  // hold: see `fits` below).
  cases.push_back({"cancel_big", one_hot({{0, 4096}, {1, -4096}, {2, 1}, {3, 1.0 / 1024}}), ones, 0});
  cases.push_back({"tiny_to_big_acc", one_hot({{0, 1.0 / 4096}}), ones, 16777216.0});
  cases.push_back({"many_tiny_to_acc", std::vector<double>(16, 0.5), ones, 16777216.0});
  cases.push_back({"order_1_eps_eps", one_hot({{0, 1}, {1, 1.0 / 16777216}, {2, 1.0 / 16777216}}),
                   ones, 0});
  cases.push_back({"order_eps_first",
                   one_hot({{0, 1.0 / 16777216}, {1, 1.0 / 16777216}, {2, 1}}), ones, 0});
  cases.push_back({"half_ulp_tie_even", one_hot({{0, 1.0 / 16777216}}), ones, 1.0});
  cases.push_back({"half_ulp_tie_odd", one_hot({{0, 1.0 / 16777216}}), ones, 1.0 + 1.0 / 8388608});
  cases.push_back({"just_over_half_ulp",
                   one_hot({{0, 1.0 / 16777216}, {1, 1.0 / 1073741824.0}}), ones, 1.0});
  cases.push_back({"neg_just_under", one_hot({{0, -1.0 / 16777216}, {1, -1.0 / 4294967296.0}}),
                   ones, 1.0});
  cases.push_back({"acc_dominates_products", std::vector<double>(16, 1.0 / 65536), ones, 1024.0});
  cases.push_back({"sum_to_zero", one_hot({{0, 3}, {1, -3}, {5, 0.25}, {6, -0.25}}), ones, 0});
  cases.push_back({"c_cancels_products", std::vector<double>(16, 1.0), ones, -16.0 + 1.0 / 1048576});
  cases.push_back({"alternating_big_small",
                   std::vector<double>{256, 1.0 / 256, -256, 1.0 / 256, 256, 1.0 / 256, -256,
                                       1.0 / 256, 256, 1.0 / 256, -256, 1.0 / 256, 256, 1.0 / 256,
                                       -256, 1.0 / 256},
                   ones, 1.0 / 1024});
  cases.push_back({"group_boundary_4", one_hot({{3, 1}, {4, 1.0 / 33554432}, {5, 1.0 / 33554432},
                                                 {6, 1.0 / 33554432}, {7, 1.0 / 33554432}}),
                   ones, 0});
  cases.push_back({"group_boundary_8", one_hot({{7, 1}, {8, 1.0 / 33554432}, {9, 1.0 / 33554432},
                                                 {10, 1.0 / 33554432}, {11, 1.0 / 33554432}}),
                   ones, 0});
  cases.push_back({"products_1p_times_1p", std::vector<double>(16, 1.0 + 1.0 / 128),
                   std::vector<double>(16, 1.0 + 1.0 / 128), 0.0});
  cases.push_back({"big_c_minus_products", std::vector<double>(16, 3.0), ones, 100000000.0});
  cases.push_back({"negative_c_rz_vs_rn", one_hot({{0, 1.0 / 3}}), ones, -1.0});

  struct Rule {
    const char* name;
    float (*f)(const double*, int, float);
  };
  static const Rule rules[] = {
      {"exact_rn", exact_rn},
      {"seq_rn", seq_rn},
      {"pair_rn", pair_rn},
      {"trunc16_0_rz", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 16, 0, true); }},
      {"trunc16_3_rz", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 16, 3, true); }},
      {"trunc8_3_rz", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 8, 3, true); }},
      {"trunc4_3_rz", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 4, 3, true); }},
      {"trunc16_3_rn", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 16, 3, false); }},
      {"trunc8_3_rn", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 8, 3, false); }},
      {"trunc4_3_rn", [](const double* p, int k, float c) { return trunc_rule(p, k, c, 4, 3, false); }},
  };
  const int nrules = sizeof rules / sizeof rules[0];
  std::vector<int> matches(nrules, 0);
  int total = 0;

  uint16_t *dA, *dB;
  float *dC, *dD;
  CK(cudaMalloc(&dA, 256 * 2));
  CK(cudaMalloc(&dB, 128 * 2));
  CK(cudaMalloc(&dC, 128 * 4));
  CK(cudaMalloc(&dD, 128 * 4));
  printf("case\ttype\tgpu_bits\tgpu_value");
  for (auto& r : rules) printf("\t%s", r.name);
  printf("\tmatching_rules\n");
  for (bool bf : {true, false}) {
    for (const Case& cs : cases) {
      std::vector<uint16_t> A(256, 0), B(128, 0);
      std::vector<float> C(128, 0.0f);
      double p[16];
      bool fits = true;
      for (int k = 0; k < 16; ++k) {
        A[k] = from_double(cs.a[k], bf);
        B[k * 8] = from_double(cs.b[k], bf);
        fits = fits && to_double(A[k], bf) == cs.a[k] && to_double(B[k * 8], bf) == cs.b[k];
        p[k] = to_double(A[k], bf) * to_double(B[k * 8], bf);
      }
      if (!fits) continue;  // this type cannot hold the case's inputs exactly
      C[0] = (float)cs.c;
      CK(cudaMemcpy(dA, A.data(), 512, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(dB, B.data(), 256, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(dC, C.data(), 512, cudaMemcpyHostToDevice));
      if (bf)
        mma_kernel<true><<<1, 32>>>(dA, dB, dC, dD);
      else
        mma_kernel<false><<<1, 32>>>(dA, dB, dC, dD);
      CK(cudaGetLastError());
      float D[128];
      CK(cudaMemcpy(D, dD, 512, cudaMemcpyDeviceToHost));
      ++total;
      printf("%s\t%s\t0x%08x\t%.9g", cs.name.c_str(), bf ? "bf16" : "f16", bits(D[0]), D[0]);
      std::string match;
      for (int r = 0; r < nrules; ++r) {
        const float v = rules[r].f(p, 16, C[0]);
        printf("\t0x%08x", bits(v));
        if (bits(v) == bits(D[0])) {
          ++matches[r];
          match += (match.empty() ? "" : ",") + std::string(rules[r].name);
        }
      }
      printf("\t%s\n", match.empty() ? "none" : match.c_str());
    }
  }
  printf("# summary: cases matched per rule, of %d\n", total);
  for (int r = 0; r < nrules; ++r) printf("# %s\t%d\n", rules[r].name, matches[r]);

  // tf32 operands: WarpLab truncates the low 13 fraction bits (numeric_tensor.cpp).
  printf("# tf32 operand\ta_bits\tgpu_bits\ttruncated\trounded_rn\tmatching\n");
  const uint32_t tf32_cases[] = {0x3F800FFFu, 0x3F801000u, 0x3F801001u, 0x3F803000u,
                                 0xBF801FFFu, 0x3FFFFFFFu};
  for (uint32_t a : tf32_cases) {
    tf32_kernel<<<1, 32>>>(a, dD);
    CK(cudaGetLastError());
    float d0;
    CK(cudaMemcpy(&d0, dD, 4, cudaMemcpyDeviceToHost));
    const uint32_t trunc = a & 0xFFFFE000u;
    uint32_t rn = a + 0xFFFu + ((a >> 13) & 1u);  // nearest even at bit 13 (finite inputs)
    rn &= 0xFFFFE000u;
    const uint32_t g = bits(d0);
    printf("tf32\t0x%08x\t0x%08x\t0x%08x\t0x%08x\t%s\n", a, g, trunc, rn,
           g == trunc && g == rn ? "both" : g == trunc ? "truncated" : g == rn ? "rounded_rn" : "none");
  }
  return 0;
}
