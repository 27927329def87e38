// f32 and f64 arithmetic: the FMA pipes and the SFU.
//
// What the hardware does: the FP32 pipe is a fused multiply-add unit; add, mul and fma are IEEE 754
// correctly rounded in the mode the instruction names (.rn default, .rz, .rm, .rp), with subnormals
// supported unless .ftz flushes them, and any NaN result replaced by the canonical NaN 0x7FFFFFFF.
// Division and square root have no unit of their own: the compiler expands div.rn/sqrt.rn into an
// SFU reciprocal estimate refined by FMAs (Newton-Raphson) with a slow path for hard cases, which
// still yields the correctly rounded result. The .approx forms are the bare SFU estimates.
//
// How WarpLab does it: round-to-nearest f32/f64 runs natively on the host FPU (also IEEE, same
// result). Directed f32 modes compute the exact result rounded to odd in double and round it once
// more with integer code (see numeric_detail.h); directed f64 modes switch the host rounding mode
// around one volatile operation and restore it. SFU approximations are computed in double and
// rounded to nearest, which is always inside PTX's documented error bound (quoted per function);
// real SFUs are less accurate, so results can differ from a GPU in the last bits (never more than
// the bound allows).
#include <cfenv>
#include <cmath>

#include "sim/func/numeric.h"
#include "sim/func/numeric_detail.h"

namespace warplab::func::num {
using namespace internal;

namespace {

// Sign of an exact zero sum x + y (IEEE: +0 unless both are -0, or the mode is rm).
double zero_sum(double x, double y, Rounding r) {
  if (std::signbit(x) && std::signbit(y)) return -0.0;
  if (!std::signbit(x) && !std::signbit(y)) return 0.0;
  return base_mode(r) == Rounding::Rm ? -0.0 : 0.0;
}
// x + y rounded to odd, with the IEEE sign of an exact zero under mode r.
double sum_rto_mode(double x, double y, Rounding r) {
  double s = sum_rto(x, y);
  return s == 0 ? zero_sum(x, y, r) : s;
}

uint32_t finish32(uint64_t bits, bool ftz, bool sat) {
  return detail::f32_finish(as_f32(static_cast<uint32_t>(bits)), ftz, sat);
}

int fe_mode(Rounding r) {
  switch (base_mode(r)) {
    case Rounding::Rz:
      return FE_TOWARDZERO;
    case Rounding::Rm:
      return FE_DOWNWARD;
    case Rounding::Rp:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

enum : int { kOpDiv = 4, kOpSqrt = 5 };

// One f64 operation in rounding mode r. The volatile reads happen after the mode switch and the
// volatile write before the switch back, so the compiler can neither fold nor move the operation.
double f64_in_mode(int op, double a, double b, double c, Rounding r) {
  volatile double va = a, vb = b, vc = c;
  const int old = std::fegetround();
  std::fesetround(fe_mode(r));
  double res;
  switch (op) {
    case detail::kOpAdd:
      res = va + vb;
      break;
    case detail::kOpSub:
      res = va - vb;
      break;
    case detail::kOpMul:
      res = va * vb;
      break;
    case detail::kOpFma:
      res = std::fma(va, vb, vc);
      break;
    case kOpDiv:
      res = va / vb;
      break;
    default:
      res = std::sqrt(va);
      break;
  }
  volatile double out = res;
  std::fesetround(old);
  return out;
}

// Exact quotient / square root rounded to odd (the remainder, exact by FMA, gives the error sign).
double div_rto(double a, double b) {
  double q = a / b;
  if (!std::isfinite(q) || q == 0 || a == 0 || !std::isfinite(a) || !std::isfinite(b)) return q;
  double rem = std::fma(-q, b, a);  // a - q*b exactly
  int s = (rem > 0) - (rem < 0);
  if (b < 0) s = -s;
  return rto_fix(q, s);
}
double sqrt_rto(double a) {
  double s = std::sqrt(a);
  if (!std::isfinite(s) || s == 0) return s;
  double rem = std::fma(-s, s, a);
  return rto_fix(s, (rem > 0) - (rem < 0));
}

}  // namespace

// ---- f32
// -----------------------------------------------------------------------------------------
namespace detail {
uint32_t f32_arith_slow(int op, uint32_t a, uint32_t b, uint32_t c, Rounding r, bool ftz,
                        bool sat) {
  if (ftz) a = f32_flush(a), b = f32_flush(b), c = f32_flush(c);
  const double da = as_f32(a), db = as_f32(b), dc = as_f32(c);
  double x;
  switch (op) {
    case kOpAdd:
      x = sum_rto_mode(da, db, r);
      break;
    case kOpSub:
      x = sum_rto_mode(da, -db, r);
      break;
    case kOpMul:
      x = da * db;
      break;  // exact: 24 x 24 bits fit in 53
    default:
      x = sum_rto_mode(da * db, dc, r);
      break;
  }
  return finish32(round_double(x, kF32, r), ftz, sat);
}
}  // namespace detail

uint32_t f32_fma(uint32_t a, uint32_t b, uint32_t c, Rounding r, bool ftz, bool sat) {
  if (!detail::is_rn(r)) return detail::f32_arith_slow(detail::kOpFma, a, b, c, r, ftz, sat);
  if (ftz) a = f32_flush(a), b = f32_flush(b), c = f32_flush(c);
  // The product is exact in double; the sum rounded to odd, then to float by the host (nearest),
  // is the correctly rounded fma (double has >= 24 + 2 bits). Faster than a libm fmaf call.
  const double p = static_cast<double>(as_f32(a)) * as_f32(b), dc = as_f32(c);
  double s = sum_rto(p, dc);
  if (s == 0) s = p + dc;  // exact zero: the host's rn sum has the IEEE sign
  return detail::f32_finish(static_cast<float>(s), ftz, sat);
}

uint32_t f32_rcp(uint32_t a, Rounding r, bool approx, bool ftz) {
  if (!approx) return f32_div(0x3F800000u, a, r, false, false, ftz);
  // rcp.approx.f32: PTX max error 1 ulp; this is the correctly rounded reciprocal (0.5 ulp).
  if (ftz) a = f32_flush(a);
  return detail::f32_finish(1.0f / as_f32(a), ftz, false);
}

uint32_t f32_div(uint32_t a, uint32_t b, Rounding r, bool approx, bool full, bool ftz) {
  if (ftz) a = f32_flush(a), b = f32_flush(b);
  if (approx) {
    // div.approx.f32 is defined as a * rcp.approx(b), except for 2^126 < |b| < 2^128 where the
    // hardware's reciprocal underflows: 0, or NaN when a is infinite.
    const uint32_t mb = b & 0x7FFFFFFFu;
    if (mb > 0x7E800000u && mb < 0x7F800000u) {
      if (f32_is_nan(a)) return kF32CanonicalNaN;
      if ((a & 0x7FFFFFFFu) == 0x7F800000u) return kF32CanonicalNaN;
      return (a ^ b) & 0x80000000u;
    }
    return f32_mul(a, f32_rcp(b, Rounding::None, true, ftz), Rounding::Rn, ftz, false);
  }
  // div.full.f32 (PTX: max 2 ulp) is given the correctly rounded result, like div.rn.
  if (full || detail::is_rn(r)) return detail::f32_finish(as_f32(a) / as_f32(b), ftz, false);
  const double q = div_rto(as_f32(a), as_f32(b));
  return finish32(round_double(q, kF32, r), ftz, false);
}

uint32_t f32_sqrt(uint32_t a, Rounding r, bool approx, bool ftz) {
  if (ftz) a = f32_flush(a);
  // sqrt.approx.f32: PTX max relative error 2^-23; correctly rounded here.
  if (approx || detail::is_rn(r)) return detail::f32_finish(std::sqrt(as_f32(a)), ftz, false);
  return finish32(round_double(sqrt_rto(as_f32(a)), kF32, r), ftz, false);
}

// The SFU functions: evaluate in double (about 2^-50 relative error), round to nearest f32. The
// total error is at most 0.5 ulp + 2^-50 relative, inside every bound PTX documents below.
namespace {
template <class F>
uint32_t sfu(uint32_t a, bool ftz, F fn) {
  if (ftz) a = f32_flush(a);
  return detail::f32_finish(static_cast<float>(fn(static_cast<double>(as_f32(a)))), ftz, false);
}
}  // namespace
uint32_t f32_rsqrt(uint32_t a, bool ftz) {  // PTX: max relative error 2^-22.9
  return sfu(a, ftz, [](double x) { return 1.0 / std::sqrt(x); });
}
uint32_t f32_sin(uint32_t a, bool ftz) {  // PTX: max absolute error 2^-20.5 in [-100pi, 100pi]
  return sfu(a, ftz, [](double x) { return std::sin(x); });
}
uint32_t f32_cos(uint32_t a, bool ftz) {  // PTX: max absolute error 2^-20.5 in [-100pi, 100pi]
  return sfu(a, ftz, [](double x) { return std::cos(x); });
}
uint32_t f32_lg2(uint32_t a, bool ftz) {  // PTX: max absolute error 2^-22 (relative 2^-22.6)
  return sfu(a, ftz, [](double x) { return std::log2(x); });
}
uint32_t f32_ex2(uint32_t a, bool ftz) {  // PTX: max 2 ulp (rel. 2^-22.5) over the full range
  return sfu(a, ftz, [](double x) { return std::exp2(x); });
}
uint32_t f32_tanh(uint32_t a, bool ftz) {  // PTX: max relative error 2^-11
  return sfu(a, ftz, [](double x) { return std::tanh(x); });
}

// ---- min / max / testp / compare, any format
// ---------------------------------------------------------
namespace internal {

uint64_t fminmax(uint64_t a, uint64_t b, Fmt f, bool is_max, bool ftz, bool nan, bool xorsign_abs) {
  if (ftz) a = flush(a, f), b = flush(b, f);
  const bool an = is_nan(a, f), bn = is_nan(b, f);
  if (an || bn) {
    if (nan || (an && bn)) return canonical_nan(f);
    return an ? b : a;  // .xorsign.abs is ignored when a NaN decides the result
  }
  const uint64_t sign = f.sign_mask();
  const uint64_t xs = (a ^ b) & sign;
  if (xorsign_abs) a &= ~sign, b &= ~sign;
  const double x = decode(a, f), y = decode(b, f);
  uint64_t res;
  if (x == y) {  // equal values: only ±0 differ; -0 < +0
    const bool a_neg = a & sign;
    res = (a_neg == is_max) ? b : a;
  } else {
    res = ((x < y) != is_max) ? a : b;
  }
  if (xorsign_abs) res = (res & ~sign) | xs;
  return res;
}

bool ftestp(uint64_t a, Fmt f, TestpMode m) {
  switch (m) {
    case TestpMode::Finite:
      return (a & f.exp_mask()) != f.exp_mask();
    case TestpMode::Infinite:
      return is_inf(a, f);
    case TestpMode::Number:
      return !is_nan(a, f);
    case TestpMode::NotANumber:
      return is_nan(a, f);
    case TestpMode::Normal: {
      const uint64_t e = a & f.exp_mask();
      return e != 0 && e != f.exp_mask();
    }
    case TestpMode::Subnormal:
      return is_subnormal(a, f);
    default:
      return false;
  }
}

bool compare(double x, double y, CmpOp op) {
  const bool un = std::isnan(x) || std::isnan(y);
  switch (op) {
    case CmpOp::Eq:
      return !un && x == y;
    case CmpOp::Ne:
      return !un && x != y;
    case CmpOp::Lt:
    case CmpOp::Lo:
      return !un && x < y;
    case CmpOp::Le:
    case CmpOp::Ls:
      return !un && x <= y;
    case CmpOp::Gt:
    case CmpOp::Hi:
      return !un && x > y;
    case CmpOp::Ge:
    case CmpOp::Hs:
      return !un && x >= y;
    case CmpOp::Equ:
      return un || x == y;
    case CmpOp::Neu:
      return un || x != y;
    case CmpOp::Ltu:
      return un || x < y;
    case CmpOp::Leu:
      return un || x <= y;
    case CmpOp::Gtu:
      return un || x > y;
    case CmpOp::Geu:
      return un || x >= y;
    case CmpOp::Num:
      return !un;
    case CmpOp::Nan:
      return un;
    default:
      return false;
  }
}

}  // namespace internal

uint32_t f32_min(uint32_t a, uint32_t b, bool ftz, bool nan, bool xorsign_abs) {
  return static_cast<uint32_t>(fminmax(a, b, kF32, false, ftz, nan, xorsign_abs));
}
uint32_t f32_max(uint32_t a, uint32_t b, bool ftz, bool nan, bool xorsign_abs) {
  return static_cast<uint32_t>(fminmax(a, b, kF32, true, ftz, nan, xorsign_abs));
}
bool f32_testp(uint32_t a, TestpMode m) { return ftestp(a, kF32, m); }

bool fcmp(uint64_t a, uint64_t b, Type t, CmpOp op, bool ftz) {
  const Fmt f = fmt_of(t);
  if (f.mant != 52) a &= width_mask(f.bits()), b &= width_mask(f.bits());
  if (ftz) a = flush(a, f), b = flush(b, f);
  return compare(decode(a, f), decode(b, f), op);
}

unsigned fcmp_x2(uint32_t a, uint32_t b, Type t, CmpOp op, bool ftz) {
  const Type s = (t == Type::BF16x2 || t == Type::BF16) ? Type::BF16 : Type::F16;
  return (fcmp(a & 0xFFFF, b & 0xFFFF, s, op, ftz) ? 1u : 0u) |
         (fcmp(a >> 16, b >> 16, s, op, ftz) ? 2u : 0u);
}

// ---- f64
// -----------------------------------------------------------------------------------------
namespace detail {
uint64_t f64_arith_slow(int op, uint64_t a, uint64_t b, uint64_t c, Rounding r) {
  return f64_finish(f64_in_mode(op, as_f64(a), as_f64(b), as_f64(c), r));
}
}  // namespace detail

uint64_t f64_fma(uint64_t a, uint64_t b, uint64_t c, Rounding r) {
  if (!detail::is_rn(r)) return detail::f64_arith_slow(detail::kOpFma, a, b, c, r);
  return detail::f64_finish(std::fma(as_f64(a), as_f64(b), as_f64(c)));
}
uint64_t f64_div(uint64_t a, uint64_t b, Rounding r) {
  if (!detail::is_rn(r)) return detail::f64_arith_slow(kOpDiv, a, b, 0, r);
  return detail::f64_finish(as_f64(a) / as_f64(b));
}
uint64_t f64_rcp(uint64_t a, Rounding r, bool approx) {
  if (!approx) return f64_div(0x3FF0000000000000ull, a, r);
  // rcp.approx.ftz.f64: the SFU computes only the high word (sign, exponent, 20 fraction bits);
  // the low word is zero. Relative error below 2^-20.
  a = f64_flush(a);
  uint64_t q = f64_flush(detail::f64_finish(1.0 / as_f64(a)));
  return f64_is_nan(q) ? q : (q & 0xFFFFFFFF00000000ull);
}
uint64_t f64_sqrt(uint64_t a, Rounding r) {
  if (!detail::is_rn(r)) return detail::f64_arith_slow(kOpSqrt, a, 0, 0, r);
  return detail::f64_finish(std::sqrt(as_f64(a)));
}
uint64_t f64_rsqrt(uint64_t a) {
  // rsqrt.approx.f64: evaluated in long double and rounded (error about 0.5 ulp; PTX bound is
  // much looser).
  const long double x = as_f64(a);
  return detail::f64_finish(static_cast<double>(1.0L / std::sqrt(x)));
}
uint64_t f64_min(uint64_t a, uint64_t b, bool nan) {
  return fminmax(a, b, kF64, false, false, nan, false);
}
uint64_t f64_max(uint64_t a, uint64_t b, bool nan) {
  return fminmax(a, b, kF64, true, false, nan, false);
}
bool f64_testp(uint64_t a, TestpMode m) { return ftestp(a, kF64, m); }

}  // namespace warplab::func::num
