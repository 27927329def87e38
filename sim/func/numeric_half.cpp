// Half precision: f16 (IEEE binary16: 5 exponent, 10 fraction bits) and bf16 (bfloat16: f32's
// 8-bit exponent with 7 fraction bits), scalar and packed two to a 32-bit register (f16x2/bf16x2).
//
// What the hardware does: since Pascal/Volta the FP32 datapath can split into two 16-bit lanes
// (HADD2/HMUL2/HFMA2 in SASS), so one instruction does two half operations: that is why PTX has
// x2 types and why nvcc packs halves in pairs. Each result is the exact result rounded once to the
// 16-bit format (IEEE .rn), with optional .ftz (f16), .sat and .relu; NaN results are the canonical
// NaN 0x7FFF. The tensor cores are the other half-precision consumer; they are out of scope here.
//
// How WarpLab does it: decode each half to its exact double value, compute exactly (products of
// halves are exact in double; sums are taken rounded to odd), round once with round_pack.
// Simplified: ex2/tanh approximations are evaluated in double and rounded to nearest.
#include <cmath>

#include "sim/func/numeric.h"
#include "sim/func/numeric_detail.h"

namespace warplab::func::num {
using namespace internal;

namespace {

bool is_bf(Type t) { return t == Type::BF16 || t == Type::BF16x2; }
bool is_x2(Type t) { return t == Type::F16x2 || t == Type::BF16x2; }
Fmt fmt(Type t) { return is_bf(t) ? kBF16 : kF16; }

// Applies op to each 16-bit element (one for scalar types, two for x2).
template <class Op>
uint32_t each(Type t, Op op) {
  const uint32_t lo = op(0) & 0xFFFFu;
  return is_x2(t) ? (lo | ((op(16) & 0xFFFFu) << 16)) : lo;
}

uint32_t finish(uint64_t h, Fmt f, bool ftz, bool sat, bool relu) {
  if (is_nan(h, f)) return sat ? 0u : static_cast<uint32_t>(canonical_nan(f));
  if (ftz) h = flush(h, f);
  if (sat) {
    const uint64_t one = static_cast<uint64_t>((1 << (f.exp - 1)) - 1) << f.mant;
    if (h & f.sign_mask()) return 0u;
    if (h > one) h = one;
  }
  if (relu && (h & f.sign_mask())) h = 0;
  return static_cast<uint32_t>(h);
}

enum class Op { Add, Sub, Mul, Fma };

uint32_t arith(Op op, Type t, uint32_t a, uint32_t b, uint32_t c, Rounding r, bool ftz, bool sat,
               bool relu) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    uint64_t x = (a >> sh) & 0xFFFF, y = (b >> sh) & 0xFFFF, z = (c >> sh) & 0xFFFF;
    if (ftz) x = flush(x, f), y = flush(y, f), z = flush(z, f);
    const double dx = decode(x, f), dy = decode(y, f), dz = decode(z, f);
    double v;
    switch (op) {
      case Op::Add:
        v = sum_rto(dx, dy);
        break;
      case Op::Sub:
        v = sum_rto(dx, -dy);
        break;
      case Op::Mul:
        v = dx * dy;
        break;  // exact: at most 11 x 11 bits
      default:
        v = sum_rto(dx * dy, dz);
        break;
    }
    if (v == 0 && op != Op::Mul) {  // exact zero: IEEE sign rules
      const double p = op == Op::Fma ? dx * dy : dx;
      const double q = op == Op::Fma ? dz : (op == Op::Sub ? -dy : dy);
      const bool neg = std::signbit(p) && std::signbit(q);
      const bool mixed = std::signbit(p) != std::signbit(q);
      v = (neg || (mixed && base_mode(r) == Rounding::Rm)) ? -0.0 : 0.0;
    }
    return finish(round_double(v, f, r), f, ftz, sat, relu);
  });
}

}  // namespace

uint32_t half_add(Type t, uint32_t a, uint32_t b, Rounding r, bool ftz, bool sat) {
  return arith(Op::Add, t, a, b, 0, r, ftz, sat, false);
}
uint32_t half_sub(Type t, uint32_t a, uint32_t b, Rounding r, bool ftz, bool sat) {
  return arith(Op::Sub, t, a, b, 0, r, ftz, sat, false);
}
uint32_t half_mul(Type t, uint32_t a, uint32_t b, Rounding r, bool ftz, bool sat) {
  return arith(Op::Mul, t, a, b, 0, r, ftz, sat, false);
}
uint32_t half_fma(Type t, uint32_t a, uint32_t b, uint32_t c, Rounding r, bool ftz, bool sat,
                  bool relu) {
  return arith(Op::Fma, t, a, b, c, r, ftz, sat, relu);
}

uint32_t half_neg(Type t, uint32_t a, bool ftz) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    uint64_t x = (a >> sh) & 0xFFFF;
    return static_cast<uint32_t>((ftz ? flush(x, f) : x) ^ 0x8000u);
  });
}
uint32_t half_abs(Type t, uint32_t a, bool ftz) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    uint64_t x = (a >> sh) & 0xFFFF;
    return static_cast<uint32_t>((ftz ? flush(x, f) : x) & 0x7FFFu);
  });
}
uint32_t half_min(Type t, uint32_t a, uint32_t b, bool ftz, bool nan, bool xorsign_abs, bool relu) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    uint64_t m = fminmax((a >> sh) & 0xFFFF, (b >> sh) & 0xFFFF, f, false, ftz, nan, xorsign_abs);
    return finish(m, f, false, false, relu);
  });
}
uint32_t half_max(Type t, uint32_t a, uint32_t b, bool ftz, bool nan, bool xorsign_abs, bool relu) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    uint64_t m = fminmax((a >> sh) & 0xFFFF, (b >> sh) & 0xFFFF, f, true, ftz, nan, xorsign_abs);
    return finish(m, f, false, false, relu);
  });
}

// ex2.approx.{f16,bf16}{x2}: PTX max relative error 2^-9.9 (f16) / 2^-7 (bf16); here 0.5 ulp.
uint32_t half_ex2(Type t, uint32_t a, bool ftz) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    uint64_t x = (a >> sh) & 0xFFFF;
    if (ftz) x = flush(x, f);
    return finish(round_double(std::exp2(decode(x, f)), f, Rounding::Rn), f, ftz, false, false);
  });
}
// tanh.approx.{f16,bf16}{x2}: PTX max relative error 2^-8 (f16); here 0.5 ulp.
uint32_t half_tanh(Type t, uint32_t a) {
  const Fmt f = fmt(t);
  return each(t, [&](int sh) -> uint32_t {
    const uint64_t x = (a >> sh) & 0xFFFF;
    return finish(round_double(std::tanh(decode(x, f)), f, Rounding::Rn), f, false, false, false);
  });
}

float f16_to_f32(uint16_t h) {
  return is_nan(h, kF16) ? as_f32(kF32CanonicalNaN) : static_cast<float>(decode(h, kF16));
}
float bf16_to_f32(uint16_t h) {
  return is_nan(h, kBF16) ? as_f32(kF32CanonicalNaN) : as_f32(static_cast<uint32_t>(h) << 16);
}
uint16_t f32_to_f16(float f, Rounding r, bool sat, bool relu) {
  return static_cast<uint16_t>(finish(round_double(f, kF16, r), kF16, false, sat, relu));
}
uint16_t f32_to_bf16(float f, Rounding r, bool sat, bool relu) {
  return static_cast<uint16_t>(finish(round_double(f, kBF16, r), kBF16, false, sat, relu));
}

}  // namespace warplab::func::num
