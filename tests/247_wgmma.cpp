// Warpgroup MMA (wgmma.mma_async) through whole kernels: one warpgroup multiplies a 64x16 A by a
// 16xN B from shared memory, for each swizzle mode and both majors of the matrix descriptors, A
// from registers, scale-d, imm-scale-a/b, f32 and f16 accumulators; and the warpgroup convergence
// faults. The shared-memory image, the descriptors and the register fragments are laid out here
// from the PTX ISA's descriptions (core matrices of 8 rows x 16 bytes; swizzles as XOR of address
// bits 4-6 with bits 7-9; the mma m16n8 fragments), written independently of
// sim/func/exec_wgmma.cpp, and every expected value is a plain C++ matrix product added up by the
// rule measured on the H100 for mma.sync (scripts/microbench/TENSOR-ASYNC-2026-11-26.md; that
// wgmma adds its K=16 steps the same way is an assumption to check on the H100).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <random>

#include "21x_sim.h"
#include "24x_tensor_rule.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

uint16_t half_bits(double v, bool bf16) {  // v exact in the format (n / 64, |n| < 256)
  if (bf16) {
    const float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    REQUIRE((b & 0xFFFF) == 0);
    return static_cast<uint16_t>(b >> 16);
  }
  const auto h = static_cast<_Float16>(v);
  REQUIRE(static_cast<double>(h) == v);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
uint32_t f32_bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
// An e4m3 normal value (S.EEEE.MMM, bias 7): v = n / 8 with |n| <= 15 and n != 0, or 0.
uint32_t e4m3_bits(double v) {
  if (v == 0) return 0;
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e);  // |v| = f * 2^e, f in [0.5, 1)
  const auto frac = static_cast<uint32_t>(std::ldexp(f * 2 - 1, 3));
  REQUIRE(std::ldexp(1.0 + frac / 8.0, e - 1) == std::fabs(v));
  return (v < 0 ? 0x80u : 0u) | (static_cast<uint32_t>(e - 1 + 7) << 3) | frac;
}
enum class Ty { F16, BF16, TF32, E4M3 };
int bytes_of(Ty t) { return t == Ty::TF32 ? 4 : t == Ty::E4M3 ? 1 : 2; }
uint32_t bits_of(Ty t, double v) {
  switch (t) {
    case Ty::F16:
      return half_bits(v, false);
    case Ty::BF16:
      return half_bits(v, true);
    case Ty::TF32:
      return f32_bits_of(static_cast<float>(v));  // v has at most 11 significant bits
    case Ty::E4M3:
      return e4m3_bits(v);
  }
  return 0;
}


// ---- shared-memory layouts of an operand: `mn` rows (M of A, N of B) by K = 16 halves ----------
// swizzle: 0, 32, 64 or 128 bytes. Returns the byte offset of element (i, k) from the operand's
// start, before any swizzle; the image is XOR-swizzled afterwards (swizzled()).
struct Layout {
  bool mn_major = false;
  int swizzle = 0;
  uint32_t lbo = 0, sbo = 0;  // the descriptor's byte offsets
};
uint32_t offset_of(const Layout& L, int i, int k, int es = 2) {
  const int kb = k * es;              // K-major: the element's byte along its row
  if (!L.mn_major && L.swizzle == 0)  // core matrix (i/8, kb/16): 8 rows of 16 bytes, contiguous
    return (i / 8) * L.sbo + (kb / 16) * L.lbo + (i % 8) * 16 + kb % 16;
  if (!L.mn_major)  // row i of W bytes holds its K elements first; 8-row groups SBO apart
    return (i / 8) * L.sbo + (i % 8) * L.swizzle + kb;
  if (L.swizzle == 0)  // core matrix (i/8, k/8): 8 K-rows of 8 MN elements (16 bytes), contiguous
    return (i / 8) * L.sbo + (k / 8) * L.lbo + (k % 8) * 16 + (i % 8) * 2;
  // K-row k of W bytes holds W/2 MN elements; MN atoms of W/2 elements LBO apart, 8 K-rows SBO
  const int per_row = L.swizzle / 2;
  return (i / per_row) * L.lbo + (k / 8) * L.sbo + (k % 8) * L.swizzle + (i % per_row) * 2;
}
// The 16-byte chunk c of a 128-byte line r goes to chunk c ^ (r % 8) (128B), c ^ (r % 4) (64B
// swizzle: lines of 64 bytes pair up), c ^ (r % 2) (32B): the XOR of address bits 4.. with 7..
uint32_t swizzled(uint32_t a, int swizzle) {
  if (swizzle == 0) return a;
  const uint32_t mask = static_cast<uint32_t>(swizzle / 16 - 1);
  const uint32_t line = a / 128, chunk = (a / 16) % 8;
  return (a & ~0x70u) | (((chunk ^ (line & mask)) & 7u) << 4);
}
uint64_t descriptor(uint32_t start, const Layout& L) {
  const uint64_t mode = L.swizzle == 128 ? 1 : L.swizzle == 64 ? 2 : L.swizzle == 32 ? 3 : 0;
  return (static_cast<uint64_t>(start >> 4) & 0x3FFF) |
         ((static_cast<uint64_t>(L.lbo >> 4) & 0x3FFF) << 16) |
         ((static_cast<uint64_t>(L.sbo >> 4) & 0x3FFF) << 32) | (mode << 62);
}
// A layout of `mn` x 16 halves with the given major and swizzle, and its size in bytes.
Layout make_layout(int mn, bool mn_major, int swizzle, uint32_t& bytes) {
  Layout L{mn_major, swizzle, 0, 0};
  if (!mn_major && swizzle == 0) {  // K chunks after all MN groups
    L.sbo = 128, L.lbo = static_cast<uint32_t>(mn / 8) * 128;
    bytes = 2 * L.lbo;
  } else if (!mn_major) {
    L.sbo = 8 * static_cast<uint32_t>(swizzle), L.lbo = 16;  // LBO unused (PTX: set to 1)
    bytes = static_cast<uint32_t>(mn / 8) * L.sbo;
  } else if (swizzle == 0) {  // MN core matrices first, the second K half after them
    L.sbo = 128, L.lbo = static_cast<uint32_t>(mn / 8) * 128;
    bytes = 2 * L.lbo;
  } else {
    L.sbo = 8 * static_cast<uint32_t>(swizzle);  // 8 K-rows of one MN atom
    L.lbo = 2 * L.sbo;                           // both K halves of an atom, then the next atom
    const int atoms = std::max(1, mn / (swizzle / 2));
    bytes = static_cast<uint32_t>(atoms) * L.lbo;
  }
  return L;
}

// ---- the kernel: 128 threads copy the shared-memory image in, run one wgmma, store D -----------
std::string wgmma_kernel(const std::string& inst, int regs, bool a_regs, uint32_t image_bytes) {
  std::ostringstream p;
  p << ".version 8.0\n.target sm_90a\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pimg, .param .u64 pa, .param .u64 pc, .param .u64 pout,"
    << " .param .u64 da, .param .u64 db, .param .u32 sd)\n{\n"
    << "\t.reg .b32 %r<300>;\n\t.reg .b64 %rd<20>;\n\t.reg .pred %p<4>;\n"
    << "\t.shared .align 1024 .b8 smem[" << image_bytes << "];\n"
    << "\tld.param.u64 %rd1, [pimg];\n\tld.param.u64 %rd2, [pa];\n\tld.param.u64 %rd3, [pc];\n"
    << "\tld.param.u64 %rd4, [pout];\n\tld.param.u64 %rd10, [da];\n\tld.param.u64 %rd11, [db];\n"
    << "\tld.param.u32 %r9, [sd];\n\tmov.u32 %r0, %tid.x;\n\tmov.u32 %r1, %r0;\n"
    << "\tmov.u32 %r3, smem;\n"
    << "COPY:\n\tsetp.ge.u32 %p1, %r1, " << image_bytes / 4 << ";\n\t@%p1 bra DONE;\n"
    << "\tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd6, %rd1, %rd5;\n\tld.global.b32 %r2, [%rd6];\n"
    << "\tshl.b32 %r4, %r1, 2;\n\tadd.u32 %r5, %r3, %r4;\n\tst.shared.b32 [%r5], %r2;\n"
    << "\tadd.u32 %r1, %r1, 128;\n\tbra COPY;\nDONE:\n\tbar.sync 0;\n"
    << "\tfence.proxy.async.shared::cta;\n"
    << "\tshr.u32 %r6, %r3, 4;\n\tcvt.u64.u32 %rd7, %r6;\n\tadd.s64 %rd12, %rd10, %rd7;\n"
    << "\tadd.s64 %rd13, %rd11, %rd7;\n"
    << "\tmul.wide.u32 %rd5, %r0, 16;\n\tadd.s64 %rd6, %rd2, %rd5;\n";
  for (int i = 0; i < 4; ++i) p << "\tld.global.b32 %r" << 10 + i << ", [%rd6+" << 4 * i << "];\n";
  p << "\tmul.wide.u32 %rd5, %r0, " << 4 * regs << ";\n\tadd.s64 %rd6, %rd3, %rd5;\n";
  for (int i = 0; i < regs; ++i)
    p << "\tld.global.b32 %r" << 20 + i << ", [%rd6+" << 4 * i << "];\n";
  p << "\tsetp.ne.u32 %p2, %r9, 0;\n\twgmma.fence.sync.aligned;\n\t" << inst << " {";
  for (int i = 0; i < regs; ++i) p << (i ? ", %r" : "%r") << 20 + i;
  p << "}, " << (a_regs ? "{%r10, %r11, %r12, %r13}" : "%rd12") << ", %rd13, %p2";
  return p.str();
}
std::string kernel_tail(int regs) {
  std::ostringstream p;
  p << ";\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n"
    << "\tmul.wide.u32 %rd5, %r0, " << 4 * regs << ";\n\tadd.s64 %rd6, %rd4, %rd5;\n";
  for (int i = 0; i < regs; ++i)
    p << "\tst.global.b32 [%rd6+" << 4 * i << "], %r" << 20 + i << ";\n";
  p << "\tret;\n}\n";
  return p.str();
}

struct Case {
  int n = 64;
  bool bf16 = false;
  Ty type = Ty::F16;    // (bf16 = true: Ty::BF16)
  bool a_regs = false;  // A from registers (else a descriptor)
  bool a_mn = false, b_mn = false;
  int a_swizzle = 0, b_swizzle = 0;
  bool scale_d = true, neg_a = false, neg_b = false;
  bool f16_acc = false;
};

// Runs the case on random A (64x16), B (16xN), C (64xN) and checks every element of D.
void run_case(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int N = c.n;
  const Ty ty = c.bf16 ? Ty::BF16 : c.type;
  const int es = bytes_of(ty), K = 32 / es;  // K bytes of a row: 32 (k16, k8 tf32, k32 e4m3)
  std::vector<double> A(64 * K), B(K * N), C(64 * N);
  auto value = [&]() {
    if (ty == Ty::TF32) return pick(-2047, 2047) / 256.0;  // 11 significant bits
    if (ty == Ty::E4M3) return pick(-15, 15) / 8.0;        // 4 significant bits
    return pick(-255, 255) / 64.0;
  };
  for (auto& v : A) v = value();
  for (auto& v : B) v = value();
  for (auto& v : C) v = c.f16_acc ? pick(-1000, 1000) / 32.0 : pick(-(1 << 22), 1 << 22) / 32.0;
  // 1. The shared-memory image: A at 0 (when from a descriptor), B after it at a 1024-byte line.
  uint32_t a_bytes = 0, b_bytes = 0;
  const Layout la = make_layout(64, c.a_mn, c.a_swizzle, a_bytes);
  const Layout lb = make_layout(N, c.b_mn, c.b_swizzle, b_bytes);
  const uint32_t b_start = c.a_regs ? 0 : (a_bytes + 1023) / 1024 * 1024;
  const uint32_t image = (b_start + b_bytes + 1023) / 1024 * 1024;
  std::vector<uint8_t> img(image, 0xEE);  // bytes no element owns hold a large value
  auto put = [&](uint32_t at, int swizzle, double v) {
    const uint32_t h = bits_of(ty, v);
    const uint32_t a = swizzled(at, swizzle);
    REQUIRE(a + es <= image);
    std::memcpy(&img[a], &h, static_cast<size_t>(es));  // little-endian: the low bytes
  };
  if (!c.a_regs)
    for (int m = 0; m < 64; ++m)
      for (int k = 0; k < K; ++k) put(offset_of(la, m, k, es), c.a_swizzle, A[m * K + k]);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) put(b_start + offset_of(lb, n, k, es), c.b_swizzle, B[k * N + n]);
  // 2. Registers: thread 32w + l holds rows 16w.. of A (mma.m16n8k16's A fragment: a0,a1 row g,
  //    a2,a3 row g+8, a4..a7 the same rows 8 columns on; column 2t + i%2) and of D (c0,c1 row g,
  //    c2,c3 row g+8, columns 2t, 2t+1, then the next 8 columns; f16: c0..c3 in two registers).
  const int regs = c.f16_acc ? N / 4 : N / 2;
  std::vector<uint32_t> areg(128 * 4, 0), creg(128 * static_cast<size_t>(regs), 0);
  auto d_elem = [&](int thread, int r, int e, int& row, int& col) {
    const int w = thread / 32, l = thread % 32, g = l / 4, t = l % 4;
    const int i = c.f16_acc ? 2 * r + e : r;  // the element c_i of the thread
    row = 16 * w + g + ((i % 4) >= 2 ? 8 : 0);
    col = 8 * (i / 4) + 2 * t + (i % 2);
  };
  const int per = 4 / es;  // A elements per register
  for (int th = 0; th < 128; ++th) {
    const int w = th / 32, l = th % 32, g = l / 4, t = l % 4;
    for (int i = 0; i < 4 * per; ++i) {  // element a_i, as the PTX ISA's A fragment tables give it
      int row = 0, col = 0;
      if (es == 4)  // tf32 (k8): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
        row = i % 2 ? g + 8 : g, col = t + (i >= 2 ? 4 : 0);
      else if (es == 2)  // a0,a1 row g; a2,a3 row g+8; a4..a7 the same 8 columns on
        row = (i % 4) < 2 ? g : g + 8, col = 2 * t + (i % 2) + (i >= 4 ? 8 : 0);
      else  // e4m3 (k32): a0..a3 row g, a4..a7 row g+8, a8..a15 the same 16 columns on
        row = (i % 8) < 4 ? g : g + 8, col = 4 * t + (i % 4) + (i >= 8 ? 16 : 0);
      row += 16 * w;
      const uint32_t bits = bits_of(ty, A[row * K + col]);
      areg[th * 4 + i / per] |= es == 4 ? bits : bits << (8 * es * (i % per));
    }
    for (int r = 0; r < regs; ++r)
      for (int e = 0; e < (c.f16_acc ? 2 : 1); ++e) {
        int row = 0, col = 0;
        d_elem(th, r, e, row, col);
        const double v = C[row * N + col];
        creg[th * regs + r] |= c.f16_acc ? static_cast<uint32_t>(half_bits(v, false)) << (16 * e)
                                         : f32_bits_of(static_cast<float>(v));
      }
  }
  // 3. The instruction.
  const char* tn = ty == Ty::BF16   ? "bf16"
                   : ty == Ty::TF32 ? "tf32"
                   : ty == Ty::E4M3 ? "e4m3"
                                    : "f16";
  std::string inst = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(N) + "k" +
                     std::to_string(K) + "." + (c.f16_acc ? "f16" : "f32") + "." + tn + "." + tn;
  std::string ptx = wgmma_kernel(inst, regs, c.a_regs, image);
  ptx += std::string(", ") + (c.neg_a ? "-1" : "1") + ", " + (c.neg_b ? "-1" : "1");
  if (es == 2) {  // tf32 and FP8 have no imm-trans operands (K-major only)
    if (!c.a_regs) ptx += c.a_mn ? ", 1" : ", 0";
    ptx += c.b_mn ? ", 1" : ", 0";
  }
  ptx += kernel_tail(regs);
  Sim s(ptx, "wgmma.ptx");
  const uint64_t I = s.buffer("img", img), Ar = s.buffer("a", areg), Cr = s.buffer("c", creg);
  const uint64_t O = s.zeros<uint32_t>("out", 128 * static_cast<size_t>(regs));
  auto res = s.run("k", {1, 1, 1}, {128, 1, 1},
                   {I, Ar, Cr, O, descriptor(0, la), descriptor(b_start, lb), c.scale_d ? 1u : 0u});
  REQUIRE(!res.fault);
  const auto out = s.read<uint32_t>(O, 128 * static_cast<size_t>(regs));
  // 4. Every element of D against the rule.
  int wrong = 0;
  for (int th = 0; th < 128; ++th)
    for (int r = 0; r < regs; ++r)
      for (int e = 0; e < (c.f16_acc ? 2 : 1); ++e) {
        int row = 0, col = 0;
        d_elem(th, r, e, row, col);
        double a[32], b[32];
        for (int k = 0; k < K; ++k)
          a[k] = (c.neg_a ? -1 : 1) * A[row * K + k], b[k] = (c.neg_b ? -1 : 1) * B[k * N + col];
        const double cv = c.scale_d ? C[row * N + col] : 0.0;
        uint32_t want = 0, got = out[th * regs + r];
        if (c.f16_acc) {
          double exact = cv;  // exact in double: multiples of 2^-12 below 2^20
          for (int k = 0; k < K; ++k) exact += a[k] * b[k];
          const auto h = static_cast<_Float16>(exact);
          uint16_t hb;
          std::memcpy(&hb, &h, 2);
          want = hb, got = (got >> (16 * e)) & 0xFFFF;
        } else {
          want = f32_bits_of(h100_rule(a, b, K, cv));
        }
        if (got != want && ++wrong <= 5)
          FAIL_CHECK("D[" << row << "][" << col << "] = " << std::hex << got << " want " << want);
      }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("247 wgmma from shared memory: every swizzle mode, K-major and MN-major") {
  for (int sw : {0, 32, 64, 128}) {
    for (bool mn : {false, true}) {
      Case c;
      c.n = 64;
      c.a_swizzle = c.b_swizzle = sw;
      c.a_mn = c.b_mn = mn;
      c.bf16 = sw == 64;
      INFO("swizzle " << sw << (mn ? " MN-major" : " K-major"));
      run_case(c, 100 + static_cast<uint32_t>(sw) + (mn ? 1 : 0));
    }
  }
}

TEST_CASE("247 wgmma shapes: N from 8 to 256, mixed layouts of A and B") {
  for (int n : {8, 24, 128, 256}) {
    Case c;
    c.n = n;
    c.a_swizzle = 64, c.b_swizzle = 128, c.b_mn = true;  // what Triton's sm_90 matmul uses
    INFO("N = " << n);
    run_case(c, static_cast<uint32_t>(n));
  }
}

TEST_CASE("247 wgmma with A from registers, scale-d, imm-scale, f16 accumulators") {
  Case c;
  c.a_regs = true, c.n = 32, c.b_swizzle = 32;
  SUBCASE("A from registers, bf16, N = 256") {
    c.bf16 = true, c.n = 256, c.b_mn = true, c.b_swizzle = 0;
    run_case(c, 7);
  }
  SUBCASE("A from registers, f16, N = 32") { run_case(c, 8); }
  SUBCASE("scale-d false: D = A*B, the old D is not read") {
    c.scale_d = false;
    run_case(c, 9);
  }
  SUBCASE("imm-scale-a = -1, imm-scale-b = -1") {
    c.a_regs = false, c.neg_a = true;
    run_case(c, 10);
    c.neg_a = false, c.neg_b = true;
    run_case(c, 11);
  }
  SUBCASE("f16 accumulators: f16(C + A*B), rounded once") {
    c.f16_acc = true, c.n = 64;
    run_case(c, 12);
  }
}

TEST_CASE("247 wgmma convergence: a warpgroup's four warps, every lane") {
  // 96 threads: warps 0-2 of warpgroup 0 only.
  const std::string head =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<8>;\n"
      "\t.reg .b64 %rd<4>;\n\t.reg .pred %p<4>;\n"
      "\t.shared .align 1024 .b8 smem[1024];\n\tmov.u32 %r6, smem;\n"
      "\tcvt.u64.u32 %rd1, %r6;\n"
      "\tmov.u32 %r0, %tid.x;\n\tsetp.ne.u32 %p2, %r0, 1000;\n";
  const std::string mma =
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1, %r2, %r3, %r4}, %rd1, %rd1, "
      "%p2, 1, 1, 0, 0;\n";
  const std::string tail =
      "\twgmma.commit_group.sync.aligned;\n"
      "\twgmma.wait_group.sync.aligned 0;\n\tret;\n}\n";
  {
    Sim s(head + mma + tail);
    auto r = s.run("k", {1, 1, 1}, {96, 1, 1}, {0});
    REQUIRE(r.fault);
    CHECK(r.fault->message.find("multiple of 128 threads") != std::string::npos);
  }
  {  // warp 1 takes a different wgmma than the others
    Sim s(head +
          "\tsetp.ge.u32 %p1, %r0, 32;\n\tsetp.lt.u32 %p3, %r0, 64;\n"
          "\tand.pred %p1, %p1, %p3;\n\t@%p1 bra OTHER;\n" +
          mma + "\tbra END;\nOTHER:\n" + mma + "END:\n" + tail);
    auto r = s.run("k", {1, 1, 1}, {128, 1, 1}, {0});
    REQUIRE(r.fault);
    INFO(r.fault->message);
    CHECK(r.fault->message.find("diverged") != std::string::npos);
  }
  {  // lanes 0-15 of every warp only
    Sim s(head + "\tand.b32 %r5, %r0, 31;\n\tsetp.ge.u32 %p1, %r5, 16;\n\t@%p1 bra END;\n" + mma +
          "END:\n" + tail);
    auto r = s.run("k", {1, 1, 1}, {128, 1, 1}, {0});
    REQUIRE(r.fault);
    CHECK(r.fault->message.find("only some lanes") != std::string::npos);
  }
  {  // warp 3 skips the wgmma: caught when the warps exit
    Sim s(head + "\tsetp.ge.u32 %p1, %r0, 96;\n\t@%p1 bra END;\n" + mma + "END:\n" + tail);
    auto r = s.run("k", {1, 1, 1}, {128, 1, 1}, {0});
    REQUIRE(r.fault);
    INFO(r.fault->message);
    CHECK(r.fault->message.find("diverged") != std::string::npos);
  }
}

TEST_CASE("247 wgmma tf32 (k8) and e4m3 (k32): descriptors and registers") {
  // The same rule, as one step of K products (an assumption for FP8 and tf32 wgmma, to be measured
  // on the H100: sim/func/exec_wgmma.cpp).
  for (Ty t : {Ty::TF32, Ty::E4M3})
    for (bool regs : {false, true}) {
      Case c;
      c.type = t, c.a_regs = regs, c.n = 48;
      c.a_swizzle = 128, c.b_swizzle = 64;
      INFO((t == Ty::TF32 ? "tf32" : "e4m3") << (regs ? ", A from registers" : ", A from shared"));
      run_case(c, regs ? 21u : 22u);
    }
}
