// fma.rn.f32 in every .ftz/.sat form, lane by lane, for a full warp and a partial one (the
// executor's f32 fma fast paths: the host's FMA instruction where it has one, libm's fmaf
// otherwise). Expected values come from the PTX ISA's definition, written out here in plain C++:
// a*b+c rounded once to nearest even (std::fma), .ftz flushing subnormal operands and results to
// a zero of their sign, .sat clamping to [0, 1] with NaN to +0, other NaN results canonical.
#include <cmath>
#include <cstring>

#include "21x_sim.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

std::string kernel(const std::string& op) {
  return R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  add.s64 %rd7, %rd2, %rd5;
  add.s64 %rd8, %rd3, %rd5;
  add.s64 %rd9, %rd4, %rd5;
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd7];
  ld.global.f32 %f3, [%rd8];
  )" + op +
         R"( %f4, %f1, %f2, %f3;
  st.global.f32 [%rd9], %f4;
  ret;
}
)";
}

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint32_t flush(uint32_t v) { return (v & 0x7F800000u) == 0 ? v & 0x80000000u : v; }

uint32_t expected(uint32_t a, uint32_t b, uint32_t c, bool ftz, bool sat) {
  if (ftz) a = flush(a), b = flush(b), c = flush(c);
  const float r = std::fma(from_bits(a), from_bits(b), from_bits(c));
  if (std::isnan(r)) return sat ? 0u : 0x7FFFFFFFu;
  uint32_t bits = to_bits(r);
  if (ftz) bits = flush(bits);
  if (sat && (bits & 0x80000000u)) return 0u;
  if (sat && bits > 0x3F800000u) return 0x3F800000u;
  return bits;
}

}  // namespace

TEST_CASE(
    "fma.rn.f32 (.ftz, .sat): one rounding, flushes, clamps and NaNs, full and partial warps") {
  const uint32_t one_p = to_bits(1.0f + 0x1p-12f), sum = to_bits(-(1.0f + 0x1p-11f));
  // 32 lanes of (a, b, c): ordinary values, the fused case (a*b+c exact only without the
  // intermediate rounding: 2^-24, where an unfused multiply and add give 0), NaNs, infinities,
  // inf*0, subnormal operands and results, overflow, and values around the .sat bounds.
  const std::vector<uint32_t> a = {
      to_bits(1.5f),   one_p,           0x7FC00001u,     to_bits(INFINITY), to_bits(INFINITY),
      0x00000001u,     0x807FFFFFu,     to_bits(1e-20f), to_bits(3e38f),    to_bits(0.5f),
      to_bits(2.0f),   to_bits(-0.5f),  to_bits(0.25f),  0x00400000u,       to_bits(-1e-30f),
      to_bits(1.0f),   to_bits(-3.0f),  to_bits(7.0f),   to_bits(0.1f),     to_bits(-0.0f),
      to_bits(1e-38f), to_bits(0.75f),  to_bits(-2.5f),  to_bits(1.0f),     to_bits(0.3f),
      to_bits(1e10f),  to_bits(-1e10f), 0x00000010u,     to_bits(1.0f),     to_bits(5.0f),
      to_bits(0.999f), to_bits(-7.5f)};
  const std::vector<uint32_t> b = {
      to_bits(2.0f),   one_p,          to_bits(1.0f),   to_bits(0.0f),      to_bits(2.0f),
      to_bits(1.0f),   to_bits(1.0f),  to_bits(1e-20f), to_bits(3e38f),     to_bits(1.0f),
      to_bits(1.0f),   to_bits(1.0f),  to_bits(3.0f),   to_bits(2.0f),      to_bits(1e-10f),
      to_bits(1.0f),   to_bits(3.0f),  to_bits(-7.0f),  to_bits(0.1f),      to_bits(0.0f),
      to_bits(0.5f),   to_bits(2.0f),  to_bits(0.4f),   to_bits(-INFINITY), to_bits(3.0f),
      to_bits(1e10f),  to_bits(1e10f), to_bits(0.5f),   to_bits(1.0f),      to_bits(-0.2f),
      to_bits(1.001f), to_bits(2.0f)};
  const std::vector<uint32_t> c = {to_bits(0.25f),     sum,
                                   to_bits(1.0f),      to_bits(1.0f),
                                   to_bits(-INFINITY), to_bits(0.0f),
                                   0x00000001u,        to_bits(0.0f),
                                   to_bits(0.0f),      to_bits(0.25f),
                                   to_bits(0.0f),      to_bits(0.0f),
                                   to_bits(0.0f),      0x80000000u,
                                   to_bits(0.0f),      to_bits(-1.0f),
                                   to_bits(9.0f),      to_bits(49.0f),
                                   to_bits(-0.01f),    to_bits(-0.0f),
                                   to_bits(0.0f),      to_bits(-0.5f),
                                   to_bits(1.0f),      to_bits(INFINITY),
                                   to_bits(0.1f),      to_bits(-1e20f),
                                   to_bits(1e20f),     0x80000001u,
                                   to_bits(0.0f),      to_bits(1.0f),
                                   to_bits(0.0f),      to_bits(16.0f)};
  REQUIRE(a.size() == 32);
  REQUIRE(b.size() == 32);
  REQUIRE(c.size() == 32);
  // The fused case is one: 2^-24, not the 0 of a rounded product plus c.
  CHECK(expected(a[1], b[1], c[1], false, false) == to_bits(0x1p-24f));
  for (const char* op :
       {"fma.rn.f32", "fma.rn.ftz.f32", "fma.rn.sat.f32", "fma.rn.ftz.sat.f32", "mad.rn.f32"}) {
    const std::string name = op;
    const bool ftz = name.find(".ftz") != std::string::npos;
    const bool sat = name.find(".sat") != std::string::npos;
    for (const uint32_t threads : {32u, 13u}) {  // a full warp, and one of 13 lanes
      INFO(op << ", " << threads << " threads");
      Sim s(kernel(op), "fma.ptx");
      const std::vector<uint32_t> A(a.begin(), a.begin() + threads),
          B(b.begin(), b.begin() + threads), C(c.begin(), c.begin() + threads);
      const uint64_t pa = s.buffer("a", A), pb = s.buffer("b", B), pc = s.buffer("c", C);
      const uint64_t pd = s.zeros<uint32_t>("d", threads);
      auto r = s.run("k", {1, 1, 1}, {threads, 1, 1}, {pa, pb, pc, pd});
      REQUIRE(!r.fault);
      const std::vector<uint32_t> d = s.read<uint32_t>(pd, threads);
      for (uint32_t l = 0; l < threads; ++l) {
        INFO("lane " << l);
        CHECK(d[l] == expected(a[l], b[l], c[l], ftz, sat));
      }
    }
  }
}
