// Internal helpers shared by the numeric_*.cpp files (not part of the executor's API).
//
// The one idea worth knowing: every binary float format here (f16, bf16, f32, f64) is "sign,
// exponent, fraction" with different widths, so one exact rounding routine (round_pack) serves
// every narrowing: it takes an exact value sig * 2^e and rounds it once, by integer arithmetic, in
// any IEEE rounding mode. Wider results are computed in double; when double cannot hold the exact
// result, it is computed "rounded to odd" (sum_rto, rto_fix), which keeps enough information that
// one later rounding to a format at least 2 bits narrower is still correct.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/func/numeric.h"

namespace warplab::func::num::internal {

struct Fmt {
  int mant;  // explicit fraction bits
  int exp;   // exponent bits
  int bits() const { return 1 + mant + exp; }
  uint64_t sign_mask() const { return 1ull << (mant + exp); }
  uint64_t exp_mask() const { return ((1ull << exp) - 1) << mant; }
  uint64_t frac_mask() const { return (1ull << mant) - 1; }
};
inline constexpr Fmt kF16{10, 5};
inline constexpr Fmt kBF16{7, 8};
inline constexpr Fmt kF32{23, 8};
inline constexpr Fmt kF64{52, 11};
// The format of a PTX float type (x2 types: of each half; anything else: f64).
inline Fmt fmt_of(Type t) {
  switch (t) {
    case Type::F16:
    case Type::F16x2:
      return kF16;
    case Type::BF16:
    case Type::BF16x2:
      return kBF16;
    case Type::F32:
      return kF32;
    default:
      return kF64;
  }
}

inline bool is_nan(uint64_t b, Fmt f) {
  return (b & f.exp_mask()) == f.exp_mask() && (b & f.frac_mask()) != 0;
}
inline bool is_inf(uint64_t b, Fmt f) {
  return (b & f.exp_mask()) == f.exp_mask() && (b & f.frac_mask()) == 0;
}
inline bool is_subnormal(uint64_t b, Fmt f) {
  return (b & f.exp_mask()) == 0 && (b & f.frac_mask()) != 0;
}
inline bool is_zero(uint64_t b, Fmt f) { return (b & ~f.sign_mask()) == 0; }
inline uint64_t flush(uint64_t b, Fmt f) { return is_subnormal(b, f) ? (b & f.sign_mask()) : b; }
inline uint64_t canonical_nan(Fmt f) {
  return f.mant == 52 ? kF64CanonicalNaN : f.mant == 23 ? kF32CanonicalNaN : 0x7FFFull;
}
inline uint64_t inf_bits(bool neg, Fmt f) { return (neg ? f.sign_mask() : 0) | f.exp_mask(); }
inline uint64_t max_finite(bool neg, Fmt f) {
  return (neg ? f.sign_mask() : 0) | (f.exp_mask() - (1ull << f.mant)) | f.frac_mask();
}

// The exact value of a float of format f, as a double (every format here fits in double).
inline double decode(uint64_t b, Fmt f) {
  if (f.mant == 52) return as_f64(b);
  if (f.mant == 23) return static_cast<double>(as_f32(static_cast<uint32_t>(b)));
  bool neg = b & f.sign_mask();
  uint64_t e = (b & f.exp_mask()) >> f.mant, frac = b & f.frac_mask();
  int bias = (1 << (f.exp - 1)) - 1;
  double v;
  if (e == (1u << f.exp) - 1)
    v = frac ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(static_cast<double>(frac), 1 - bias - f.mant);
  else
    v = std::ldexp(static_cast<double>(frac | (1ull << f.mant)),
                   static_cast<int>(e) - bias - f.mant);
  return neg ? -v : v;
}

// The rounding direction a mode stands for (integer modes rni.. map to rn..; None -> rn).
inline Rounding base_mode(Rounding r) {
  switch (r) {
    case Rounding::Rz:
    case Rounding::Rzi:
      return Rounding::Rz;
    case Rounding::Rm:
    case Rounding::Rmi:
      return Rounding::Rm;
    case Rounding::Rp:
    case Rounding::Rpi:
      return Rounding::Rp;
    case Rounding::Rna:
      return Rounding::Rna;
    default:
      return Rounding::Rn;
  }
}

// Rounds the exact magnitude sig * 2^e (+ "sticky": nonzero bits below sig's last bit, allowed
// only when sig holds at least mant+3 significant bits) to format f with mode r. sig != 0.
uint64_t round_pack(bool neg, uint64_t sig, int e, bool sticky, Fmt f, Rounding r);

// Round a finite or special double to format f (NaN -> canonical NaN of f).
inline uint64_t round_double(double x, Fmt f, Rounding r) {
  return round_to_format(x, f.mant, f.exp, r);
}

// Round-to-odd helpers: v is the round-to-nearest result of an operation and err_sign the sign of
// (exact - v). Returns the exact result rounded to odd (truncate, then set the last bit if
// inexact).
inline double rto_fix(double v, int err_sign) {
  if (err_sign == 0 || v == 0 || std::isinf(v)) return v;
  uint64_t b = bits_f64(v);
  if ((err_sign > 0) != (v > 0)) b -= 1;  // exact is nearer zero: step the magnitude down
  return as_f64(b | 1);
}
// a + b rounded to odd (TwoSum gives the exact error of the rounded sum).
inline double sum_rto(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return s;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  return rto_fix(s, (err > 0) - (err < 0));
}

// Round a double holding an integer-valued or arbitrary value to an integer value with mode r
// (rni: nearest even, rzi, rmi, rpi), independent of the host rounding mode.
inline double round_integral(double x, Rounding r) {
  if (!std::isfinite(x) || std::fabs(x) >= 4503599627370496.0) return x;  // >= 2^52: integral
  double t;
  switch (base_mode(r)) {
    case Rounding::Rz:
      t = std::trunc(x);
      break;
    case Rounding::Rm:
      t = std::floor(x);
      break;
    case Rounding::Rp:
      t = std::ceil(x);
      break;
    default: {
      double fl = std::floor(x), d = x - fl;
      t = d > 0.5 ? fl + 1 : d < 0.5 ? fl : (std::fmod(fl, 2.0) == 0 ? fl : fl + 1);
    }
  }
  return std::copysign(t, x);  // keeps -0.0 for e.g. rni(-0.4)
}

// min/max of any float format with PTX's NaN rules (numeric_float.cpp).
uint64_t fminmax(uint64_t a, uint64_t b, Fmt f, bool is_max, bool ftz, bool nan, bool xorsign_abs);
bool ftestp(uint64_t a, Fmt f, TestpMode m);
// Ordered/unordered comparison of two exact values.
bool compare(double x, double y, CmpOp op);

}  // namespace warplab::func::num::internal
