// cvt: conversions between every PTX integer and float type, and the exact rounding they rest on.
//
// What the hardware does: conversions run on the SM's conversion path (F2F, F2I, I2F, I2I in SASS;
// on recent GPUs F2F/F2I/I2F share the quarter-rate "XU"/conversion pipe). Every cvt result is
// exactly defined by PTX: IEEE rounding in the named mode for float results, rounding to an
// integer (rni/rzi/rmi/rpi) followed by saturation for integer results (NaN becomes 0: a float to
// integer cvt never traps or gives "undefined" values on a GPU, unlike C), truncation or clamping
// (.sat) between integers. WarpLab reproduces all of it bit for bit with integer arithmetic
// (round_pack), so nothing depends on the host's rounding mode.
//
// Simplified: NaN results are the canonical NaN of the destination (0x7FFFFFFF, 0x7FFF, ...); the
// GPU does the same for narrowing conversions, while widening f32->f64 of a NaN may keep the
// payload on real hardware.
#include <cmath>

#include "sim/func/numeric.h"
#include "sim/func/numeric_detail.h"

namespace warplab::func::num {
namespace internal {

uint64_t round_pack(bool neg, uint64_t sig, int e, bool sticky, Fmt f, Rounding r) {
  const int bias = (1 << (f.exp - 1)) - 1, emin = 1 - bias;
  const int msb = 63 - std::countl_zero(sig);
  const int exp_unb = msb + e;  // value in [2^exp_unb, 2^(exp_unb+1))
  const int lsb_e = (exp_unb >= emin ? exp_unb : emin) - f.mant;  // exponent of the result's ulp
  int shift = lsb_e - e;
  uint64_t q;
  bool above_half = false, half = false, inexact = sticky;
  if (shift <= 0) {
    q = sig << -shift;
  } else {
    if (shift > 66) shift = 66;  // far below half an ulp either way
    unsigned __int128 s = sig;
    q = static_cast<uint64_t>(s >> shift);
    unsigned __int128 rem = s & ((static_cast<unsigned __int128>(1) << shift) - 1);
    unsigned __int128 h = static_cast<unsigned __int128>(1) << (shift - 1);
    inexact = inexact || rem != 0;
    above_half = rem > h || (rem == h && sticky);
    half = rem == h && !sticky;
  }
  bool inc = false;
  switch (base_mode(r)) {
    case Rounding::Rz:
      break;
    case Rounding::Rm:
      inc = neg && inexact;
      break;
    case Rounding::Rp:
      inc = !neg && inexact;
      break;
    case Rounding::Rna:
      inc = above_half || half;
      break;
    default:
      inc = above_half || (half && (q & 1));
      break;
  }
  q += inc;
  // ((biased exponent - 1) << mant) + q also handles the carry into the next binade and the
  // subnormal -> normal step, because q carries the hidden bit.
  const int64_t field = static_cast<int64_t>(lsb_e) + f.mant + bias - 1;
  uint64_t bits = (static_cast<uint64_t>(field) << f.mant) + q;
  if (field >= (1 << f.exp) - 2 && bits >= f.exp_mask()) {  // overflow
    Rounding b = base_mode(r);
    bool to_inf = b == Rounding::Rn || b == Rounding::Rna || (b == Rounding::Rp && !neg) ||
                  (b == Rounding::Rm && neg);
    return to_inf ? inf_bits(neg, f) : max_finite(neg, f);
  }
  return bits | (neg ? f.sign_mask() : 0);
}

}  // namespace internal

using namespace internal;

uint64_t round_to_format(double x, int mant_bits, int exp_bits, Rounding r) {
  Fmt f{mant_bits, exp_bits};
  uint64_t b = bits_f64(x);
  bool neg = b >> 63;
  if (std::isnan(x)) return canonical_nan(f);
  if (std::isinf(x)) return inf_bits(neg, f);
  if (x == 0) return neg ? f.sign_mask() : 0;
  if (f.mant == 52 && f.exp == 11) return b;
  uint64_t frac = b & ((1ull << 52) - 1);
  int e = static_cast<int>((b >> 52) & 0x7FF);
  if (e == 0) return round_pack(neg, frac, -1074, false, f, r);
  return round_pack(neg, frac | (1ull << 52), e - 1075, false, f, r);
}

namespace {

// A float result's finishing touches: ftz (f32 only), .sat clamp to [0,1], .relu.
uint64_t finish_float(uint64_t bits, Fmt f, bool sat, bool ftz, bool relu) {
  if (ftz && f.mant == 23) bits = flush(bits, f);
  if (is_nan(bits, f)) return sat ? 0 : canonical_nan(f);
  if (sat) {
    if (bits & f.sign_mask()) return 0;
    uint64_t one = static_cast<uint64_t>((1 << (f.exp - 1)) - 1) << f.mant;
    if (bits > one) return one;
  }
  if (relu && (bits & f.sign_mask())) return 0;
  return bits;
}

// Float (as an exact double) to an integer type: round with irnd, saturate, NaN -> 0.
uint64_t float_to_int(double v, Type dst, Rounding r) {
  const int w = ptx::type_bits(dst);
  if (std::isnan(v)) return 0;
  v = round_integral(v, r == Rounding::None ? Rounding::Rzi : r);
  if (ptx::is_signed_int(dst)) {
    const double lim = std::ldexp(1.0, w - 1);
    int64_t i;
    if (v >= lim)
      i = static_cast<int64_t>((w == 64 ? ~0ull >> 1 : (1ull << (w - 1)) - 1));
    else if (v < -lim)
      i = w == 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
    else
      i = static_cast<int64_t>(v);
    return static_cast<uint64_t>(i) & width_mask(w);
  }
  if (v <= 0) return 0;
  if (v >= std::ldexp(1.0, w)) return width_mask(w);
  return static_cast<uint64_t>(v);
}

// Integer (already sign/zero-extended: neg + magnitude) to a float format, rounding r.
uint64_t int_to_float(bool neg, uint64_t mag, Fmt f, Rounding r) {
  if (mag == 0) return 0;
  return round_pack(neg, mag, 0, false, f, r);
}

bool is_integer_rounding(Rounding r) {
  return r == Rounding::Rni || r == Rounding::Rzi || r == Rounding::Rmi || r == Rounding::Rpi;
}

}  // namespace

uint64_t cvt(uint64_t src_bits, Type dst, Type src, Rounding r, bool sat, bool ftz, bool relu) {
  const bool src_float = ptx::is_float(src), dst_float = ptx::is_float(dst);
  const int sw = ptx::type_bits(src), dw = ptx::type_bits(dst);

  if (!src_float) {
    // The source integer, extended to 64 bits by its own signedness.
    const bool s_signed = ptx::is_signed_int(src);
    const uint64_t raw = src_bits & width_mask(sw);
    const int64_t sv = sign_extend(raw, sw);
    const bool neg = s_signed && sv < 0;
    if (dst_float) {
      Fmt f = fmt_of(dst);
      uint64_t mag = neg ? 0 - static_cast<uint64_t>(sv) : raw;
      return finish_float(int_to_float(neg, mag, f, r), f, sat, false, relu);
    }
    // int -> int: truncate / extend, or clamp with .sat.
    uint64_t v = s_signed ? static_cast<uint64_t>(sv) : raw;
    if (sat) {
      if (ptx::is_signed_int(dst)) {
        const int64_t hi = static_cast<int64_t>(width_mask(dw - 1)), lo = -hi - 1;
        if (neg) {
          if (sv < lo) v = static_cast<uint64_t>(lo);
        } else if (v > static_cast<uint64_t>(hi)) {
          v = static_cast<uint64_t>(hi);
        }
      } else {
        if (neg)
          v = 0;
        else if (v > width_mask(dw))
          v = width_mask(dw);
      }
    }
    return v & width_mask(dw);
  }

  // Float source: its exact value (ftz flushes an f32 subnormal input).
  const Fmt sf = fmt_of(src);
  uint64_t sb = src_bits & width_mask(sw);
  if (ftz && src == Type::F32) sb = flush(sb, sf);
  double v = decode(sb, sf);

  if (!dst_float) return float_to_int(v, dst, r);

  const Fmt df = fmt_of(dst);
  if (std::isnan(v)) return sat ? 0 : canonical_nan(df);
  uint64_t out;
  if (is_integer_rounding(r)) {
    out = round_double(round_integral(v, r), df, Rounding::Rn);
  } else if (dst == src) {
    out = sb;  // cvt.ftz/.sat.f32.f32: only the modifiers act
  } else {
    out = round_double(v, df, r);
  }
  return finish_float(out, df, sat, ftz, relu);
}

uint32_t cvt_pack_x2(uint32_t a_f32, uint32_t b_f32, Type dst, Rounding r, bool relu,
                     bool satfinite) {
  const Fmt f = (dst == Type::BF16x2 || dst == Type::BF16) ? kBF16 : kF16;
  auto one = [&](uint32_t x) -> uint32_t {
    uint64_t h = round_double(as_f32(x), f, r);
    if (is_nan(h, f)) return static_cast<uint32_t>(canonical_nan(f));
    if (satfinite && is_inf(h, f)) h = max_finite(h & f.sign_mask(), f);
    if (relu && (h & f.sign_mask())) h = 0;
    return static_cast<uint32_t>(h);
  };
  return (one(a_f32) << 16) | one(b_f32);
}

}  // namespace warplab::func::num
