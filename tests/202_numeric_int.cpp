// Integer and bit-manipulation semantics (sim/func/numeric_int.cpp): widths, signedness, shifts
// past the width, division by zero, carries, prmt modes, lop3 tables, bit-field ops.
#include <doctest/doctest.h>

#include <random>

#include "sim/func/numeric.h"

using namespace warplab::func::num;
using warplab::ptx::CmpOp;
using warplab::ptx::MulMode;
using warplab::ptx::PrmtMode;
using warplab::ptx::ShfMode;
using warplab::ptx::Type;

TEST_CASE("shifts past the width") {
  CHECK(shl(1, 31, Type::B32) == 0x80000000u);
  CHECK(shl(1, 32, Type::B32) == 0);
  CHECK(shl(1, 0xFFFFFFFFu, Type::B32) == 0);
  CHECK(shl(1, 64, Type::B64) == 0);
  CHECK(shl(0xFFFF, 4, Type::B16) == 0xFFF0);
  CHECK(shr(0x80000000u, 31, Type::U32) == 1);
  CHECK(shr(0x80000000u, 40, Type::U32) == 0);
  CHECK(shr(0x80000000u, 40, Type::B32) == 0);
  CHECK(shr(0xFFFFFFF8u, 1, Type::S32) == 0xFFFFFFFCu);
  CHECK(shr(0xFFFFFFF8u, 100, Type::S32) == 0xFFFFFFFFu);
  CHECK(shr(0x7FFFFFFFu, 100, Type::S32) == 0);
  CHECK(shr(0x8000, 20, Type::S16) == 0xFFFF);
  CHECK(shr(0x8000000000000000ull, 64, Type::S64) == ~0ull);
}

TEST_CASE("div/rem: signs, division by zero, INT_MIN / -1") {
  CHECK(int_div(7, 0, Type::U32) == 0xFFFFFFFFu);
  CHECK(int_div(7, 0, Type::S32) == 0xFFFFFFFFu);
  CHECK(int_div(0xFFFFFFF9u, 0, Type::S32) == 0xFFFFFFFFu);
  CHECK(int_rem(7, 0, Type::U32) == 0xFFFFFFFFu);
  CHECK(int_div(7, 0, Type::U64) == ~0ull);
  CHECK(int_div(0x80000000u, 0xFFFFFFFFu, Type::S32) == 0x80000000u);
  CHECK(int_rem(0x80000000u, 0xFFFFFFFFu, Type::S32) == 0);
  CHECK(int_div(0x8000000000000000ull, ~0ull, Type::S64) == 0x8000000000000000ull);
  CHECK(int_div(static_cast<uint32_t>(-7), 2, Type::S32) == static_cast<uint32_t>(-3));
  CHECK(int_rem(static_cast<uint32_t>(-7), 2, Type::S32) == static_cast<uint32_t>(-1));
  CHECK(int_rem(7, static_cast<uint32_t>(-2), Type::S32) == 1);
  CHECK(int_div(0xFFFFFFF9u, 2, Type::U32) == 0x7FFFFFFCu);
  CHECK(int_div(0xFFF9, 2, Type::S16) == 0xFFFD);
}

TEST_CASE("add/sub .sat and carry chains") {
  CHECK(int_add(0x7FFFFFFFu, 1, Type::S32, true) == 0x7FFFFFFFu);
  CHECK(int_add(0x7FFFFFFFu, 1, Type::S32) == 0x80000000u);
  CHECK(int_sub(0x80000000u, 1, Type::S32, true) == 0x80000000u);
  CHECK(int_add(0xFFFF, 1, Type::U16) == 0);
  auto lo = add_carry(0xFFFFFFFFu, 1, false, Type::U32);
  CHECK(lo.value == 0);
  CHECK(lo.carry);
  auto hi = add_carry(0, 0, lo.carry, Type::U32);
  CHECK(hi.value == 1);
  CHECK(!hi.carry);
  CHECK(add_carry(~0ull, ~0ull, true, Type::U64).value == ~0ull);
  CHECK(add_carry(~0ull, ~0ull, true, Type::U64).carry);
  auto s = sub_borrow(0, 1, false, Type::U32);
  CHECK(s.value == 0xFFFFFFFFu);
  CHECK(s.carry);
  CHECK(sub_borrow(5, 2, true, Type::U32).value == 2);
  CHECK(!sub_borrow(5, 2, true, Type::U32).carry);
  CHECK(sub_borrow(2, 2, true, Type::U32).carry);
}

TEST_CASE("mul lo/hi/wide and mad") {
  CHECK(int_mul(0xFFFFFFFFu, 0xFFFFFFFFu, Type::U32, MulMode::Hi) == 0xFFFFFFFEu);
  CHECK(int_mul(0xFFFFFFFFu, 0xFFFFFFFFu, Type::U32, MulMode::Lo) == 1);
  CHECK(int_mul(0xFFFFFFFFu, 0xFFFFFFFFu, Type::S32, MulMode::Hi) == 0);
  CHECK(int_mul(static_cast<uint32_t>(-2), 3, Type::S32, MulMode::Wide) == 0xFFFFFFFFFFFFFFFAull);
  CHECK(int_mul(0xFFFFFFFFu, 2, Type::U32, MulMode::Wide) == 0x1FFFFFFFEull);
  CHECK(int_mul(0xFFFF, 0xFFFF, Type::U16, MulMode::Wide) == 0xFFFE0001u);
  CHECK(int_mul(0xFFFF, 0xFFFF, Type::S16, MulMode::Wide) == 1);
  CHECK(int_mul(~0ull, ~0ull, Type::U64, MulMode::Hi) == 0xFFFFFFFFFFFFFFFEull);
  CHECK(int_mul(~0ull, ~0ull, Type::S64, MulMode::Hi) == 0);
  CHECK(int_mul(0x8000000000000000ull, 2, Type::S64, MulMode::Hi) == ~0ull);
  CHECK(int_mad(3, 4, 5, Type::U32, MulMode::Lo) == 17);
  CHECK(int_mad(0xFFFFFFFFu, 2, 1, Type::U32, MulMode::Wide) == 0x1FFFFFFFFull);
  // hi((2^31-1)^2) = 2^30-1; + INT_MAX overflows: .sat clamps, plain mad.hi wraps.
  CHECK(int_mad(0x7FFFFFFFu, 0x7FFFFFFFu, 0x7FFFFFFFu, Type::S32, MulMode::Hi, true) ==
        0x7FFFFFFFu);
  CHECK(int_mad(0x7FFFFFFFu, 0x7FFFFFFFu, 0x7FFFFFFFu, Type::S32, MulMode::Hi, false) ==
        0xBFFFFFFEu);
  CHECK(int_mad(0x7FFFFFFFu, 0x7FFFFFFFu, 1, Type::S32, MulMode::Hi, true) == 0x40000000u);
  CHECK(int_mad(0x40000000u, 0x7FFFFFFFu, 0x7FFFFFFFu, Type::S32, MulMode::Hi, true) ==
        0x7FFFFFFFu);
  auto mc = int_mad_carry(0xFFFFFFFFu, 1, 1, false, Type::U32, MulMode::Lo);
  CHECK(mc.value == 0);
  CHECK(mc.carry);
}

TEST_CASE("mul24 / mad24") {
  CHECK(mul24(0x00800000u, 2, Type::S32, false) == 0xFF000000u);  // bit 23 is the sign
  CHECK(mul24(0x00800000u, 2, Type::U32, false) == 0x01000000u);
  CHECK(mul24(0xFFFFFFu, 0xFFFFFFu, Type::U32, true) == 0xFFFFFE00u);
  CHECK(mul24(0xFF000003u, 5, Type::U32, false) == 15);  // upper byte ignored
  CHECK(mad24(3, 4, 5, Type::U32, false) == 17);
}

TEST_CASE("abs/neg/min/max/sad/cnot and icmp") {
  CHECK(int_abs(0x80000000u, Type::S32) == 0x80000000u);
  CHECK(int_abs(0xFFFFFFFBu, Type::S32) == 5);
  CHECK(int_abs(0xFFFB, Type::S16) == 5);
  CHECK(int_neg(5, Type::S32) == 0xFFFFFFFBu);
  CHECK(int_min(0xFFFFFFFFu, 1, Type::S32) == 0xFFFFFFFFu);
  CHECK(int_min(0xFFFFFFFFu, 1, Type::U32) == 1);
  CHECK(int_max(0xFFFFFFFFu, 1, Type::S32) == 1);
  CHECK(int_max(0x8000000000000000ull, 1, Type::U64) == 0x8000000000000000ull);
  CHECK(sad(static_cast<uint32_t>(-3), 4, 10, Type::S32) == 17);
  CHECK(sad(3, 5, 1, Type::U32) == 3);
  CHECK(sad(0xFFFFFFFFu, 0, 0, Type::U32) == 0xFFFFFFFFu);
  CHECK(cnot(0, Type::B32) == 1);
  CHECK(cnot(0x100000000ull, Type::B32) == 1);
  CHECK(cnot(7, Type::B16) == 0);
  CHECK(icmp(0xFFFFFFFFu, 0, Type::S32, CmpOp::Lt));
  CHECK(!icmp(0xFFFFFFFFu, 0, Type::U32, CmpOp::Lt));
  CHECK(icmp(0xFFFFFFFFu, 0, Type::S32, CmpOp::Hi));
  CHECK(icmp(5, 5, Type::U64, CmpOp::Hs));
  CHECK(icmp(0x1FFFF, 0xFFFF, Type::U16, CmpOp::Eq));  // read at the type's width
  CHECK(icmp(0x8000, 0x7FFF, Type::S16, CmpOp::Lt));
}

TEST_CASE("popc/clz/brev/bfind") {
  CHECK(popc(0xF0F0F0F0u, Type::B32) == 16);
  CHECK(popc(~0ull, Type::B64) == 64);
  CHECK(clz(0, Type::B32) == 32);
  CHECK(clz(1, Type::B32) == 31);
  CHECK(clz(0, Type::B64) == 64);
  CHECK(clz(0x80000000u, Type::B32) == 0);
  CHECK(brev(1, Type::B32) == 0x80000000u);
  CHECK(brev(0x12345678u, Type::B32) == 0x1E6A2C48u);
  CHECK(brev(1, Type::B64) == 0x8000000000000000ull);
  CHECK(bfind(0, Type::U32) == 0xFFFFFFFFu);
  CHECK(bfind(0x80000000u, Type::U32) == 31);
  CHECK(bfind(0x80000000u, Type::U32, true) == 0);
  CHECK(bfind(0xFFFFFFFFu, Type::S32) == 0xFFFFFFFFu);
  CHECK(bfind(0xFFFFFFFEu, Type::S32) == 0);
  CHECK(bfind(0x80000000u, Type::S32) == 30);
  CHECK(bfind(1, Type::U64, true) == 63);
}

TEST_CASE("bfe / bfi") {
  CHECK(bfe(0xABCD1234u, 8, 8, Type::U32) == 0x12);
  CHECK(bfe(0x00008000u, 8, 8, Type::S32) == 0xFFFFFF80u);
  CHECK(bfe(0x00008000u, 8, 0, Type::S32) == 0);
  CHECK(bfe(0xF0000000u, 28, 8, Type::U32) == 0xF);
  CHECK(bfe(0xF0000000u, 28, 8, Type::S32) == 0xFFFFFFFFu);  // field runs past the msb
  CHECK(bfe(0x80000000u, 40, 4, Type::S32) == 0xFFFFFFFFu);  // start past the msb: sign fill
  CHECK(bfe(0x80000000u, 40, 4, Type::U32) == 0);
  CHECK(bfe(0x12345678u, 0x104, 0x208, Type::U32) == 0x67);  // only the low 8 bits count
  CHECK(bfe(0x8000000000000000ull, 60, 4, Type::S64) == 0xFFFFFFFFFFFFFFF8ull);
  CHECK(bfi(0xF, 0, 4, 4, Type::B32) == 0xF0);
  CHECK(bfi(0xFF, 0, 28, 8, Type::B32) == 0xF0000000u);
  CHECK(bfi(0, 0xFFFFFFFFu, 8, 8, Type::B32) == 0xFFFF00FFu);
  CHECK(bfi(0xF, 0x12345678u, 4, 0, Type::B32) == 0x12345678u);
  CHECK(bfi(1, 0, 63, 1, Type::B64) == 0x8000000000000000ull);
}

TEST_CASE("fns") {
  const uint32_t m = 0b10110;
  CHECK(fns(m, 0, 1) == 1);
  CHECK(fns(m, 0, 2) == 2);
  CHECK(fns(m, 0, 3) == 4);
  CHECK(fns(m, 0, 4) == 0xFFFFFFFFu);
  CHECK(fns(m, 4, -1) == 4);
  CHECK(fns(m, 4, -2) == 2);
  CHECK(fns(m, 4, -4) == 0xFFFFFFFFu);
  CHECK(fns(m, 1, 0) == 1);
  CHECK(fns(m, 0, 0) == 0xFFFFFFFFu);
}

TEST_CASE("prmt: default selector and every mode") {
  const uint32_t a = 0x33221100u, b = 0x77665544u;
  CHECK(prmt(a, b, 0x3210, PrmtMode::None) == a);
  CHECK(prmt(a, b, 0x7654, PrmtMode::None) == b);
  CHECK(prmt(a, b, 0x0123, PrmtMode::None) == 0x00112233u);
  CHECK(prmt(0x00008000u, 0, 0x0009, PrmtMode::None) == 0x000000FFu);  // sign replicate
  CHECK(prmt(0x00007F00u, 0, 0x0009, PrmtMode::None) == 0x00000000u);
  CHECK(prmt(a, b, 1, PrmtMode::F4e) == 0x44332211u);
  CHECK(prmt(a, b, 3, PrmtMode::F4e) == 0x66554433u);
  CHECK(prmt(a, b, 0, PrmtMode::B4e) == 0x55667700u);
  CHECK(prmt(a, b, 3, PrmtMode::B4e) == 0x00112233u);
  CHECK(prmt(a, b, 2, PrmtMode::Rc8) == 0x22222222u);
  CHECK(prmt(a, b, 1, PrmtMode::Ecl) == 0x33221111u);
  CHECK(prmt(a, b, 2, PrmtMode::Ecr) == 0x22221100u);
  CHECK(prmt(a, b, 1, PrmtMode::Rc16) == 0x33223322u);
  CHECK(prmt(a, b, 0x10, PrmtMode::Rc16) == 0x11001100u);  // only c[1:0] matters
}

TEST_CASE("lop3: named tables and every immLut bitwise") {
  const uint32_t a = 0xF0F0F0F0u, b = 0xCCCCCCCCu, c = 0xAAAAAAAAu;
  for (int lut = 0; lut < 256; ++lut) {
    // With the canonical inputs, lop3 reproduces its own table in every byte.
    CHECK(lop3(a, b, c, static_cast<uint8_t>(lut)) == 0x01010101u * static_cast<uint32_t>(lut));
  }
  std::mt19937 g(3);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t x = g(), y = g(), z = g();
    CHECK(lop3(x, y, z, 0x96) == (x ^ y ^ z));
    CHECK(lop3(x, y, z, 0xE8) == ((x & y) | (x & z) | (y & z)));
    CHECK(lop3(x, y, z, 0xCA) == ((x & y) | (~x & z)));  // select
  }
}

TEST_CASE("shf funnel shifts") {
  const uint32_t a = 0x12345678u, b = 0x9ABCDEF0u;
  CHECK(shf(a, b, 8, ShfMode::LeftWrap) == 0xBCDEF012u);
  CHECK(shf(a, b, 40, ShfMode::LeftWrap) == 0xBCDEF012u);
  CHECK(shf(a, b, 40, ShfMode::LeftClamp) == a);
  CHECK(shf(a, b, 0, ShfMode::LeftClamp) == b);
  CHECK(shf(a, b, 8, ShfMode::RightWrap) == 0xF0123456u);
  CHECK(shf(a, b, 40, ShfMode::RightClamp) == b);
  CHECK(shf(a, b, 32, ShfMode::RightWrap) == a);  // 32 & 31 = 0
}

TEST_CASE("dp4a / dp2a") {
  const uint32_t a = 0xFF02FF01u;  // bytes 1, -1, 2, -1 (or 1, 255, 2, 255)
  CHECK(dp4a(a, 0x01010101u, 10, true, true) == 11);
  CHECK(dp4a(a, 0x01010101u, 0, false, false) == 513);
  CHECK(dp4a(0x80808080u, 0x80808080u, 0, true, true) == 4 * 16384);
  CHECK(dp4a(0x80808080u, 0x80808080u, 0, true, false) == static_cast<uint32_t>(-4 * 16384));
  CHECK(dp2a(0xFFFF0002u, 0x03020100u, 0, true, true, false) == 0xFFFFFFFFu);  // 2*0 + (-1)*1
  CHECK(dp2a(0xFFFF0002u, 0x03020100u, 0, true, true, true) == 1);             // 2*2 + (-1)*3
  CHECK(dp2a(0xFFFF0002u, 0x03020100u, 0, false, false, true) == 4 + 0xFFFF * 3);
}
