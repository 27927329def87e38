// f32/f64 numeric semantics (sim/func/numeric_float.cpp): IEEE rounding in every mode, ftz, sat,
// NaN rules, min/max, testp, comparisons, and the SFU approximations against their PTX bounds.
// Reference values are known bit patterns or the host FPU run in the same rounding mode.
#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

#include "sim/func/numeric.h"

using namespace warplab::func::num;
using warplab::ptx::CmpOp;
using warplab::ptx::Rounding;
using warplab::ptx::TestpMode;
using warplab::ptx::Type;

namespace {
uint32_t fb(float f) { return bits_f32(f); }
uint64_t db(double d) { return bits_f64(d); }
constexpr Rounding kRn = Rounding::Rn, kRz = Rounding::Rz, kRm = Rounding::Rm, kRp = Rounding::Rp;
constexpr uint32_t kOne = 0x3F800000u, kInf = 0x7F800000u, kNegInf = 0xFF800000u;

// The host FPU's answer for one f32 operation in a rounding mode (the test's independent
// reference).
float host_f32(int op, float a, float b, float c, int mode) {
  volatile float va = a, vb = b, vc = c;
  std::fesetround(mode);
  float r;
  switch (op) {
    case 0:
      r = va + vb;
      break;
    case 1:
      r = va - vb;
      break;
    case 2:
      r = va * vb;
      break;
    case 3:
      r = std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc));
      break;
    case 4:
      r = va / vb;
      break;
    default:
      r = std::sqrt(static_cast<float>(va));
      break;
  }
  volatile float out = r;
  std::fesetround(FE_TONEAREST);
  return out;
}
// Random f32 bit patterns weighted toward interesting exponents (subnormal, near 1, huge).
uint32_t random_f32(std::mt19937& g) {
  uint32_t b = g();
  switch (g() % 4) {
    case 0:
      b &= 0x807FFFFFu;
      break;  // subnormal
    case 1:
      b = (b & 0x807FFFFFu) | ((120u + g() % 15) << 23);
      break;  // near 1
    default:
      break;
  }
  return b;
}
}  // namespace

TEST_CASE("f32 add: 1 + 2^-24 and 1 + 0.75ulp in every rounding mode") {
  const uint32_t half_ulp = 0x33800000u, three_quarter = 0x33C00000u;
  CHECK(f32_add(kOne, half_ulp, kRn) == kOne);  // tie -> even
  CHECK(f32_add(kOne, half_ulp, Rounding::None) == kOne);
  CHECK(f32_add(kOne, half_ulp, kRz) == kOne);
  CHECK(f32_add(kOne, half_ulp, kRm) == kOne);
  CHECK(f32_add(kOne, half_ulp, kRp) == 0x3F800001u);
  CHECK(f32_add(kOne, three_quarter, kRn) == 0x3F800001u);
  CHECK(f32_add(kOne, three_quarter, kRz) == kOne);
  CHECK(f32_add(0xBF800000u, 0xB3C00000u, kRm) == 0xBF800001u);
  CHECK(f32_add(0xBF800000u, 0xB3C00000u, kRp) == 0xBF800000u);
  CHECK(f32_add(0xBF800000u, 0xB3C00000u, kRz) == 0xBF800000u);
  CHECK(f32_sub(kOne, 0xB3C00000u, kRz) == kOne);
}

TEST_CASE("f32 exact zero sums: sign depends on the rounding mode") {
  CHECK(f32_add(kOne, 0xBF800000u, kRn) == 0u);
  CHECK(f32_add(kOne, 0xBF800000u, kRm) == 0x80000000u);
  CHECK(f32_sub(kOne, kOne, kRm) == 0x80000000u);
  CHECK(f32_add(0x80000000u, 0x80000000u, kRp) == 0x80000000u);
  CHECK(f32_fma(kOne, kOne, 0xBF800000u, kRm) == 0x80000000u);
}

TEST_CASE("f32 overflow by rounding mode") {
  const uint32_t max = 0x7F7FFFFFu;
  CHECK(f32_add(max, max, kRn) == kInf);
  CHECK(f32_add(max, max, kRz) == max);
  CHECK(f32_add(max, max, kRm) == max);
  CHECK(f32_add(max, max, kRp) == kInf);
  CHECK(f32_mul(0xFF7FFFFFu, fb(2.0f), kRm) == kNegInf);
  CHECK(f32_mul(0xFF7FFFFFu, fb(2.0f), kRp) == 0xFF7FFFFFu);
}

TEST_CASE("f32 div and rcp: 1/3 in every rounding mode, specials") {
  const uint32_t three = fb(3.0f);
  CHECK(f32_div(kOne, three, kRn) == 0x3EAAAAABu);
  CHECK(f32_div(kOne, three, kRz) == 0x3EAAAAAAu);
  CHECK(f32_div(kOne, three, kRm) == 0x3EAAAAAAu);
  CHECK(f32_div(kOne, three, kRp) == 0x3EAAAAABu);
  CHECK(f32_div(0xBF800000u, three, kRm) == 0xBEAAAAABu);
  CHECK(f32_div(0xBF800000u, three, kRp) == 0xBEAAAAAAu);
  CHECK(f32_rcp(three, kRz) == 0x3EAAAAAAu);
  CHECK(f32_div(kOne, 0u, kRn) == kInf);
  CHECK(f32_div(kOne, 0x80000000u, kRz) == kNegInf);
  CHECK(f32_div(0u, 0u, kRn) == kF32CanonicalNaN);
  CHECK(f32_div(kInf, kInf, kRp) == kF32CanonicalNaN);
  CHECK(f32_div(fb(6.0f), three, kRz) == fb(2.0f));  // exact stays exact
  // div.full: correctly rounded here (PTX allows 2 ulp).
  CHECK(f32_div(kOne, three, Rounding::None, false, true) == 0x3EAAAAABu);
}

TEST_CASE("f32 div.approx follows a * rcp.approx(b) and its special range") {
  CHECK(f32_div(kOne, 0x7F000000u, Rounding::None, true) == 0u);  // |b| = 2^127
  CHECK(f32_div(0xBF800000u, 0x7F000000u, Rounding::None, true) == 0x80000000u);
  CHECK(f32_div(kInf, 0x7F000000u, Rounding::None, true) == kF32CanonicalNaN);
  CHECK(f32_div(kOne, 0x7E800000u, Rounding::None, true) ==
        0x00800000u);  // |b| = 2^126: normal path
  std::mt19937 g(7);
  for (int i = 0; i < 20000; ++i) {
    const float a = std::ldexp(1.0f + (g() % 1000000) / 1e6f, static_cast<int>(g() % 60) - 30);
    const float b = std::ldexp(1.0f + (g() % 1000000) / 1e6f, static_cast<int>(g() % 60) - 30);
    const float got = as_f32(f32_div(fb(a), fb(b), Rounding::None, true));
    const double exact = static_cast<double>(a) / b;
    CHECK(std::fabs(got - exact) <= 2 * std::ldexp(1.0, std::ilogb(exact) - 23));
  }
}

TEST_CASE("f32 fma is fused: (1+u)^2 - (1+2u) = u^2") {
  const uint32_t a = 0x3F800001u, c = 0xBF800002u;
  CHECK(f32_fma(a, a, c) == 0x28800000u);
  CHECK(f32_add(f32_mul(a, a), c) == 0u);  // unfused loses it
  CHECK(f32_fma(a, a, c, kRz) == 0x28800000u);
  CHECK(f32_fma(kInf, 0u, kOne) == kF32CanonicalNaN);
}

TEST_CASE("f32 directed modes match the host FPU on random inputs (add/sub/mul/fma/div/sqrt)") {
  std::mt19937 g(12345);
  const Rounding modes[] = {kRn, kRz, kRm, kRp};
  const int fe[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  int mismatches = 0;
  for (int i = 0; i < 40000; ++i) {
    const uint32_t a = random_f32(g), b = random_f32(g), c = random_f32(g);
    const int m = i % 4;
    const float fa = as_f32(a), fbv = as_f32(b), fc = as_f32(c);
    auto expect = [&](int op) {
      const uint32_t r = fb(host_f32(op, op == 5 ? std::fabs(fa) : fa, fbv, fc, fe[m]));
      return f32_is_nan(r) ? kF32CanonicalNaN : r;
    };
    mismatches += f32_add(a, b, modes[m]) != expect(0);
    mismatches += f32_sub(a, b, modes[m]) != expect(1);
    mismatches += f32_mul(a, b, modes[m]) != expect(2);
    mismatches += f32_fma(a, b, c, modes[m]) != expect(3);
    mismatches += f32_div(a, b, modes[m]) != expect(4);
    mismatches += f32_sqrt(a & 0x7FFFFFFFu, modes[m]) != expect(5);
  }
  CHECK(mismatches == 0);
  CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("f32 subnormals with and without ftz") {
  const uint32_t tiny = 0x00000001u, min_normal = 0x00800000u, half = fb(0.5f);
  CHECK(f32_add(tiny, tiny) == 0x00000002u);
  CHECK(f32_add(tiny, tiny, kRn, true) == 0u);
  CHECK(f32_mul(min_normal, half) == 0x00400000u);
  CHECK(f32_mul(min_normal, half, kRn, true) == 0u);
  CHECK(f32_mul(0x80800000u, half, kRn, true) == 0x80000000u);  // sign-preserving zero
  CHECK(f32_mul(min_normal, half, kRz, true) == 0u);
  CHECK(f32_add(0x00400000u, kOne, kRn, true) == kOne);  // subnormal input flushed
  CHECK(f32_abs(0x80000001u, true) == 0u);
  CHECK(f32_neg(0x00000001u, true) == 0x80000000u);
  CHECK(f32_neg(0x00000001u) == 0x80000001u);
  CHECK(f32_sqrt(0x00000004u) == fb(std::sqrt(as_f32(0x00000004u))));
  CHECK(f32_sqrt(0x00000004u, kRn, false, true) == 0u);
}

TEST_CASE("f32 saturation and canonical NaN") {
  CHECK(f32_add(fb(0.75f), fb(0.5f), kRn, false, true) == kOne);
  CHECK(f32_add(fb(-1.0f), fb(0.5f), kRn, false, true) == 0u);
  CHECK(f32_mul(kInf, 0u, kRn, false, true) == 0u);  // NaN saturates to +0
  CHECK(f32_add(kInf, kNegInf) == kF32CanonicalNaN);
  CHECK(f32_add(0x7FC00001u, kOne) == kF32CanonicalNaN);
  CHECK(f32_add(0xFFC00000u, kOne, kRz) == kF32CanonicalNaN);
  CHECK(f32_fma(fb(0.5f), fb(0.5f), fb(0.25f), kRn, false, true) == fb(0.5f));
  CHECK(f32_add(0x80000000u, 0u, kRn, false, true) == 0u);  // -0 saturates to +0
}

TEST_CASE("f32 sqrt in every mode, rcp/sqrt approx") {
  const uint32_t two = fb(2.0f);
  CHECK(f32_sqrt(two, kRn) == 0x3FB504F3u);
  CHECK(f32_sqrt(two, kRz) == 0x3FB504F3u);
  CHECK(f32_sqrt(two, kRm) == 0x3FB504F3u);
  CHECK(f32_sqrt(two, kRp) == 0x3FB504F4u);
  CHECK(f32_sqrt(fb(-1.0f)) == kF32CanonicalNaN);
  CHECK(f32_sqrt(0x80000000u) == 0x80000000u);
  CHECK(f32_sqrt(kInf, kRz) == kInf);
  CHECK(f32_rcp(0u, Rounding::None, true) == kInf);
  CHECK(f32_rcp(0x80000000u, Rounding::None, true) == kNegInf);
  CHECK(f32_rcp(kNegInf, Rounding::None, true) == 0x80000000u);
  CHECK(f32_rcp(0x00000001u, Rounding::None, true) == kInf);        // 2^149 overflows
  CHECK(f32_rcp(0x00400000u, Rounding::None, true, true) == kInf);  // flushed input
  CHECK(f32_sqrt(fb(4.0f), Rounding::None, true) == fb(2.0f));
}

TEST_CASE("f32 SFU approximations stay within PTX bounds") {
  std::mt19937 g(99);
  std::uniform_real_distribution<float> trig(-100 * 3.14159265f, 100 * 3.14159265f);
  std::uniform_real_distribution<float> any(-60.f, 60.f);
  double worst_sin = 0, worst_cos = 0, worst_lg2 = 0, worst_ex2 = 0, worst_tanh = 0, worst_rsq = 0;
  for (int i = 0; i < 50000; ++i) {
    const float x = trig(g);
    worst_sin = std::max(worst_sin, std::fabs(as_f32(f32_sin(fb(x))) - std::sin(double{x})));
    worst_cos = std::max(worst_cos, std::fabs(as_f32(f32_cos(fb(x))) - std::cos(double{x})));
    const float p =
        std::ldexp(1.0f + (g() % 8388608) / 8388608.0f, static_cast<int>(g() % 250) - 125);
    // lg2: PTX bounds the absolute error (2^-22) for results near 0, the relative error elsewhere.
    const double l2 = std::log2(double{p});
    const double l2err = std::fabs(as_f32(f32_lg2(fb(p))) - l2);
    worst_lg2 = std::max(worst_lg2, std::fabs(l2) < 1 ? l2err : l2err / std::fabs(l2));
    const double rs = 1.0 / std::sqrt(double{p});
    worst_rsq = std::max(worst_rsq, std::fabs(as_f32(f32_rsqrt(fb(p))) - rs) / rs);
    const float e = any(g);
    const double ex = std::exp2(double{e});
    worst_ex2 = std::max(worst_ex2, std::fabs(as_f32(f32_ex2(fb(e))) - ex) / ex);
    const double th = std::tanh(double{x / 50});
    if (th != 0)
      worst_tanh =
          std::max(worst_tanh, std::fabs(as_f32(f32_tanh(fb(x / 50))) - th) / std::fabs(th));
  }
  CHECK(worst_sin <= std::ldexp(1.0, -20) / std::sqrt(2.0));  // 2^-20.5
  CHECK(worst_cos <= std::ldexp(1.0, -20) / std::sqrt(2.0));
  CHECK(worst_lg2 <= std::ldexp(1.0, -22));
  CHECK(worst_ex2 <= std::ldexp(1.0, -22));
  CHECK(worst_rsq <= std::ldexp(1.0, -22));
  CHECK(worst_tanh <= std::ldexp(1.0, -11));
}

TEST_CASE("f32 SFU special values") {
  CHECK(f32_lg2(0u) == kNegInf);
  CHECK(f32_lg2(0x80000000u) == kNegInf);
  CHECK(f32_lg2(fb(-1.0f)) == kF32CanonicalNaN);
  CHECK(f32_lg2(kInf) == kInf);
  CHECK(f32_lg2(0x00000001u) == fb(-149.0f));
  CHECK(f32_lg2(0x00000001u, true) == kNegInf);  // flushed to 0
  CHECK(f32_ex2(kNegInf) == 0u);
  CHECK(f32_ex2(kInf) == kInf);
  CHECK(f32_ex2(fb(128.0f)) == kInf);
  CHECK(f32_ex2(fb(-149.0f)) == 0x00000001u);
  CHECK(f32_ex2(fb(-149.0f), true) == 0u);  // subnormal result flushed
  CHECK(f32_ex2(fb(10.0f)) == fb(1024.0f));
  CHECK(f32_rsqrt(0u) == kInf);
  CHECK(f32_rsqrt(fb(-4.0f)) == kF32CanonicalNaN);
  CHECK(f32_rsqrt(kInf) == 0u);
  CHECK(f32_rsqrt(fb(4.0f)) == fb(0.5f));
  CHECK(f32_sin(kInf) == kF32CanonicalNaN);
  CHECK(f32_cos(0u) == kOne);
  CHECK(f32_sin(0x80000000u) == 0x80000000u);
  CHECK(f32_tanh(kInf) == kOne);
  CHECK(f32_tanh(kNegInf) == 0xBF800000u);
  CHECK(f32_tanh(0x80000000u) == 0x80000000u);
}

TEST_CASE("f32 min/max: NaN rules, signed zeros, .NaN, .xorsign.abs") {
  const uint32_t qnan = 0x7FC00000u, two = fb(2.0f), three = fb(3.0f);
  CHECK(f32_min(qnan, kOne) == kOne);
  CHECK(f32_max(kOne, qnan) == kOne);
  CHECK(f32_min(qnan, 0xFFC00001u) == kF32CanonicalNaN);
  CHECK(f32_min(qnan, kOne, false, true) == kF32CanonicalNaN);
  CHECK(f32_min(0u, 0x80000000u) == 0x80000000u);
  CHECK(f32_min(0x80000000u, 0u) == 0x80000000u);
  CHECK(f32_max(0x80000000u, 0u) == 0u);
  CHECK(f32_max(0u, 0x80000000u) == 0u);
  CHECK(f32_min(fb(-2.0f), three, false, false, true) == fb(-2.0f));
  CHECK(f32_max(fb(-2.0f), three, false, false, true) == fb(-3.0f));
  CHECK(f32_max(fb(-2.0f), fb(-3.0f), false, false, true) == three);
  CHECK(f32_min(0x00000001u, 0x80000002u) == 0x80000002u);
  CHECK(f32_min(0x00000001u, 0x80000002u, true) == 0x80000000u);  // both flush to ±0
  CHECK(f32_max(kNegInf, two) == two);
  CHECK(f32_copysign(0x80000000u, two) == fb(-2.0f));
  CHECK(f32_copysign(0u, fb(-2.0f)) == two);
}

TEST_CASE("testp on f32 and f64") {
  const uint32_t vals[] = {0u, 0x00000001u, kOne, kInf, 0x7FC00000u};
  //                          zero  subn  normal inf  nan
  const bool finite[] = {true, true, true, false, false};
  const bool normal[] = {false, false, true, false, false};
  const bool subn[] = {false, true, false, false, false};
  for (int i = 0; i < 5; ++i) {
    CHECK(f32_testp(vals[i], TestpMode::Finite) == finite[i]);
    CHECK(f32_testp(vals[i], TestpMode::Normal) == normal[i]);
    CHECK(f32_testp(vals[i], TestpMode::Subnormal) == subn[i]);
    CHECK(f32_testp(vals[i], TestpMode::Infinite) == (i == 3));
    CHECK(f32_testp(vals[i], TestpMode::NotANumber) == (i == 4));
    CHECK(f32_testp(vals[i], TestpMode::Number) == (i != 4));
  }
  CHECK(f64_testp(0x0000000000000001ull, TestpMode::Subnormal));
  CHECK(f64_testp(0xFFF0000000000000ull, TestpMode::Infinite));
  CHECK(f64_testp(db(1.0), TestpMode::Normal));
  CHECK(!f64_testp(0x7FF8000000000000ull, TestpMode::Number));
}

TEST_CASE("fcmp: ordered, unordered, num/nan, ftz") {
  const uint64_t one = kOne, two = fb(2.0f), nan = 0x7FC00000u;
  CHECK(fcmp(one, two, Type::F32, CmpOp::Lt));
  CHECK(!fcmp(one, nan, Type::F32, CmpOp::Lt));
  CHECK(fcmp(one, nan, Type::F32, CmpOp::Ltu));
  CHECK(!fcmp(nan, nan, Type::F32, CmpOp::Eq));
  CHECK(fcmp(nan, nan, Type::F32, CmpOp::Equ));
  CHECK(!fcmp(nan, one, Type::F32, CmpOp::Ne));
  CHECK(fcmp(nan, one, Type::F32, CmpOp::Neu));
  CHECK(fcmp(one, two, Type::F32, CmpOp::Num));
  CHECK(fcmp(one, nan, Type::F32, CmpOp::Nan));
  CHECK(fcmp(0u, 0x80000000u, Type::F32, CmpOp::Eq));
  CHECK(!fcmp(0x00000001u, 0u, Type::F32, CmpOp::Eq));
  CHECK(fcmp(0x00000001u, 0u, Type::F32, CmpOp::Eq, true));
  CHECK(fcmp(db(1.0), db(1.5), Type::F64, CmpOp::Le));
  CHECK(fcmp(db(2.0), db(1.5), Type::F64, CmpOp::Geu));
  CHECK(fcmp(0x3C00, 0x4000, Type::F16, CmpOp::Lt));
  CHECK(fcmp_x2(0x40003C00u, 0x3C004000u, Type::F16x2, CmpOp::Lt) == 1u);
  CHECK(fcmp_x2(0x40003C00u, 0x3C004000u, Type::F16x2, CmpOp::Gt) == 2u);
}

TEST_CASE("f64 arithmetic in every rounding mode") {
  const uint64_t one = db(1.0), three = db(3.0), eps_half = db(std::ldexp(1.0, -53));
  CHECK(f64_add(one, eps_half) == one);
  CHECK(f64_add(one, eps_half, kRp) == 0x3FF0000000000001ull);
  CHECK(f64_add(one, eps_half, kRz) == one);
  CHECK(f64_sub(one, eps_half, kRm) == 0x3FEFFFFFFFFFFFFFull);
  CHECK(f64_sub(one, one, kRm) == 0x8000000000000000ull);
  CHECK(f64_div(one, three) == 0x3FD5555555555555ull);
  CHECK(f64_div(one, three, kRp) == 0x3FD5555555555556ull);
  CHECK(f64_div(one, three, kRz) == 0x3FD5555555555555ull);
  CHECK(f64_rcp(three, kRm) == 0x3FD5555555555555ull);
  CHECK(f64_sqrt(db(2.0)) == 0x3FF6A09E667F3BCDull);
  CHECK(f64_sqrt(db(2.0), kRz) == 0x3FF6A09E667F3BCCull);
  CHECK(f64_add(db(0.1), db(0.2)) == 0x3FD3333333333334ull);
  CHECK(f64_mul(db(1e308), db(10.0), kRz) == 0x7FEFFFFFFFFFFFFFull);
  CHECK(f64_mul(db(1e308), db(10.0)) == 0x7FF0000000000000ull);
  const uint64_t a = 0x3FF0000000000001ull, c = 0xBFF0000000000002ull;
  CHECK(f64_fma(a, a, c) == db(std::ldexp(1.0, -104)));
  CHECK(f64_fma(a, a, c, kRm) == db(std::ldexp(1.0, -104)));
  CHECK(f64_mul(db(std::ldexp(1.0, -1074)), db(0.5), kRp) == 1ull);  // subnormals kept
  CHECK(f64_mul(db(std::ldexp(1.0, -1074)), db(0.5), kRn) == 0ull);
  CHECK(f64_add(db(INFINITY), db(-INFINITY)) == kF64CanonicalNaN);
  CHECK(f64_div(0, 0, kRz) == kF64CanonicalNaN);
  CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("f64 min/max/abs/neg/copysign and approximations") {
  CHECK(f64_min(0x7FF8000000000000ull, db(2.0)) == db(2.0));
  CHECK(f64_max(db(-1.0), 0x7FF8000000000000ull, true) == kF64CanonicalNaN);
  CHECK(f64_min(0, 0x8000000000000000ull) == 0x8000000000000000ull);
  CHECK(f64_abs(db(-3.0)) == db(3.0));
  CHECK(f64_neg(db(3.0)) == db(-3.0));
  CHECK(f64_copysign(db(-1.0), db(5.0)) == db(-5.0));
  const uint64_t r = f64_rcp(db(3.0), Rounding::None, true);
  CHECK((r & 0xFFFFFFFFull) == 0);
  CHECK(std::fabs(as_f64(r) - 1.0 / 3.0) < std::ldexp(1.0 / 3.0, -19));
  CHECK(f64_rcp(db(0.0), Rounding::None, true) == 0x7FF0000000000000ull);
  CHECK(f64_rcp(1ull, Rounding::None, true) == 0x7FF0000000000000ull);  // ftz: subnormal -> 0
  CHECK(f64_rsqrt(db(4.0)) == db(0.5));
  CHECK(f64_rsqrt(db(-4.0)) == kF64CanonicalNaN);
}
