// Per-instruction edge cases through one small hand-written kernel: each thread reads two
// operands, applies one instruction (picked by the test), writes the result. Expected values are
// written out from the PTX ISA's definitions in plain C++.
#include <cmath>
#include <limits>

#include "21x_sim.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

// out[t] = OP(a[t], b[t]) for the instruction text `body` (reads %r1/%r2 or %rd1/%rd2 or
// %f1/%f2, writes %r3 / %rd3 / %f3 / %p1 -> %r3).
std::string kernel(const std::string& body) {
  return R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  .reg .f64 %fd<4>;
  ld.param.u64 %rd4, [pa];
  ld.param.u64 %rd5, [pb];
  ld.param.u64 %rd6, [pc];
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd7, %r5, 8;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.u64 %rd1, [%rd8];
  ld.global.u64 %rd2, [%rd9];
  cvt.u32.u64 %r1, %rd1;
  cvt.u32.u64 %r2, %rd2;
  mov.b32 %f1, %r1;
  mov.b32 %f2, %r2;
  mov.b64 %fd1, %rd1;
  mov.b64 %fd2, %rd2;
  mov.u64 %rd3, 0;
  mov.u32 %r3, 0;
)" + body +
         R"(
  cvt.u64.u32 %rd11, %r3;
  or.b64 %rd3, %rd3, %rd11;
  st.global.u64 [%rd10], %rd3;
  ret;
}
)";
}

std::vector<uint64_t> run(const std::string& body, const std::vector<uint64_t>& a,
                          const std::vector<uint64_t>& b) {
  Sim s(kernel(body), "inst.ptx");
  const uint64_t A = s.buffer("a", a), B = s.buffer("b", b), C = s.zeros<uint64_t>("c", a.size());
  auto r = s.run("k", {1, 1, 1}, {static_cast<uint32_t>(a.size()), 1, 1}, {A, B, C});
  REQUIRE(!r.fault);
  return s.read<uint64_t>(C, a.size());
}

uint64_t f(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

}  // namespace

TEST_CASE("integer: shifts past the width, division by zero, mul.hi, bit ops") {
  const std::vector<uint64_t> a = {0x80000001u, 7, 0xFFFFFFFFu, 100, 0x12345678u};
  const std::vector<uint64_t> b = {31, 32, 40, 0, 4};
  auto shl = run("shl.b32 %r3, %r1, %r2;", a, b);
  auto shr_s = run("shr.s32 %r3, %r1, %r2;", a, b);
  auto shr_u = run("shr.u32 %r3, %r1, %r2;", a, b);
  auto div_u = run("div.u32 %r3, %r1, %r2;", a, b);
  auto rem_s = run("rem.s32 %r3, %r1, %r2;", a, b);
  auto mulhi = run("mul.hi.s32 %r3, %r1, %r2;", a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    const uint32_t x = static_cast<uint32_t>(a[i]), n = static_cast<uint32_t>(b[i]);
    INFO("i = " << i);
    CHECK(shl[i] == (n >= 32 ? 0u : uint32_t(x << n)));
    CHECK(shr_s[i] == uint32_t(int32_t(x) >> std::min(n, 31u)));
    CHECK(shr_u[i] == (n >= 32 ? 0u : x >> n));
    CHECK(div_u[i] == (n == 0 ? 0xFFFFFFFFu : x / n));
    if (n != 0) CHECK(rem_s[i] == uint32_t(int32_t(x) % int32_t(n)));  // x % 0: undefined in PTX
    CHECK(mulhi[i] == uint32_t((int64_t(int32_t(x)) * int64_t(int32_t(n))) >> 32));
  }
  auto popc = run("popc.b32 %r3, %r1;", a, b);
  auto clz = run("clz.b32 %r3, %r1;", a, b);
  auto brev = run("brev.b32 %r3, %r1;", a, b);
  auto bfe = run("bfe.u32 %r3, %r1, 4, 8;", a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    const uint32_t x = static_cast<uint32_t>(a[i]);
    uint32_t rev = 0;
    for (int k = 0; k < 32; ++k) rev |= ((x >> k) & 1u) << (31 - k);
    CHECK(popc[i] == uint64_t(std::popcount(x)));
    CHECK(clz[i] == uint64_t(std::countl_zero(x)));
    CHECK(brev[i] == rev);
    CHECK(bfe[i] == ((x >> 4) & 0xFFu));
  }
}

TEST_CASE("64-bit add through a carry chain (add.cc / addc)") {
  const std::vector<uint64_t> a = {0xFFFFFFFFull, 0x00000001FFFFFFFFull, 5};
  const std::vector<uint64_t> b = {1, 0xFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull};
  auto r = run(R"(
  mov.b64 {%r1, %r2}, %rd1;
  mov.b64 {%r5, %r6}, %rd2;
  add.cc.u32 %r3, %r1, %r5;
  addc.u32 %r4, %r2, %r6;
  mov.b64 %rd3, {%r3, %r4};
  mov.u32 %r3, 0;)",
               a, b);
  for (size_t i = 0; i < a.size(); ++i) CHECK(r[i] == a[i] + b[i]);
}

// A 32x32 -> 64-bit multiply-accumulate as nvcc emits it for wide arithmetic (the double-precision
// trig reduction): mad.lo.cc then madc.hi, and madc.hi.cc carrying into a third word.
TEST_CASE("multiply-add through a carry chain (mad.lo.cc / madc.hi / madc.hi.cc)") {
  const std::vector<uint64_t> a = {0xFFFFFFFFull, 0x80000000ull, 12345, 0xDEADBEEFull};
  const std::vector<uint64_t> b = {0xFFFFFFFFull, 2, 0, 0xFFFFFFFFull};
  // low 64 bits of a*b + a + (b << 32), and its carry out of bit 63
  auto lo = run(R"(
  mad.lo.cc.u32 %r3, %r1, %r2, %r1;
  madc.hi.u32 %r4, %r1, %r2, %r2;
  mov.b64 %rd3, {%r3, %r4};
  mov.u32 %r3, 0;)",
                a, b);
  auto carry = run(R"(
  mad.lo.cc.u32 %r3, %r1, %r2, %r1;
  madc.hi.cc.u32 %r4, %r1, %r2, %r2;
  addc.u32 %r3, 0, 0;)",
                   a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("i = " << i);
    const unsigned __int128 want = static_cast<unsigned __int128>(a[i]) * b[i] + a[i] +
                                   (static_cast<unsigned __int128>(b[i]) << 32);
    CHECK(lo[i] == static_cast<uint64_t>(want));
    CHECK(carry[i] == static_cast<uint64_t>(want >> 64));
  }
}

TEST_CASE("float compares with NaN, selp, min/max, cvt saturation") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> af = {1.0f, nan, -0.0f, 3.5f, -1e30f};
  const std::vector<float> bf = {2.0f, 1.0f, 0.0f, nan, 7.0f};
  std::vector<uint64_t> a, b;
  for (float v : af) a.push_back(f(v));
  for (float v : bf) b.push_back(f(v));
  auto lt = run("setp.lt.f32 %p1, %f1, %f2;\n selp.u32 %r3, 1, 0, %p1;", a, b);
  auto ltu = run("setp.ltu.f32 %p1, %f1, %f2;\n selp.u32 %r3, 1, 0, %p1;", a, b);
  auto mn = run("min.f32 %f3, %f1, %f2;\n mov.b32 %r3, %f3;", a, b);
  auto cvt = run("cvt.rzi.s32.f32 %r3, %f1;", a, b);
  for (size_t i = 0; i < af.size(); ++i) {
    INFO("i = " << i);
    const bool unordered = std::isnan(af[i]) || std::isnan(bf[i]);
    CHECK(lt[i] == uint64_t(!unordered && af[i] < bf[i]));
    CHECK(ltu[i] == uint64_t(unordered || af[i] < bf[i]));
    // min: NaN operands are ignored; min(-0, +0) = -0.
    float want = std::isnan(af[i]) ? bf[i] : std::isnan(bf[i]) ? af[i] : std::fmin(af[i], bf[i]);
    if (af[i] == 0.0f && bf[i] == 0.0f) want = -0.0f;
    CHECK(mn[i] == f(want));
    // cvt to s32 saturates; NaN -> 0.
    const int32_t c = std::isnan(af[i]) ? 0 : af[i] <= -2147483648.0f ? INT32_MIN : int32_t(af[i]);
    CHECK(cvt[i] == uint32_t(c));
  }
}
