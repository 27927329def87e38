// Tensor-core instructions through whole kernels: mma.sync (every simulated shape and type),
// ldmatrix (.x1/.x2/.x4, .trans), stmatrix, movmatrix, and a 16x8x16 bf16 tile matmul fed by
// ldmatrix. Every fragment is laid out here from the PTX ISA's per-lane tables (written out
// independently of sim/func/exec_mma.cpp, in the ISA's own "element a_i" form), and every expected
// value is a plain C++ matrix product, added up by the rule measured on the H100 (written out here
// again from its description in scripts/microbench/TENSOR-ASYNC-2026-11-26.md).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "21x_sim.h"
#include "24x_tensor_rule.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

// ---- exact small values in each element format --------------------------------------------------
// Test values are n / 2^s with few significant bits, so that every format below holds them
// exactly; their encodings are written here from the format definitions.
uint32_t encode(double v, int mant, int exp) {  // normal or zero values only
  if (v == 0) return 0;
  const uint32_t sign = v < 0 ? 1u << (mant + exp) : 0;
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e);  // |v| = f * 2^e, f in [0.5, 1)
  const int bias = (1 << (exp - 1)) - 1;
  const auto frac = static_cast<uint32_t>(std::ldexp(f * 2 - 1, mant));
  REQUIRE(std::ldexp(1.0 + std::ldexp(frac, -mant), e - 1) == std::fabs(v));  // exact
  REQUIRE(e - 1 + bias > 0);
  return sign | (static_cast<uint32_t>(e - 1 + bias) << mant) | frac;
}

enum class T { F16, BF16, TF32, E4M3, E5M2, S8, U8 };
uint32_t encode(T t, double v) {
  switch (t) {
    case T::F16:
      return encode(v, 10, 5);
    case T::BF16:
      return encode(v, 7, 8);
    case T::TF32: {
      float f = static_cast<float>(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    case T::E4M3:
      return encode(v, 3, 4);
    case T::E5M2:
      return encode(v, 2, 5);
    case T::S8:
      return static_cast<uint8_t>(static_cast<int8_t>(v));
    case T::U8:
      return static_cast<uint8_t>(v);
  }
  return 0;
}
int bits_of(T t) { return t == T::TF32 ? 32 : (t == T::F16 || t == T::BF16) ? 16 : 8; }
// A random value of type t: n / 2^s, n in a range each format holds exactly.
double random_value(T t, std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  switch (t) {
    case T::F16:
    case T::BF16:
      return pick(-255, 255) / 64.0;  // 8 significant bits
    case T::TF32:
      return pick(-2047, 2047) / 256.0;  // 11 significant bits
    case T::E4M3:
      return pick(-15, 15) / 8.0;  // 4 significant bits
    case T::E5M2:
      return pick(-7, 7) / 4.0;  // 3
    case T::S8:
      return pick(-128, 127);
    case T::U8:
      return pick(0, 255);
  }
  return 0;
}

float f32_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t bits_of_f32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- the PTX ISA's fragment tables (section "Matrix Fragments for mma.m16n8k*") -----------------
// groupID = laneid >> 2, threadID_in_group = laneid % 4. Element a_i / b_i / c_i of a lane, with
// i counting the elements of its registers in order (low bits first).
struct RC {
  int row, col;
};
RC a_elem(int k, int bits, int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  if (bits == 32) {  // m16n8k8 .tf32: a0,a2 row g; a1,a3 row g+8; a0,a1 col t; a2,a3 col t+4
    return {(i == 0 || i == 2) ? g : g + 8, i < 2 ? t : t + 4};
  }
  if (bits == 16 && k == 8)  // m16n8k8 f16/bf16: a0,a1 row g; a2,a3 row g+8; col t*2 + (i & 1)
    return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
  if (bits == 16)  // m16n8k16: a0,a1,a4,a5 row g; a2,a3,a6,a7 g+8; col t*2+(i&1) (+8 for i>=4)
    return {(i < 2 || (i >= 4 && i < 6)) ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
  // m16n8k32 8-bit: a0..a3, a8..a11 row g; a4..a7, a12..a15 row g+8; col t*4+(i&3) (+16, i>=8)
  return {(i < 4 || (i >= 8 && i < 12)) ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
}
RC b_elem(int k, int bits, int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  if (bits == 32) return {i == 0 ? t : t + 4, g};                  // tf32: b0 row t, b1 t+4
  if (bits == 16 && k == 8) return {t * 2 + i, g};                 // b0,b1: rows t*2+i
  if (bits == 16) return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};  // b0..b3
  return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};                 // b0..b7
}
RC c_elem(int lane, int i) {  // c0,c1 row g; c2,c3 row g+8; col t*2 + (i & 1)
  const int g = lane >> 2, t = lane % 4;
  return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}

// A kernel: lane l loads `nin` words from in[l*nin ...] into %r1.., runs `inst` on them (operands
// {D}, {A}, {B}, {C} with the given register counts) and stores the nd D words to out[l*nd ...].
std::string mma_kernel(const std::string& inst, int na, int nb, int nc, int nd) {
  const int nin = na + nb + nc;
  std::ostringstream p;
  p << ".version 8.0\n.target sm_90\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
    << "\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<8>;\n"
    << "\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n"
    << "\tmov.u32 %r0, %tid.x;\n"
    << "\tmul.wide.u32 %rd3, %r0, " << nin * 4 << ";\n\tadd.s64 %rd4, %rd1, %rd3;\n";
  for (int i = 0; i < nin; ++i) p << "\tld.global.b32 %r" << 1 + i << ", [%rd4+" << 4 * i << "];\n";
  auto list = [&](int first, int n) {
    std::string s = "{";
    for (int i = 0; i < n; ++i) s += (i ? ", %r" : "%r") + std::to_string(first + i);
    return s + "}";
  };
  p << "\t" << inst << " " << list(20, nd) << ", " << list(1, na) << ", " << list(1 + na, nb)
    << ", " << list(1 + na + nb, nc) << ";\n";
  p << "\tmul.wide.u32 %rd5, %r0, " << nd * 4 << ";\n\tadd.s64 %rd6, %rd2, %rd5;\n";
  for (int i = 0; i < nd; ++i) p << "\tst.global.b32 [%rd6+" << 4 * i << "], %r" << 20 + i << ";\n";
  p << "\tret;\n}\n";
  return p.str();
}

// Runs one mma form on random A (16xK), B (Kx8), C (16x8) and returns D (16x8) per element as the
// raw bits of the accumulator type, with A, B, C given back for the reference.
struct MmaCase {
  std::string inst;
  int k;
  T ab_a, ab_b;
  bool f16_acc = false, int_acc = false;
};
struct MmaRun {
  std::vector<double> A, B, C;  // exact values
  std::vector<uint32_t> D;      // bits, 16 x 8
};
MmaRun run_mma(const MmaCase& mc, uint32_t seed) {
  std::mt19937 rng(seed);
  const int k = mc.k, bits = bits_of(mc.ab_a), per = 32 / bits;
  const int na = 16 * k / per / 32, nb = k * 8 / per / 32, nc = mc.f16_acc ? 2 : 4;
  MmaRun r;
  r.A.resize(16 * k), r.B.resize(k * 8), r.C.resize(16 * 8);
  for (auto& v : r.A) v = random_value(mc.ab_a, rng);
  for (auto& v : r.B) v = random_value(mc.ab_b, rng);
  const int c_range = mc.f16_acc ? 1000 : 4000;  // f16 holds 11 significant bits
  for (auto& v : r.C)
    v = mc.int_acc ? std::uniform_int_distribution<int>(-100000, 100000)(rng)
                   : std::uniform_int_distribution<int>(-c_range, c_range)(rng) / 32.0;
  // Large accumulators so that many f32 sums need rounding: C = n / 32 below 2^17.
  if (!mc.f16_acc && !mc.int_acc)
    for (auto& v : r.C) v = std::uniform_int_distribution<int>(-(1 << 22), 1 << 22)(rng) / 32.0;
  std::vector<uint32_t> in(32 * (na + nb + nc), 0);
  for (int l = 0; l < 32; ++l) {
    uint32_t* w = &in[l * (na + nb + nc)];
    for (int i = 0; i < na * per; ++i) {
      const RC p = a_elem(k, bits, l, i);
      w[i / per] |=
          (encode(mc.ab_a, r.A[p.row * k + p.col]) & (bits == 32 ? ~0u : (1u << bits) - 1))
          << ((i % per) * bits);
    }
    for (int i = 0; i < nb * per; ++i) {
      const RC p = b_elem(k, bits, l, i);
      w[na + i / per] |=
          (encode(mc.ab_b, r.B[p.row * 8 + p.col]) & (bits == 32 ? ~0u : (1u << bits) - 1))
          << ((i % per) * bits);
    }
    for (int i = 0; i < 4; ++i) {
      const RC p = c_elem(l, i);
      const double c = r.C[p.row * 8 + p.col];
      if (mc.f16_acc)
        w[na + nb + i / 2] |= encode(c, 10, 5) << ((i % 2) * 16);
      else
        w[na + nb + i] = mc.int_acc ? static_cast<uint32_t>(static_cast<int32_t>(c))
                                    : bits_of_f32(static_cast<float>(c));
    }
  }
  Sim s(mma_kernel(mc.inst, na, nb, nc, nc), "mma.ptx");
  const uint64_t I = s.buffer("in", in), O = s.zeros<uint32_t>("out", 32 * nc);
  auto res = s.run("k", {1, 1, 1}, {32, 1, 1}, {I, O});
  REQUIRE(!res.fault);
  const auto out = s.read<uint32_t>(O, 32 * nc);
  r.D.assign(16 * 8, 0);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      const RC p = c_elem(l, i);
      r.D[p.row * 8 + p.col] =
          mc.f16_acc ? (out[l * nc + i / 2] >> ((i % 2) * 16)) & 0xFFFF : out[l * nc + i];
    }
  return r;
}

// The exact dot product c + sum a*b. With the test's values every partial sum is a multiple of
// 2^-12 below 2^20 in magnitude, so the double below is exact.
double exact_dot(const MmaRun& r, int k, int m, int n) {
  double s = r.C[m * 8 + n];
  for (int i = 0; i < k; ++i) s += r.A[m * k + i] * r.B[i * 8 + n];
  return s;
}


// D[m][n] of a run by the H100's rule; FP8 (k = 32): sm_90 has no FP8 mma.sync, ptxas runs two
// f16 m16n8k16 (the second accumulating onto the first) and adds C with an FADD.
float expected_f32(const MmaRun& r, int k, int m, int n) {
  std::vector<double> a(k), b(k);
  for (int i = 0; i < k; ++i) a[i] = r.A[m * k + i], b[i] = r.B[i * 8 + n];
  const double c = r.C[m * 8 + n];
  if (k == 32) {
    const float t0 = h100_rule(a.data(), b.data(), 16, 0.0);
    const float t = h100_rule(a.data() + 16, b.data() + 16, 16, t0);
    return static_cast<float>(c + static_cast<double>(t));  // exact in double, one rounding
  }
  return h100_rule(a.data(), b.data(), k, c);
}

}  // namespace

TEST_CASE("245 mma.sync f32 accumulators: every shape and input type against a C++ matmul") {
  const MmaCase cases[] = {
      {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, T::F16, T::F16},
      {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, T::BF16, T::BF16},
      {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 8, T::F16, T::F16},
      {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 8, T::BF16, T::BF16},
      {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8, T::TF32, T::TF32},
      {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 32, T::E4M3, T::E4M3},
      {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", 32, T::E5M2, T::E4M3},
      {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", 32, T::E5M2, T::E5M2},
  };
  for (const MmaCase& mc : cases) {
    INFO(mc.inst);
    const MmaRun r = run_mma(mc, 1234);
    int differ = 0;
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        const double exact = exact_dot(r, mc.k, m, n);
        const float want = expected_f32(r, mc.k, m, n);
        differ += static_cast<float>(exact) != want;
        INFO("D[" << m << "][" << n << "] exact " << exact);
        CHECK(r.D[m * 8 + n] == bits_of_f32(want));
      }
    MESSAGE(mc.inst << ": " << differ
                    << " of 128 results differ from the exact sum rounded to "
                       "nearest");
  }
}

TEST_CASE("245 mma.sync f16 accumulator: D = f16(C + A*B), rounded once") {
  const MmaCase mc{"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, T::F16, T::F16, true};
  const MmaRun r = run_mma(mc, 99);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      const double exact = exact_dot(r, 16, m, n);
      // C is held in f16: the run used C rounded to f16 already (encode() is exact for it).
      const auto want = static_cast<_Float16>(exact);
      uint16_t bits;
      std::memcpy(&bits, &want, 2);
      INFO("D[" << m << "][" << n << "] exact " << exact);
      CHECK(r.D[m * 8 + n] == bits);
    }
}

TEST_CASE("245 mma.sync m16n8k32 s8/u8 with s32 accumulators, wrapping and .satfinite") {
  const MmaCase cases[] = {
      {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 32, T::S8, T::S8, false, true},
      {"mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", 32, T::U8, T::S8, false, true},
      {"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32", 32, T::U8, T::U8, false, true},
  };
  for (const MmaCase& mc : cases) {
    INFO(mc.inst);
    const MmaRun r = run_mma(mc, 7);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        int64_t want = static_cast<int64_t>(r.C[m * 8 + n]);
        for (int i = 0; i < 32; ++i)
          want += static_cast<int64_t>(r.A[m * 32 + i]) * static_cast<int64_t>(r.B[i * 8 + n]);
        CHECK(static_cast<int32_t>(r.D[m * 8 + n]) == static_cast<int32_t>(want));
      }
  }
  // Saturation: 32 products of 255*255 on C = 2^31 - 2^20 overflow s32.
  const std::string inst = "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32";
  for (bool sat : {true, false}) {
    std::vector<uint32_t> in(32 * 10, 0xFFFFFFFFu);
    for (int l = 0; l < 32; ++l)
      for (int i = 6; i < 10; ++i) in[l * 10 + i] = 0x7FF00000u;
    std::string text = inst;
    if (!sat) text.erase(text.find(".satfinite"), 10);
    Sim s(mma_kernel(text, 4, 2, 4, 4), "sat.ptx");
    const uint64_t I = s.buffer("in", in), O = s.zeros<uint32_t>("out", 128);
    REQUIRE(!s.run("k", {1, 1, 1}, {32, 1, 1}, {I, O}).fault);
    const int64_t exact = 0x7FF00000ll + 32ll * 255 * 255;
    const uint32_t want = sat ? 0x7FFFFFFFu : static_cast<uint32_t>(exact);
    for (uint32_t v : s.read<uint32_t>(O, 128)) CHECK(v == want);
  }
}

TEST_CASE("245 the accumulation rule: alignment to the largest exponent, truncation, toward zero") {
  // bf16 m16n8k16, B column 0 = all ones.
  // Row 0: A = {2^20, -2^20, 1, 2^-20, 0...}, C = 2^-30: the terms are truncated to multiples of
  // 2^(20 - 25), so 2^-20 and C vanish before the big products cancel: D = 1 (an exact sum
  // would give 1 + 2^-20).
  // Row 1: A = {1, 2^-24, 2^-24, 0...}, C = 0: emax = 0, the 2^-24 terms survive (multiples of
  // 2^-25) and D = 1 + 2^-23 (adding left to right in f32 would lose both: 1).
  // Row 2: A = {1, 3 * 2^-25}, C = 0: 1 + 0.75 ulp rounds toward zero to 1 (to nearest: 1 + 2^-23).
  const MmaCase mc{"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, T::BF16, T::BF16};
  std::vector<double> A(16 * 16, 0), B(16 * 8, 1.0), C(16 * 8, 0);
  A[0] = std::ldexp(1, 20), A[1] = -std::ldexp(1, 20), A[2] = 1, A[3] = std::ldexp(1, -20);
  C[0] = std::ldexp(1, -30);
  A[16] = 1, A[17] = std::ldexp(1, -24), A[18] = std::ldexp(1, -24);
  A[32] = 1, A[33] = 3 * std::ldexp(1, -25);
  std::vector<uint32_t> in(32 * 10, 0);
  for (int l = 0; l < 32; ++l) {
    uint32_t* w = &in[l * 10];
    for (int i = 0; i < 8; ++i) {
      const RC p = a_elem(16, 16, l, i);
      w[i / 2] |= encode(T::BF16, A[p.row * 16 + p.col]) << ((i % 2) * 16);
    }
    for (int i = 0; i < 4; ++i) {
      const RC p = b_elem(16, 16, l, i);
      w[4 + i / 2] |= encode(T::BF16, B[p.row * 8 + p.col]) << ((i % 2) * 16);
    }
    for (int i = 0; i < 4; ++i) {
      const RC p = c_elem(l, i);
      w[6 + i] = bits_of_f32(static_cast<float>(C[p.row * 8 + p.col]));
    }
  }
  Sim s(mma_kernel(mc.inst, 4, 2, 4, 4), "rule.ptx");
  const uint64_t I = s.buffer("in", in), O = s.zeros<uint32_t>("out", 128);
  REQUIRE(!s.run("k", {1, 1, 1}, {32, 1, 1}, {I, O}).fault);
  const auto out = s.read<uint32_t>(O, 128);
  // D[0][0] is lane 0's c0; D[1][0] is lane 4's c0 (groupID 1).
  CHECK(f32_of(out[0]) == 1.0f);
  CHECK(f32_of(out[4 * 4]) == static_cast<float>(1 + std::ldexp(1, -23)));
  CHECK(f32_of(out[8 * 4]) == 1.0f);  // D[2][0]: lane 8
}

// ---- ldmatrix / stmatrix / movmatrix ------------------------------------------------------------
namespace {

// Four 8x8 b16 matrices in shared memory (matrix i at byte 128*i, row r at 16*r), filled from
// `in` (256 u16). Lane l gives the address of row (l%8) of matrix (l/8), but rows are stored in
// the order perm[r] so that the test sees the addresses really come from the lanes.
std::string ldmatrix_kernel(int num, bool trans) {
  std::ostringstream p;
  std::string regs = "{";
  for (int i = 0; i < num; ++i) regs += (i ? ", %r" : "%r") + std::to_string(10 + i);
  regs += "}";
  p << ".version 8.0\n.target sm_90\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
    << "\t.reg .b16 %h<4>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<12>;\n"
    << "\t.shared .align 16 .b8 sm[512];\n"
    << "\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n"
    << "\tmov.u32 %r0, %tid.x;\n"
    // copy 256 halves: thread l copies halves 8l..8l+7 (two per step).
    << "\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
    << "\tmov.u64 %rd5, sm;\n\tadd.s64 %rd6, %rd5, %rd3;\n"
    << "\tld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd4];\n"
    << "\tst.shared.v4.b32 [%rd6], {%r1, %r2, %r3, %r4};\n"
    << "\tbar.sync 0;\n"
    // row address of lane l: matrix l/8, stored row (7 - l%8)... the permutation is the layout
    // in global memory: the kernel points lane l at 128*(l/8) + 16*(7 - l%8).
    << "\tshr.u32 %r5, %r0, 3;\n\tand.b32 %r6, %r0, 7;\n\tsub.s32 %r6, 7, %r6;\n"
    << "\tshl.b32 %r5, %r5, 7;\n\tshl.b32 %r6, %r6, 4;\n\tadd.s32 %r7, %r5, %r6;\n"
    << "\tcvt.u64.u32 %rd7, %r7;\n\tadd.s64 %rd8, %rd5, %rd7;\n"
    << "\tldmatrix.sync.aligned.m8n8.x" << num << (trans ? ".trans" : "") << ".shared.b16 " << regs
    << ", [%rd8];\n"
    << "\tmul.wide.u32 %rd9, %r0, " << 4 * num << ";\n\tadd.s64 %rd10, %rd2, %rd9;\n";
  for (int i = 0; i < num; ++i)
    p << "\tst.global.b32 [%rd10+" << 4 * i << "], %r" << 10 + i << ";\n";
  p << "\tret;\n}\n";
  return p.str();
}

}  // namespace

TEST_CASE("245 ldmatrix .x1/.x2/.x4, with and without .trans: each lane gets its fragment") {
  std::vector<uint16_t> in(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<uint16_t>(0x1000 + i * 7);
  // Matrix i, logical row r is stored at in[64*i + 8*(7-r) ...] (lane 8i+r points there).
  auto M = [&](int i, int r, int c) { return in[64 * i + 8 * (7 - r) + c]; };
  for (int num : {1, 2, 4})
    for (bool trans : {false, true}) {
      INFO("x" << num << (trans ? std::string(".trans") : std::string()));
      Sim s(ldmatrix_kernel(num, trans), "ldm.ptx");
      const uint64_t I = s.buffer("in", in), O = s.zeros<uint32_t>("out", 32 * num);
      const auto res = s.run("k", {1, 1, 1}, {32, 1, 1}, {I, O});
      if (res.fault) FAIL(res.fault->message);
      const auto out = s.read<uint32_t>(O, 32 * num);
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < num; ++i) {
          // ISA: "each thread receives ... row laneid/4, elements 2*(laneid%4) and +1"; .trans
          // delivers the matrix transposed: element [2*(l%4)+j][l/4].
          const int r = l / 4, c = 2 * (l % 4);
          const uint32_t lo = trans ? M(i, c, r) : M(i, r, c);
          const uint32_t hi = trans ? M(i, c + 1, r) : M(i, r, c + 1);
          INFO("lane " << l << " matrix " << i);
          CHECK(out[l * num + i] == (lo | (hi << 16)));
        }
    }
}

TEST_CASE("245 stmatrix writes fragments back as 8x8 matrices; movmatrix transposes") {
  // Lane l holds, for matrix i, the value v(l, i) = 0x10000 * (2*l+1 + 64*i) + (2*l + 64*i):
  // halves 2l + 64i (low) and 2l + 1 + 64i (high). stmatrix stores matrix i's row r at the
  // address lane 8i+r gives: here 16*(8i + r).
  for (int num : {1, 2, 4})
    for (bool trans : {false, true}) {
      INFO("x" << num << (trans ? std::string(".trans") : std::string()));
      std::ostringstream p;
      std::string regs = "{";
      for (int i = 0; i < num; ++i) regs += (i ? ", %r" : "%r") + std::to_string(10 + i);
      regs += "}";
      p << ".version 8.0\n.target sm_90\n.address_size 64\n"
        << ".visible .entry k(.param .u64 pout)\n{\n"
        << "\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<12>;\n\t.shared .align 16 .b8 sm[512];\n"
        << "\tld.param.u64 %rd2, [pout];\n\tmov.u32 %r0, %tid.x;\n"
        << "\tshl.b32 %r1, %r0, 1;\n\tadd.s32 %r2, %r1, 1;\n\tshl.b32 %r2, %r2, 16;\n"
        << "\tor.b32 %r3, %r1, %r2;\n";
      for (int i = 0; i < num; ++i)
        p << "\tadd.s32 %r" << 10 + i << ", %r3, " << (64 * i) * 0x10001 << ";\n";
      p << "\tmul.wide.u32 %rd3, %r0, 16;\n\tmov.u64 %rd5, sm;\n\tadd.s64 %rd6, %rd5, %rd3;\n"
        << "\tstmatrix.sync.aligned.m8n8.x" << num << (trans ? ".trans" : "") << ".shared.b16 "
        << "[%rd6], " << regs << ";\n\tbar.sync 0;\n"
        << "\tadd.s64 %rd7, %rd2, %rd3;\n\tld.shared.v4.b32 {%r4, %r5, %r6, %r7}, [%rd6];\n"
        << "\tst.global.v4.b32 [%rd7], {%r4, %r5, %r6, %r7};\n\tret;\n}\n";
      Sim s(p.str(), "stm.ptx");
      const uint64_t O = s.zeros<uint16_t>("out", 256);
      REQUIRE(!s.run("k", {1, 1, 1}, {32, 1, 1}, {O}).fault);
      const auto out = s.read<uint16_t>(O, 256);
      for (int i = 0; i < num; ++i)
        for (int r = 0; r < 8; ++r)
          for (int c = 0; c < 8; ++c) {
            // The fragment element at (row, col) of matrix i is 2*lane + j + 64i with lane =
            // 4*row + col/2, j = col%2; with .trans the stored matrix is its transpose.
            const int fr = trans ? c : r, fc = trans ? r : c;
            const int want = 2 * (4 * fr + fc / 2) + fc % 2 + 64 * i;
            INFO("matrix " << i << " [" << r << "][" << c << "]");
            CHECK(out[64 * i + 8 * r + c] == want);
          }
    }

  // movmatrix: lane l holds M[l/4][2(l%4)], M[l/4][2(l%4)+1] with M[r][c] = 8r + c; afterwards
  // it holds the same positions of M^T: M[2(l%4)][l/4], M[2(l%4)+1][l/4].
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 pout)\n{\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<6>;\n"
      "\tld.param.u64 %rd1, [pout];\n\tmov.u32 %r0, %tid.x;\n"
      "\tshr.u32 %r1, %r0, 2;\n\tshl.b32 %r1, %r1, 3;\n\tand.b32 %r2, %r0, 3;\n"
      "\tshl.b32 %r2, %r2, 1;\n\tadd.s32 %r3, %r1, %r2;\n\tadd.s32 %r4, %r3, 1;\n"
      "\tshl.b32 %r4, %r4, 16;\n\tor.b32 %r5, %r3, %r4;\n"
      "\tmovmatrix.sync.aligned.m8n8.trans.b16 %r6, %r5;\n"
      "\tmul.wide.u32 %rd2, %r0, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.b32 [%rd3], %r6;\n\tret;\n}\n";
  Sim s(ptx, "movm.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 32);
  REQUIRE(!s.run("k", {1, 1, 1}, {32, 1, 1}, {O}).fault);
  const auto out = s.read<uint32_t>(O, 32);
  for (int l = 0; l < 32; ++l) {
    const uint32_t r = l / 4, c = 2 * (l % 4);
    CHECK(out[l] == ((8 * c + r) | ((8 * (c + 1) + r) << 16)));
  }
}

TEST_CASE("245 a whole 16x8x16 bf16 tile matmul: ldmatrix.x4 (A), ldmatrix.x2.trans (B), mma") {
  // A (16x16) and B (16x8, k-major rows) bf16 in global memory, row-major; D (16x8) f32 out.
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry tile(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
	.reg .b32 %r<40>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<20>;
	.shared .align 16 .b8 sa[512];
	.shared .align 16 .b8 sb[256];
	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pd];
	mov.u32 %r0, %tid.x;
	// copy A: 512 bytes, 16 per thread; B: 256 bytes, 8 per thread
	mul.wide.u32 %rd4, %r0, 16;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd5];
	mov.u64 %rd6, sa;
	add.s64 %rd7, %rd6, %rd4;
	st.shared.v4.b32 [%rd7], {%r1, %r2, %r3, %r4};
	mul.wide.u32 %rd8, %r0, 8;
	add.s64 %rd9, %rd2, %rd8;
	ld.global.v2.b32 {%r5, %r6}, [%rd9];
	mov.u64 %rd10, sb;
	add.s64 %rd11, %rd10, %rd8;
	st.shared.v2.b32 [%rd11], {%r5, %r6};
	bar.sync 0;
	// A: lane l points at row (l%8) + 8*((l/8)%2), column 8*(l/16) (bytes: row*32 + col*2)
	and.b32 %r7, %r0, 7;
	shr.u32 %r8, %r0, 3;
	and.b32 %r9, %r8, 1;
	shl.b32 %r9, %r9, 3;
	add.s32 %r10, %r7, %r9;
	shl.b32 %r10, %r10, 5;
	shr.u32 %r11, %r0, 4;
	shl.b32 %r11, %r11, 4;
	add.s32 %r12, %r10, %r11;
	cvt.u64.u32 %rd12, %r12;
	add.s64 %rd13, %rd6, %rd12;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%rd13];
	// B: lane l (< 16) points at row k = l (16 bytes a row); lanes 16..31 repeat (ignored)
	and.b32 %r13, %r0, 15;
	shl.b32 %r13, %r13, 4;
	cvt.u64.u32 %rd14, %r13;
	add.s64 %rd15, %rd10, %rd14;
	ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r24, %r25}, [%rd15];
	mov.f32 %f0, 0f00000000;
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f4, %f5, %f6, %f7}, {%r20, %r21, %r22, %r23}, {%r24, %r25}, {%f0, %f1, %f2, %f3};
	// D: lane l holds rows g, g+8, columns 2t, 2t+1
	shr.u32 %r14, %r0, 2;
	and.b32 %r15, %r0, 3;
	shl.b32 %r15, %r15, 1;
	shl.b32 %r16, %r14, 3;
	add.s32 %r16, %r16, %r15;
	mul.wide.u32 %rd16, %r16, 4;
	add.s64 %rd17, %rd3, %rd16;
	st.global.v2.f32 [%rd17], {%f4, %f5};
	st.global.v2.f32 [%rd17+256], {%f6, %f7};
	ret;
}
)";
  std::mt19937 rng(5);
  std::vector<double> A(256), B(128);
  std::vector<uint16_t> a16(256), b16(128);
  for (int i = 0; i < 256; ++i) A[i] = random_value(T::BF16, rng), a16[i] = encode(T::BF16, A[i]);
  for (int i = 0; i < 128; ++i) B[i] = random_value(T::BF16, rng), b16[i] = encode(T::BF16, B[i]);
  Sim s(ptx, "tile.ptx");
  const uint64_t pa = s.buffer("a", a16), pb = s.buffer("b", b16), pd = s.zeros<float>("d", 128);
  REQUIRE(!s.run("tile", {1, 1, 1}, {32, 1, 1}, {pa, pb, pd}).fault);
  const auto D = s.read<float>(pd, 128);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double a[16], b[16];
      for (int k = 0; k < 16; ++k) a[k] = A[m * 16 + k], b[k] = B[k * 8 + n];
      INFO("D[" << m << "][" << n << "]");
      CHECK(D[m * 8 + n] == h100_rule(a, b, 16, 0.0));
    }
}

#include "sim/func/numeric.h"

TEST_CASE("245 FP8 formats and the accumulation rule's special cases") {
  namespace num = func::num;
  CHECK(num::e4m3_to_double(0x7E) == 448.0);                // S.1111.110: the largest e4m3
  CHECK(std::isnan(num::e4m3_to_double(0x7F)));             // S.1111.111: NaN (no infinity)
  CHECK(num::e4m3_to_double(0x01) == std::ldexp(1.0, -9));  // smallest subnormal
  CHECK(num::e4m3_to_double(0xB8) == -1.0);
  CHECK(num::e5m2_to_double(0x7B) == 57344.0);
  CHECK(std::isinf(num::e5m2_to_double(0x7C)));
  CHECK(num::e5m2_to_double(0x3C) == 1.0);
  CHECK(num::double_to_e4m3(448, false) == 0x7E);
  CHECK(num::double_to_e4m3(464, false) == 0x7E);  // tie between 448 and (480): even, 448
  CHECK(num::double_to_e4m3(470, true) == 0x7E);   // rounds past 448: satfinite clamps
  CHECK(num::double_to_e4m3(470, false) == 0x7F);  // ... or NaN
  CHECK(num::double_to_e4m3(-1e9, true) == 0xFE);
  CHECK(num::double_to_e4m3(1.0625, false) == 0x38);  // tie between 1 and 1.125: even (1)
  CHECK(num::double_to_e4m3(1.1875, false) == 0x3A);  // tie between 1.125 and 1.25: even (1.25)
  CHECK(num::double_to_e5m2(1e6, false) == 0x7C);
  CHECK(num::double_to_e5m2(1e6, true) == 0x7B);
  CHECK(num::tf32_operand_to_double(0x3F801FFFu) == 1.0);  // low 13 bits ignored

  const double inf = INFINITY;
  double p[4] = {inf, -inf, 0, 0};
  int e[4] = {0, 0, 0, 0};
  CHECK(num::mma_accumulate_f32(p, e, 2, 0.0) == 0x7FFFFFFFu);  // inf - inf
  CHECK(num::mma_accumulate_f32(p, e, 1, 1.0) == 0x7F800000u);
  CHECK(num::mma_accumulate_f32(p, e, 1, -inf) == 0x7FFFFFFFu);
  double z[2] = {-0.0, -0.0};
  CHECK(num::mma_accumulate_f32(z, e, 2, -0.0) == 0x80000000u);  // all -0: -0
  CHECK(num::mma_accumulate_f32(z, e, 2, 0.0) == 0u);            // else +0
  double sub[2] = {std::ldexp(1.0, -140), std::ldexp(1.0, -140)};
  int esub[2] = {-140, -140};
  CHECK(num::mma_accumulate_f32(sub, esub, 2, 0.0) == 0x400u);  // 2^-139: an f32 subnormal
  // Terms below 2^(emax - 25) are truncated away: 2^100 + 1 - 2^100 = 0, not 1.
  double wide[3] = {std::ldexp(1.0, 100), 1.0, -std::ldexp(1.0, 100)};
  int ewide[3] = {100, 0, 100};
  CHECK(num::mma_accumulate_f32(wide, ewide, 3, 0.0) == 0u);
  // The exponent is the operands' sum: a product 1.5 * 1.5 = 2.25 counts as 2^0, so the grid is
  // 2^-25 and 2^-25 survives (2^1 would make it 2^-24 and drop it); rounded toward zero.
  double p2[3] = {2.25, -2.25, std::ldexp(1.0, -25)};
  int e2[3] = {0, 0, -25};
  CHECK(num::mma_accumulate_f32(p2, e2, 3, 0.0) == 0x33000000u);  // 2^-25 survives
  double p3[2] = {2.25, std::ldexp(3.0, -25)};
  int e3[2] = {0, -24};
  // 2.25 + 3*2^-25 = 2.25 + 1.5 * 2^-24: kept exactly, then RZ at 2^-22 (f32 ulp of 2.25): 2.25.
  CHECK(num::mma_accumulate_f32(p3, e3, 2, 0.0) == 0x40100000u);
  double p4[2] = {1.0, std::ldexp(7.0, -25)};
  int e4[2] = {0, -23};
  CHECK(num::mma_accumulate_f32(p4, e4, 2, 0.0) == 0x3F800001u);  // 1 + 1.75 ulp -> RZ 1 + 1 ulp
  CHECK(num::mma_operand_exponent(1.5, 8) == 0);
  CHECK(num::mma_operand_exponent(std::ldexp(1.0, -130), 8) == -126);  // bf16 subnormal
  CHECK(num::mma_operand_exponent(std::ldexp(1.0, -20), 5) == -14);    // f16 subnormal
  // f16 accumulators (not measured): the exact sum rounded once to nearest even.
  double h[2] = {1.0, std::ldexp(1.0, -11)};  // 1 + 2^-11: a tie in f16, to even (1.0)
  CHECK(num::mma_accumulate_f16(h, 2, 0.0) == 0x3C00u);
  double h2[3] = {1.0, std::ldexp(1.0, -11), std::ldexp(1.0, -30)};  // just above the tie
  CHECK(num::mma_accumulate_f16(h2, 3, 0.0) == 0x3C01u);
}

TEST_CASE("245 mma.sync by part of a warp is a synccheck hazard at its line; the rest still run") {
  // Lanes 0..15 skip the mma (a guard predicate): .aligned needs all 32 lanes.
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 pout)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<20>;\n"
      "\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [pout];\n\tmov.u32 %r0, %tid.x;\n"
      "\tsetp.ge.u32 %p1, %r0, 16;\n\tmov.b32 %r1, 0;\n\tmov.b32 %r2, 1065353216;\n"
      "\t@%p1 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r10,%r11,%r12,%r13}, "
      "{%r1,%r1,%r1,%r1}, {%r1,%r1}, {%r2,%r2,%r2,%r2};\n"
      "\tmul.wide.u32 %rd2, %r0, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tst.global.b32 [%rd3], %r10;\n\tret;\n}\n";
  Sim s(ptx, "part.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 32);
  func::LaunchConfig lc{"k", {1, 1, 1}, {32, 1, 1}, 0, s.params("k", {O})};
  lc.synccheck = true;
  auto r = func::run_functional(*s.program, s.mem, lc, {});
  REQUIRE(r);
  REQUIRE(!r->fault);
  REQUIRE(r->hazards.size() == 1);
  CHECK(r->hazards[0].ptx_line == test::line_of(ptx, "mma.sync"));
  CHECK(r->hazards[0].message.find("every lane must execute it") != std::string::npos);
  const auto out = s.read<uint32_t>(O, 32);
  for (int l = 0; l < 32; ++l) CHECK(out[l] == (l >= 16 ? 0x3F800000u : 0u));  // 0*0 + 1.0
}
