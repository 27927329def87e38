// cvt semantics (sim/func/numeric_convert.cpp): float->int saturation and integer rounding,
// float->float narrowing in every rounding mode, int->float rounding, int->int .sat, and a sweep
// over every type pair.
#include <doctest/doctest.h>

#include <cmath>

#include "sim/func/numeric.h"

using namespace warplab::func::num;
using warplab::ptx::Rounding;
using warplab::ptx::Type;

namespace {
uint64_t fb(float f) { return bits_f32(f); }
uint64_t db(double d) { return bits_f64(d); }
}  // namespace

TEST_CASE("cvt float -> int: saturation, NaN, integer rounding") {
  CHECK(cvt(fb(3e9f), Type::S32, Type::F32, Rounding::Rzi) == 0x7FFFFFFFu);
  CHECK(cvt(fb(-3e9f), Type::S32, Type::F32, Rounding::Rzi) == 0x80000000u);
  CHECK(cvt(fb(NAN), Type::S32, Type::F32, Rounding::Rzi) == 0);
  CHECK(cvt(fb(INFINITY), Type::S32, Type::F32, Rounding::Rni) == 0x7FFFFFFFu);
  CHECK(cvt(fb(3e9f), Type::U32, Type::F32, Rounding::Rzi) == 3000000000u);
  CHECK(cvt(fb(-1.0f), Type::U32, Type::F32, Rounding::Rzi) == 0);
  CHECK(cvt(fb(300.0f), Type::U8, Type::F32, Rounding::Rzi) == 255);
  CHECK(cvt(fb(-200.0f), Type::S8, Type::F32, Rounding::Rzi) == 0x80);
  CHECK(cvt(fb(-5.0f), Type::S16, Type::F32, Rounding::Rzi) == 0xFFFB);
  CHECK(cvt(db(1e300), Type::S64, Type::F64, Rounding::Rzi) == 0x7FFFFFFFFFFFFFFFull);
  CHECK(cvt(db(0x1p64), Type::U64, Type::F64, Rounding::Rzi) == ~0ull);
  CHECK(cvt(fb(-0x1p63f), Type::S64, Type::F32, Rounding::Rzi) == 0x8000000000000000ull);
  CHECK(cvt(fb(2.5f), Type::S32, Type::F32, Rounding::Rni) == 2);
  CHECK(cvt(fb(3.5f), Type::S32, Type::F32, Rounding::Rni) == 4);
  CHECK(cvt(fb(-2.5f), Type::S32, Type::F32, Rounding::Rni) == static_cast<uint32_t>(-2));
  CHECK(cvt(fb(-0.5f), Type::S32, Type::F32, Rounding::Rzi) == 0);
  CHECK(cvt(fb(2.7f), Type::S32, Type::F32, Rounding::Rmi) == 2);
  CHECK(cvt(fb(-2.3f), Type::S32, Type::F32, Rounding::Rmi) == static_cast<uint32_t>(-3));
  CHECK(cvt(fb(2.1f), Type::S32, Type::F32, Rounding::Rpi) == 3);
  CHECK(cvt(fb(2.9f), Type::S32, Type::F32, Rounding::None) == 2);  // None taken as rzi
  CHECK(cvt(0x3E00, Type::S32, Type::F16, Rounding::Rni) == 2);     // f16 1.5 -> 2
  // ftz on an f32 source: a positive subnormal rounds up to 1 only without ftz.
  CHECK(cvt(1, Type::S32, Type::F32, Rounding::Rpi) == 1);
  CHECK(cvt(1, Type::S32, Type::F32, Rounding::Rpi, false, true) == 0);
}

TEST_CASE("cvt float -> float with integer rounding") {
  CHECK(cvt(fb(-0.5f), Type::F32, Type::F32, Rounding::Rni) == 0x80000000u);
  CHECK(cvt(fb(0.5f), Type::F32, Type::F32, Rounding::Rni) == 0);
  CHECK(cvt(fb(1.5f), Type::F32, Type::F32, Rounding::Rni) == fb(2.0f));
  CHECK(cvt(fb(-0.5f), Type::F32, Type::F32, Rounding::Rpi) == 0x80000000u);
  CHECK(cvt(fb(-0.5f), Type::F32, Type::F32, Rounding::Rmi) == fb(-1.0f));
  CHECK(cvt(fb(0x1p30f), Type::F32, Type::F32, Rounding::Rzi) == fb(0x1p30f));
  CHECK(cvt(db(2.5), Type::F64, Type::F64, Rounding::Rni) == db(2.0));
  CHECK(cvt(db(-2.7), Type::F64, Type::F64, Rounding::Rzi) == db(-2.0));
  CHECK(cvt(fb(NAN), Type::F32, Type::F32, Rounding::Rni) == kF32CanonicalNaN);
  CHECK(cvt(fb(INFINITY), Type::F32, Type::F32, Rounding::Rni) == 0x7F800000u);
  CHECK(cvt(fb(2.5f), Type::F16, Type::F32, Rounding::Rni) == 0x4000);
}

TEST_CASE("cvt f32 same type: ftz and sat") {
  CHECK(cvt(0x00000005u, Type::F32, Type::F32, Rounding::None, false, true) == 0);
  CHECK(cvt(0x80000005u, Type::F32, Type::F32, Rounding::None, false, true) == 0x80000000u);
  CHECK(cvt(0x00000005u, Type::F32, Type::F32) == 5);
  CHECK(cvt(fb(1.5f), Type::F32, Type::F32, Rounding::None, true) == fb(1.0f));
  CHECK(cvt(fb(NAN), Type::F32, Type::F32, Rounding::None, true) == 0);
  CHECK(cvt(fb(-0.0f), Type::F32, Type::F32, Rounding::None, true) == 0);
}

TEST_CASE("cvt narrowing to f16 in every mode, overflow and subnormals") {
  CHECK(cvt(fb(1.0f), Type::F16, Type::F32, Rounding::Rn) == 0x3C00);
  CHECK(cvt(fb(65504.0f), Type::F16, Type::F32, Rounding::Rn) == 0x7BFF);
  CHECK(cvt(fb(65519.0f), Type::F16, Type::F32, Rounding::Rn) == 0x7BFF);
  CHECK(cvt(fb(65520.0f), Type::F16, Type::F32, Rounding::Rn) == 0x7C00);  // tie rounds to inf
  CHECK(cvt(fb(1e6f), Type::F16, Type::F32, Rounding::Rz) == 0x7BFF);
  CHECK(cvt(fb(-1e6f), Type::F16, Type::F32, Rounding::Rm) == 0xFC00);
  CHECK(cvt(fb(-1e6f), Type::F16, Type::F32, Rounding::Rp) == 0xFBFF);
  CHECK(cvt(fb(0x1p-24f), Type::F16, Type::F32, Rounding::Rn) == 0x0001);
  CHECK(cvt(fb(0x1p-25f), Type::F16, Type::F32, Rounding::Rn) == 0x0000);  // tie to even 0
  CHECK(cvt(fb(0x1p-25f), Type::F16, Type::F32, Rounding::Rp) == 0x0001);
  CHECK(cvt(fb(0x1.8p-25f), Type::F16, Type::F32, Rounding::Rn) == 0x0001);
  CHECK(cvt(fb(-0x1p-30f), Type::F16, Type::F32, Rounding::Rm) == 0x8001);
  CHECK(cvt(fb(-0x1p-30f), Type::F16, Type::F32, Rounding::Rn) == 0x8000);
  CHECK(cvt(fb(0x1.ffcp-15f), Type::F16, Type::F32, Rounding::Rn) ==
        0x0400);  // rounds up to min normal
  CHECK(cvt(fb(1.0f / 3), Type::F16, Type::F32, Rounding::Rn) == 0x3555);
  CHECK(cvt(fb(1.0f / 3), Type::F16, Type::F32, Rounding::Rp) == 0x3556);
  CHECK(cvt(fb(NAN), Type::F16, Type::F32, Rounding::Rn) == 0x7FFF);
  CHECK(cvt(fb(-INFINITY), Type::F16, Type::F32, Rounding::Rz) == 0xFC00);
  CHECK(cvt(fb(-1.0f), Type::F16, Type::F32, Rounding::Rn, false, false, true) == 0);  // relu
  CHECK(cvt(fb(NAN), Type::F16, Type::F32, Rounding::Rn, false, false, true) == 0x7FFF);
  CHECK(cvt(db(1.0 / 3), Type::F16, Type::F64, Rounding::Rn) == 0x3555);
  CHECK(cvt_pack_x2(fb(1.0f), fb(2.0f), Type::F16x2) == 0x3C004000u);
  CHECK(cvt_pack_x2(fb(1e6f), fb(-1.0f), Type::F16x2, Rounding::Rn, true, true) == 0x7BFF0000u);
  CHECK(cvt_pack_x2(fb(1.0f), fb(2.0f), Type::BF16x2) == 0x3F804000u);
}

TEST_CASE("cvt widening f16/bf16 -> f32/f64 is exact") {
  CHECK(cvt(0x3C00, Type::F32, Type::F16) == fb(1.0f));
  CHECK(cvt(0x0001, Type::F32, Type::F16) == fb(0x1p-24f));
  CHECK(cvt(0x7C00, Type::F32, Type::F16) == 0x7F800000u);
  CHECK(cvt(0xFBFF, Type::F64, Type::F16) == db(-65504.0));
  CHECK(cvt(0x3F81, Type::F32, Type::BF16) == 0x3F810000u);
  CHECK(cvt(0x7E00, Type::F32, Type::F16) == kF32CanonicalNaN);
  CHECK(bits_f32(f16_to_f32(0x8001)) == fb(-0x1p-24f));
  CHECK(bits_f32(bf16_to_f32(0xC000)) == fb(-2.0f));
}

TEST_CASE("cvt to bf16 rounding") {
  CHECK(cvt(0x3F808000u, Type::BF16, Type::F32, Rounding::Rn) == 0x3F80);  // tie to even
  CHECK(cvt(0x3F818000u, Type::BF16, Type::F32, Rounding::Rn) == 0x3F82);
  CHECK(cvt(0x3F81FFFFu, Type::BF16, Type::F32, Rounding::Rz) == 0x3F81);
  CHECK(cvt(0x3F810001u, Type::BF16, Type::F32, Rounding::Rp) == 0x3F82);
  CHECK(cvt(0x7F7FFFFFu, Type::BF16, Type::F32, Rounding::Rn) == 0x7F80);
  CHECK(cvt(0x7F7FFFFFu, Type::BF16, Type::F32, Rounding::Rz) == 0x7F7F);
  CHECK(f32_to_bf16(1.0f) == 0x3F80);
  CHECK(f32_to_f16(2.0f) == 0x4000);
}

TEST_CASE("cvt f64 -> f32 rounding, subnormals, ftz") {
  CHECK(cvt(db(1.0 / 3), Type::F32, Type::F64, Rounding::Rn) == 0x3EAAAAABu);
  CHECK(cvt(db(1.0 / 3), Type::F32, Type::F64, Rounding::Rz) == 0x3EAAAAAAu);
  CHECK(cvt(db(-1.0 / 3), Type::F32, Type::F64, Rounding::Rm) == 0xBEAAAAABu);
  CHECK(cvt(db(1.7976931348623157e308), Type::F32, Type::F64, Rounding::Rn) == 0x7F800000u);
  CHECK(cvt(db(1.7976931348623157e308), Type::F32, Type::F64, Rounding::Rz) == 0x7F7FFFFFu);
  CHECK(cvt(db(0x1p-1074), Type::F32, Type::F64, Rounding::Rn) == 0);
  CHECK(cvt(db(0x1p-1074), Type::F32, Type::F64, Rounding::Rp) == 1);
  CHECK(cvt(db(0x1p-130), Type::F32, Type::F64, Rounding::Rn) == 0x00080000u);
  CHECK(cvt(db(0x1p-130), Type::F32, Type::F64, Rounding::Rn, false, true) == 0);
  CHECK(cvt(db(NAN), Type::F32, Type::F64, Rounding::Rn) == kF32CanonicalNaN);
  CHECK(cvt(fb(0.1f), Type::F64, Type::F32) == db(static_cast<double>(0.1f)));
  CHECK(cvt(1, Type::F64, Type::F32, Rounding::None, false, true) == 0);  // ftz input
}

TEST_CASE("cvt int -> float rounding") {
  CHECK(cvt(0xFFFFFFFFu, Type::F32, Type::U32, Rounding::Rn) == 0x4F800000u);
  CHECK(cvt(0xFFFFFFFFu, Type::F32, Type::U32, Rounding::Rz) == 0x4F7FFFFFu);
  CHECK(cvt(16777217, Type::F32, Type::S32, Rounding::Rn) == 0x4B800000u);
  CHECK(cvt(16777217, Type::F32, Type::S32, Rounding::Rp) == 0x4B800001u);
  CHECK(cvt(static_cast<uint32_t>(-16777217), Type::F32, Type::S32, Rounding::Rm) == 0xCB800001u);
  CHECK(cvt(~0ull, Type::F64, Type::U64, Rounding::Rn) == 0x43F0000000000000ull);
  CHECK(cvt(~0ull, Type::F64, Type::U64, Rounding::Rz) == 0x43EFFFFFFFFFFFFFull);
  CHECK(cvt(~0ull, Type::F32, Type::U64, Rounding::Rz) == 0x5F7FFFFFu);
  CHECK(cvt(0x8000000000000000ull, Type::F64, Type::S64) == 0xC3E0000000000000ull);
  CHECK(cvt(0xFFFFFFFFu, Type::F32, Type::S32) == fb(-1.0f));
  CHECK(cvt(0xFFFF, Type::F16, Type::U16, Rounding::Rn) == 0x7C00);
  CHECK(cvt(0xFFFF, Type::F16, Type::U16, Rounding::Rz) == 0x7BFF);
  CHECK(cvt(0x80, Type::F32, Type::S8) == fb(-128.0f));
  CHECK(cvt(0x80, Type::F32, Type::U8) == fb(128.0f));
  CHECK(cvt(0, Type::F32, Type::S32) == 0);
  CHECK(cvt(5, Type::F32, Type::U32, Rounding::Rn, true) == fb(1.0f));  // .sat on the float result
}

TEST_CASE("cvt int -> int: extension, truncation, .sat") {
  CHECK(cvt(0x80, Type::S32, Type::S8) == 0xFFFFFF80u);
  CHECK(cvt(0x80, Type::S32, Type::U8) == 0x80);
  CHECK(cvt(0xFFFFFFFFu, Type::U16, Type::S32) == 0xFFFF);
  CHECK(cvt(0xFFFFFFFFu, Type::S64, Type::S32) == ~0ull);
  CHECK(cvt(0xFFFFFFFFu, Type::U64, Type::U32) == 0xFFFFFFFFu);
  CHECK(cvt(0xFFFFFFFFu, Type::U16, Type::S32, Rounding::None, true) == 0);
  CHECK(cvt(70000, Type::U16, Type::S32, Rounding::None, true) == 0xFFFF);
  CHECK(cvt(200, Type::S8, Type::S32, Rounding::None, true) == 0x7F);
  CHECK(cvt(static_cast<uint32_t>(-200), Type::S8, Type::S32, Rounding::None, true) == 0x80);
  CHECK(cvt(0xFFFFFFFFu, Type::S32, Type::U32, Rounding::None, true) == 0x7FFFFFFFu);
  CHECK(cvt(static_cast<uint64_t>(-5), Type::U32, Type::S64, Rounding::None, true) == 0);
  CHECK(cvt(~0ull, Type::S64, Type::U64, Rounding::None, true) == 0x7FFFFFFFFFFFFFFFull);
  CHECK(cvt(0x1234, Type::U8, Type::U16) == 0x34);
}

TEST_CASE("cvt every type pair: small integers survive the round trip") {
  const Type all[] = {Type::U8,  Type::U16, Type::U32, Type::U64,  Type::S8,  Type::S16,
                      Type::S32, Type::S64, Type::F16, Type::BF16, Type::F32, Type::F64};
  auto encode = [](Type t, int v) -> uint64_t {  // v in [-100, 100]
    switch (t) {
      case Type::F16:
        return cvt(static_cast<uint32_t>(v), Type::F16, Type::S32);
      case Type::BF16:
        return cvt(static_cast<uint32_t>(v), Type::BF16, Type::S32);
      case Type::F32:
        return bits_f32(static_cast<float>(v));
      case Type::F64:
        return bits_f64(static_cast<double>(v));
      default:
        return static_cast<uint64_t>(static_cast<int64_t>(v)) &
               width_mask(warplab::ptx::type_bits(t));
    }
  };
  int checked = 0;
  for (Type s : all) {
    for (Type d : all) {
      for (int v : {0, 1, 7, 100, -1, -100}) {
        const bool s_unsigned = warplab::ptx::is_unsigned_int(s),
                   d_unsigned = warplab::ptx::is_unsigned_int(d);
        if (v < 0 && (s_unsigned || d_unsigned)) continue;
        const bool d_float = warplab::ptx::is_float(d), s_float = warplab::ptx::is_float(s);
        const Rounding r = (!d_float && s_float) ? Rounding::Rzi : Rounding::None;
        CHECK(cvt(encode(s, v), d, s, r) == encode(d, v));
        ++checked;
      }
    }
  }
  CHECK(checked > 500);
}
