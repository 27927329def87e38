// Integer and bit-manipulation instructions: the SM's integer ALU (IMAD, IADD3, LOP3, SHF, PRMT,
// FLO, POPC, BREV in SASS).
//
// What the hardware does: all of these are exact; PTX defines every result bit except for
// division by zero. Some PTX instructions have no single SASS counterpart: integer div/rem is a
// compiler-generated sequence (a float reciprocal estimate refined with IMAD.HI), 64-bit multiply
// is built from 32-bit IMADs, and bfe/bfi on recent GPUs become shift/LOP3 sequences. WarpLab
// computes the PTX-defined result directly; only the instruction counts differ from SASS.
//
// Division by zero (PTX: unspecified): WarpLab returns what nvcc's sequences return on the GPU:
// all ones (0xFFFFFFFF, i.e. -1 for signed types) for both the quotient and the remainder.
// Overflowing INT_MIN / -1 wraps to INT_MIN, and INT_MIN % -1 is 0.
#include <bit>

#include "sim/func/numeric.h"

namespace warplab::func::num {

namespace {

int bits_of(Type t) { return ptx::type_bits(t); }
bool is_signed(Type t) { return ptx::is_signed_int(t); }
// The operand read at the type's width, as a signed or zero-extended 64-bit value.
int64_t sval(uint64_t v, Type t) { return sign_extend(v, bits_of(t)); }
uint64_t uval(uint64_t v, Type t) { return v & width_mask(bits_of(t)); }
uint64_t out(uint64_t v, Type t) { return v & width_mask(bits_of(t)); }
using i128 = __int128;
using u128 = unsigned __int128;
i128 wide(uint64_t v, Type t) { return is_signed(t) ? i128{sval(v, t)} : i128{uval(v, t)}; }
int64_t clamp_s32(i128 v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : static_cast<int64_t>(v);
}

}  // namespace

uint64_t int_add(uint64_t a, uint64_t b, Type t, bool sat) {
  if (sat && t == Type::S32)
    return out(static_cast<uint64_t>(clamp_s32(i128{sval(a, t)} + sval(b, t))), t);
  return out(a + b, t);
}
uint64_t int_sub(uint64_t a, uint64_t b, Type t, bool sat) {
  if (sat && t == Type::S32)
    return out(static_cast<uint64_t>(clamp_s32(i128{sval(a, t)} - sval(b, t))), t);
  return out(a - b, t);
}

CarryResult add_carry(uint64_t a, uint64_t b, bool carry_in, Type t) {
  const int w = bits_of(t);
  const u128 s = u128{uval(a, t)} + uval(b, t) + (carry_in ? 1 : 0);
  return {static_cast<uint64_t>(s) & width_mask(w), static_cast<bool>(s >> w)};
}
CarryResult sub_borrow(uint64_t a, uint64_t b, bool borrow_in, Type t) {
  const u128 x = uval(a, t), y = u128{uval(b, t)} + (borrow_in ? 1 : 0);
  return {out(static_cast<uint64_t>(x - y), t), x < y};
}

namespace {
// The full product of two operands of type t (at most 128 bits), as signed or unsigned bits.
// Unsigned operands multiply as unsigned: two 64-bit values can reach 2^128 - 2^65 + 1, past
// __int128's range (signed overflow is undefined behaviour). Signed 64-bit products fit (< 2^126).
u128 full_product(uint64_t a, uint64_t b, Type t) {
  if (!is_signed(t)) return u128{uval(a, t)} * u128{uval(b, t)};
  return static_cast<u128>(wide(a, t) * wide(b, t));
}
uint64_t product_part(u128 p, Type t, MulMode m) {
  const int w = bits_of(t);
  switch (m) {
    case MulMode::Hi:
      return out(static_cast<uint64_t>(p >> w), t);
    case MulMode::Wide:
      return static_cast<uint64_t>(p) & width_mask(2 * w);
    default:
      return out(static_cast<uint64_t>(p), t);
  }
}
}  // namespace

uint64_t int_mul(uint64_t a, uint64_t b, Type t, MulMode m) {
  return product_part(full_product(a, b, t), t, m);
}

uint64_t int_mad(uint64_t a, uint64_t b, uint64_t c, Type t, MulMode m, bool sat) {
  const int w = bits_of(t);
  if (m == MulMode::Wide) {
    const uint64_t p = product_part(full_product(a, b, t), t, m);
    return (p + c) & width_mask(2 * w);
  }
  const uint64_t p = product_part(full_product(a, b, t), t, m);
  if (sat && t == Type::S32) {  // mad.hi.sat.s32: the sum clamps to the s32 range
    return out(static_cast<uint64_t>(clamp_s32(i128{sval(p, t)} + sval(c, t))), t);
  }
  return out(p + c, t);
}

CarryResult int_mad_carry(uint64_t a, uint64_t b, uint64_t c, bool carry_in, Type t, MulMode m) {
  const uint64_t p = product_part(full_product(a, b, t), t, m == MulMode::Hi ? m : MulMode::Lo);
  return add_carry(p, c, carry_in, t);
}

uint64_t mul24(uint64_t a, uint64_t b, Type t, bool hi) {
  // Operands are the low 24 bits (sign-extended from bit 23 for s32); the product has 48 bits.
  const bool s = is_signed(t);
  const int64_t x = s ? sign_extend(a, 24) : static_cast<int64_t>(a & 0xFFFFFF);
  const int64_t y = s ? sign_extend(b, 24) : static_cast<int64_t>(b & 0xFFFFFF);
  const uint64_t p = static_cast<uint64_t>(x * y);
  return (hi ? (p >> 16) : p) & 0xFFFFFFFFu;
}
uint64_t mad24(uint64_t a, uint64_t b, uint64_t c, Type t, bool hi, bool sat) {
  const uint64_t p = mul24(a, b, t, hi);
  if (sat && t == Type::S32)
    return out(static_cast<uint64_t>(clamp_s32(i128{sval(p, t)} + sval(c, t))), t);
  return (p + c) & 0xFFFFFFFFu;
}

uint64_t int_div(uint64_t a, uint64_t b, Type t) {
  const int w = bits_of(t);
  if (uval(b, t) == 0) return width_mask(w);
  if (is_signed(t)) {
    const int64_t x = sval(a, t), y = sval(b, t);
    if (y == -1) return out(0 - static_cast<uint64_t>(x), t);  // INT_MIN / -1 wraps
    return out(static_cast<uint64_t>(x / y), t);
  }
  return uval(a, t) / uval(b, t);
}
uint64_t int_rem(uint64_t a, uint64_t b, Type t) {
  const int w = bits_of(t);
  if (uval(b, t) == 0) return width_mask(w);
  if (is_signed(t)) {
    const int64_t x = sval(a, t), y = sval(b, t);
    if (y == -1) return 0;
    return out(static_cast<uint64_t>(x % y), t);  // sign of the dividend, as in C
  }
  return uval(a, t) % uval(b, t);
}

uint64_t int_abs(uint64_t a, Type t) {
  const int64_t x = sval(a, t);
  return out(x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x), t);
}
uint64_t int_neg(uint64_t a, Type t) { return out(0 - a, t); }
uint64_t int_min(uint64_t a, uint64_t b, Type t) {
  if (is_signed(t)) return sval(a, t) <= sval(b, t) ? uval(a, t) : uval(b, t);
  return uval(a, t) <= uval(b, t) ? uval(a, t) : uval(b, t);
}
uint64_t int_max(uint64_t a, uint64_t b, Type t) {
  if (is_signed(t)) return sval(a, t) >= sval(b, t) ? uval(a, t) : uval(b, t);
  return uval(a, t) >= uval(b, t) ? uval(a, t) : uval(b, t);
}

bool icmp(uint64_t a, uint64_t b, Type t, CmpOp op) {
  const bool s = is_signed(t);
  const i128 x = s ? i128{sval(a, t)} : i128{uval(a, t)},
             y = s ? i128{sval(b, t)} : i128{uval(b, t)};
  const uint64_t ux = uval(a, t), uy = uval(b, t);
  switch (op) {
    case CmpOp::Eq:
      return ux == uy;
    case CmpOp::Ne:
      return ux != uy;
    case CmpOp::Lt:
      return x < y;
    case CmpOp::Le:
      return x <= y;
    case CmpOp::Gt:
      return x > y;
    case CmpOp::Ge:
      return x >= y;
    case CmpOp::Lo:
      return ux < uy;
    case CmpOp::Ls:
      return ux <= uy;
    case CmpOp::Hi:
      return ux > uy;
    case CmpOp::Hs:
      return ux >= uy;
    default:
      return false;
  }
}

// ---- bit manipulation
// ------------------------------------------------------------------------------
uint32_t popc(uint64_t a, Type t) { return std::popcount(uval(a, t)); }
uint32_t clz(uint64_t a, Type t) {
  const int w = bits_of(t);
  return std::countl_zero(uval(a, t)) - (64 - w);
}
uint64_t brev(uint64_t a, Type t) {
  uint64_t x = uval(a, t), r = 0;
  for (int i = 0, w = bits_of(t); i < w; ++i) r |= ((x >> i) & 1) << (w - 1 - i);
  return r;
}
uint32_t bfind(uint64_t a, Type t, bool shiftamt) {
  const int w = bits_of(t);
  uint64_t x = uval(a, t);
  if (is_signed(t) && sval(a, t) < 0) x = ~x & width_mask(w);  // first bit differing from sign
  if (x == 0) return 0xFFFFFFFFu;
  const uint32_t pos = 63 - std::countl_zero(x);
  return shiftamt ? static_cast<uint32_t>(w - 1) - pos : pos;
}

uint64_t bfe(uint64_t a, uint32_t pos_in, uint32_t len_in, Type t) {
  const int w = bits_of(t), msb = w - 1;
  const uint32_t pos = pos_in & 0xFF, len = len_in & 0xFF;
  const uint64_t x = uval(a, t);
  const uint64_t sbit =
      (is_signed(t) && len != 0)
          ? (x >> (pos + len - 1 < static_cast<uint32_t>(msb) ? pos + len - 1 : msb)) & 1
          : 0;
  uint64_t d = 0;
  for (int i = 0; i <= msb; ++i) {
    const uint64_t bit = (static_cast<uint32_t>(i) < len && pos + i <= static_cast<uint32_t>(msb))
                             ? (x >> (pos + i)) & 1
                             : sbit;
    d |= bit << i;
  }
  return d;
}

uint64_t bfi(uint64_t f, uint64_t b, uint32_t pos_in, uint32_t len_in, Type t) {
  const int msb = bits_of(t) - 1;
  const uint32_t pos = pos_in & 0xFF, len = len_in & 0xFF;
  uint64_t d = uval(b, t);
  for (uint32_t i = 0; i < len && pos + i <= static_cast<uint32_t>(msb); ++i) {
    d = (d & ~(1ull << (pos + i))) | (((f >> i) & 1) << (pos + i));
  }
  return d;
}

uint32_t fns(uint32_t mask, uint32_t base, int32_t offset) {
  // PTX: find the |offset|-th set bit starting at bit `base`, upward for offset > 0 and downward
  // for offset < 0; offset 0 asks whether bit `base` itself is set.
  if (base > 31) return 0xFFFFFFFFu;
  if (offset == 0) return ((mask >> base) & 1) ? base : 0xFFFFFFFFu;
  const int inc = offset > 0 ? 1 : -1;
  int64_t count = (offset > 0 ? int64_t{offset} : -int64_t{offset}) - 1;
  for (int pos = static_cast<int>(base); pos >= 0 && pos < 32; pos += inc) {
    if ((mask >> pos) & 1) {
      if (count == 0) return static_cast<uint32_t>(pos);
      --count;
    }
  }
  return 0xFFFFFFFFu;
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, PrmtMode m) {
  const uint64_t src = (static_cast<uint64_t>(b) << 32) | a;  // bytes 0..3 = a, 4..7 = b
  auto byte = [&](unsigned i) { return static_cast<uint32_t>((src >> (8 * (i & 7))) & 0xFF); };
  if (m == PrmtMode::None) {
    // Each selector nibble picks a byte (bits 0..2); bit 3 replicates that byte's sign bit.
    uint32_t d = 0;
    for (int k = 0; k < 4; ++k) {
      const unsigned sel = (c >> (4 * k)) & 0xF;
      uint32_t v = byte(sel & 7);
      if (sel & 8) v = (v & 0x80) ? 0xFF : 0x00;
      d |= v << (8 * k);
    }
    return d;
  }
  // The special modes use c[1:0]; each row lists the source byte for d.b0, d.b1, d.b2, d.b3.
  static constexpr uint8_t kTable[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e: forward 4 extract
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e: backward 4 extract
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8: replicate 8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl: edge clamp left
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr: edge clamp right
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16: replicate 16
  };
  const auto& row = kTable[static_cast<int>(m) - 1][c & 3];
  return byte(row[0]) | (byte(row[1]) << 8) | (byte(row[2]) << 16) | (byte(row[3]) << 24);
}

uint32_t shf(uint32_t a, uint32_t b, uint32_t c, ShfMode m) {
  const bool wrap = m == ShfMode::LeftWrap || m == ShfMode::RightWrap;
  const bool left = m == ShfMode::LeftWrap || m == ShfMode::LeftClamp;
  const uint32_t n = wrap ? (c & 31) : (c < 32 ? c : 32);
  const uint64_t v = (static_cast<uint64_t>(b) << 32) | a;
  return left ? static_cast<uint32_t>((v << n) >> 32) : static_cast<uint32_t>(v >> n);
}

uint64_t shl(uint64_t a, uint32_t n, Type t) {
  return n >= static_cast<uint32_t>(bits_of(t)) ? 0 : out(a << n, t);
}
uint64_t shr(uint64_t a, uint32_t n, Type t) {
  const int w = bits_of(t);
  const uint32_t k = n >= static_cast<uint32_t>(w) ? static_cast<uint32_t>(w) - 1 : n;
  if (is_signed(t)) return out(static_cast<uint64_t>(sval(a, t) >> k), t);
  return n >= static_cast<uint32_t>(w) ? 0 : uval(a, t) >> n;
}

uint64_t sad(uint64_t a, uint64_t b, uint64_t c, Type t) {
  const i128 x = wide(a, t), y = wide(b, t);
  const uint64_t diff = static_cast<uint64_t>(x < y ? y - x : x - y);
  return out(diff + c, t);
}

uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed) {
  uint32_t acc = c;
  for (int i = 0; i < 4; ++i) {
    const uint32_t ab = (a >> (8 * i)) & 0xFF, bb = (b >> (8 * i)) & 0xFF;
    const int32_t x = a_signed ? static_cast<int8_t>(ab) : static_cast<int32_t>(ab);
    const int32_t y = b_signed ? static_cast<int8_t>(bb) : static_cast<int32_t>(bb);
    acc += static_cast<uint32_t>(x * y);
  }
  return acc;
}
uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed, bool hi) {
  uint32_t acc = c;
  for (int i = 0; i < 2; ++i) {
    const uint32_t ah = (a >> (16 * i)) & 0xFFFF, bb = (b >> (8 * (i + (hi ? 2 : 0)))) & 0xFF;
    const int64_t x = a_signed ? static_cast<int16_t>(ah) : static_cast<int64_t>(ah);
    const int64_t y = b_signed ? static_cast<int8_t>(bb) : static_cast<int64_t>(bb);
    acc += static_cast<uint32_t>(x * y);
  }
  return acc;
}

}  // namespace warplab::func::num
