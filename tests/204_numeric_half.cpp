// f16/bf16 scalar and x2 semantics (sim/func/numeric_half.cpp): one rounding per result, ftz,
// sat, relu, per-half independence, min/max NaN rules, approximations within bounds.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/func/numeric.h"

using namespace warplab::func::num;
using warplab::ptx::Rounding;
using warplab::ptx::Type;

TEST_CASE("f16 add: ties, rounding modes, overflow, sat") {
  const uint32_t one = 0x3C00, half_ulp = 0x1000;  // 2^-11
  CHECK(half_add(Type::F16, one, half_ulp) == one);
  CHECK(half_add(Type::F16, one, half_ulp, Rounding::Rp) == 0x3C01);
  CHECK(half_add(Type::F16, one, 0x1200, Rounding::Rn) == 0x3C01);  // 0.75 ulp
  CHECK(half_add(Type::F16, one, 0x1200, Rounding::Rz) == one);
  CHECK(half_add(Type::F16, 0x7BFF, 0x7BFF) == 0x7C00);
  CHECK(half_add(Type::F16, 0x7BFF, 0x7BFF, Rounding::Rz) == 0x7BFF);
  CHECK(half_add(Type::F16, 0x7BFF, 0x7BFF, Rounding::Rn, false, true) == 0x3C00);
  CHECK(half_add(Type::F16, 0xBC00, 0x3800, Rounding::Rn, false, true) == 0);
  CHECK(half_add(Type::F16, 0x7C00, 0xFC00) == 0x7FFF);
  CHECK(half_add(Type::F16, 0x7E01, one) == 0x7FFF);
  CHECK(half_sub(Type::F16, one, one) == 0);
  CHECK(half_sub(Type::F16, one, one, Rounding::Rm) == 0x8000);
  CHECK(half_mul(Type::F16, 0x4000, 0x4200) == 0x4600);  // 2 * 3 = 6
}

TEST_CASE("f16 fma is fused; ftz flushes subnormal results; relu") {
  // (1+u)^2 - (1+2u) = u^2 = 2^-20: an f16 subnormal (16 * 2^-24).
  CHECK(half_fma(Type::F16, 0x3C01, 0x3C01, 0xBC02) == 0x0010);
  CHECK(half_fma(Type::F16, 0x3C01, 0x3C01, 0xBC02, Rounding::Rn, true) == 0);
  CHECK(half_add(Type::F16, 0x0001, 0x0001) == 0x0002);
  CHECK(half_add(Type::F16, 0x0001, 0x0001, Rounding::Rn, true) == 0);
  CHECK(half_fma(Type::F16, 0xBC00, 0x3C00, 0, Rounding::Rn, false, false, true) == 0);
  CHECK(half_fma(Type::F16, 0x7C00, 0, 0x3C00, Rounding::Rn, false, false, true) == 0x7FFF);
  // 2^15 * 2^-14 + 2^-24 = 2 + 2^-24: only the directed mode sees the tiny addend.
  CHECK(half_fma(Type::F16, 0x7800, 0x0400, 0x0001, Rounding::Rp) == 0x4001);
  CHECK(half_fma(Type::F16, 0x7800, 0x0400, 0x0001, Rounding::Rn) == 0x4000);
}

TEST_CASE("x2 types operate on each half independently") {
  CHECK(half_add(Type::F16x2, 0x40003C00u, 0x3C003C00u) == 0x42004000u);
  CHECK(half_mul(Type::F16x2, 0x7BFF4000u, 0x40004000u) == 0x7C004400u);
  CHECK(half_neg(Type::F16x2, 0x3C00BC00u) == 0xBC003C00u);
  CHECK(half_abs(Type::BF16x2, 0xBF80BF80u) == 0x3F803F80u);
  CHECK(half_fma(Type::BF16x2, 0x3F804000u, 0x40003F80u, 0x3F800000u) == 0x40404000u);
  CHECK(half_add(Type::F16, 0xFFFF3C00u, 0x3C00) == 0x4000);  // scalar ignores the high half
}

TEST_CASE("bf16 arithmetic rounds once from the exact result") {
  CHECK(half_add(Type::BF16, 0x3F80, 0x3B80) == 0x3F80);  // 1 + 2^-8: tie to even
  CHECK(half_add(Type::BF16, 0x3F80, 0x3B80, Rounding::Rp) == 0x3F81);
  CHECK(half_add(Type::BF16, 0x3F80, 0x0001, Rounding::Rp) == 0x3F81);  // far apart: sticky kept
  CHECK(half_add(Type::BF16, 0x3F80, 0x0001) == 0x3F80);
  CHECK(half_mul(Type::BF16, 0x3FC0, 0x3FC0) == 0x4010);  // 1.5 * 1.5 = 2.25
  CHECK(half_mul(Type::BF16, 0x7F7F, 0x4000) == 0x7F80);
  CHECK(half_fma(Type::BF16, 0x3F81, 0x3F81, 0xBF82) == 0x3880);  // 2^-14 exactly
}

TEST_CASE("half min/max: NaN rules, signed zero, xorsign, relu") {
  CHECK(half_min(Type::F16, 0x7E00, 0x3C00) == 0x3C00);
  CHECK(half_min(Type::F16, 0x7E00, 0x3C00, false, true) == 0x7FFF);
  CHECK(half_max(Type::F16, 0x8000, 0x0000) == 0x0000);
  CHECK(half_min(Type::F16, 0x0000, 0x8000) == 0x8000);
  CHECK(half_min(Type::F16, 0xC000, 0x4200, false, false, true) == 0xC000);
  CHECK(half_max(Type::F16x2, 0xBC004000u, 0x3C00C000u) == 0x3C004000u);
  CHECK(half_max(Type::BF16, 0xBF80, 0xC000, false, false, false, true) == 0);
  CHECK(half_min(Type::F16, 0x0001, 0x8002, true) == 0x8000);
}

TEST_CASE("half ex2/tanh within bounds over every f16 input") {
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const double x = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(x)) {
      bad += half_ex2(Type::F16, h) != 0x7FFF;
      continue;
    }
    const double e = std::exp2(x), t = std::tanh(x);
    const double ge = f16_to_f32(static_cast<uint16_t>(half_ex2(Type::F16, h)));
    const double gt = f16_to_f32(static_cast<uint16_t>(half_tanh(Type::F16, h)));
    if (e >= 0x1p-14 && e <= 65504) bad += std::fabs(ge - e) > e * std::ldexp(1.0, -10);
    if (std::fabs(t) >= 0x1p-14) bad += std::fabs(gt - t) > std::fabs(t) * std::ldexp(1.0, -8);
  }
  CHECK(bad == 0);
  CHECK(half_ex2(Type::F16, 0xFC00) == 0);
  CHECK(half_ex2(Type::F16x2, 0x3C000000u) == 0x40003C00u);
  CHECK(half_tanh(Type::BF16, 0x7F80) == 0x3F80);
}
