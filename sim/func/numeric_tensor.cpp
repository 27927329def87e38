// Tensor-core numerics: the FP8 formats, tf32 operands, and the accumulation rule of mma.sync.
//
// A tensor core computes a small dot product per output element per step: K products a*b of
// narrow inputs (f16, bf16, tf32, e4m3, e5m2) added to an f32 (or f16) accumulator. The products
// of such narrow inputs are exact in the hardware (a 11x11-bit significand product has 22 bits);
// what NVIDIA does not document is how the K products and the accumulator are added: in what
// order, with what width, and where it rounds or truncates. WarpLab keeps that choice in one
// place, mma_accumulate_f32() below: the rule measured on the H100 (numeric.h gives it): terms
// aligned to the largest exponent and truncated 25 bits below it, summed exactly, the sum rounded
// toward zero.
//
// The exact sum is held in a fixed-point integer wide enough for every addend here: bit 0 weighs
// 2^-300 (below the smallest product of two bf16 or tf32 subnormals, 2^-272) and 704 bits reach
// past 2^400 (above K times the largest product of two bf16 values, about 2^262).
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>

#include "sim/func/numeric.h"
#include "sim/func/numeric_detail.h"

namespace warplab::func::num {
namespace {

using internal::Fmt;

// A signed fixed-point integer of kWords 64-bit words (two's complement), weight of bit 0 2^-kLsb.
class ExactSum {
 public:
  static constexpr int kWords = 11;
  static constexpr int kLsb = 300;

  // Adds a finite double exactly.
  void add(double v) {
    if (v == 0) {
      if (!std::signbit(v)) all_negative_zero_ = false;
      return;
    }
    all_negative_zero_ = false;
    int e = 0;
    const double f = std::frexp(std::fabs(v), &e);  // |v| = f * 2^e, f in [0.5, 1)
    const auto mant = static_cast<uint64_t>(std::ldexp(f, 53));
    const int pos = e - 53 + kLsb;  // bit position of mant's lowest bit
    // A product or accumulator of the formats here never sits below bit 0 (see the top comment).
    const unsigned __int128 wide = static_cast<unsigned __int128>(mant) << (pos % 64);
    const uint64_t part[2] = {static_cast<uint64_t>(wide), static_cast<uint64_t>(wide >> 64)};
    int w = pos / 64;
    if (v > 0) {
      unsigned __int128 carry = 0;
      for (int i = 0; w + i < kWords; ++i) {
        const unsigned __int128 s =
            static_cast<unsigned __int128>(words_[w + i]) + (i < 2 ? part[i] : 0) + carry;
        words_[w + i] = static_cast<uint64_t>(s);
        carry = s >> 64;
        if (i >= 1 && carry == 0) break;
      }
    } else {
      uint64_t borrow = 0;
      for (int i = 0; w + i < kWords; ++i) {
        const uint64_t sub = i < 2 ? part[i] : 0;
        const uint64_t old = words_[w + i];
        const uint64_t r = old - sub - borrow;
        borrow = (old < sub || (old == sub && borrow)) ? 1 : 0;
        words_[w + i] = r;
        if (i >= 1 && borrow == 0) break;
      }
    }
  }

  // The exact sum rounded in format f with mode r (bits of f).
  uint64_t round(Fmt f, Rounding r) const {
    std::array<uint64_t, kWords> m = words_;
    const bool neg = (m[kWords - 1] >> 63) != 0;
    if (neg) {  // magnitude = -value
      uint64_t carry = 1;
      for (auto& w : m) {
        w = ~w + carry;
        carry = (carry && w == 0) ? 1 : 0;
      }
    }
    int top = kWords - 1;
    while (top >= 0 && m[top] == 0) --top;
    if (top < 0) return all_negative_zero_ ? f.sign_mask() : 0;
    const int h = top * 64 + 63 - std::countl_zero(m[top]);  // highest set bit
    auto bit_range = [&](int lo) {                           // the 64 bits from bit lo up
      uint64_t out = 0;
      for (int b = 0; b < 64; ++b) {
        const int i = lo + b;
        if (i >= 0 && i < kWords * 64 && ((m[i / 64] >> (i % 64)) & 1)) out |= 1ull << b;
      }
      return out;
    };
    const int lo = h - 63;
    const uint64_t sig = bit_range(lo);
    bool sticky = false;
    for (int i = 0; i < lo && !sticky; ++i) sticky = (m[i / 64] >> (i % 64)) & 1;
    return internal::round_pack(neg, sig, lo - kLsb, sticky, f, r);
  }

 private:
  std::array<uint64_t, kWords> words_{};
  bool all_negative_zero_ = true;
};

// NaN and infinities (numeric.h): true (with `out` set) when they decide the result.
bool special(const double* products, int k, double c, Fmt f, uint64_t& out) {
  bool nan = std::isnan(c), pos_inf = std::isinf(c) && c > 0, neg_inf = std::isinf(c) && c < 0;
  for (int i = 0; i < k; ++i) {
    const double p = products[i];
    nan |= std::isnan(p);
    pos_inf |= std::isinf(p) && p > 0;
    neg_inf |= std::isinf(p) && p < 0;
  }
  if (nan || (pos_inf && neg_inf)) return out = internal::canonical_nan(f), true;
  if (pos_inf || neg_inf) return out = internal::inf_bits(neg_inf, f), true;
  return false;
}

// An 8-bit float with `mant` fraction bits and `exp` exponent bits, as a double.
double fp8_to_double(uint8_t b, int mant, int exp, bool ieee_specials) {
  const bool neg = b & 0x80;
  const int e = (b >> mant) & ((1 << exp) - 1), frac = b & ((1 << mant) - 1);
  const int bias = (1 << (exp - 1)) - 1;
  double v;
  if (ieee_specials && e == (1 << exp) - 1)
    v = frac ? NAN : INFINITY;
  else if (!ieee_specials && e == (1 << exp) - 1 && frac == (1 << mant) - 1)
    v = NAN;
  else if (e == 0)
    v = std::ldexp(frac, 1 - bias - mant);
  else
    v = std::ldexp(frac | (1 << mant), e - bias - mant);
  return neg ? -v : v;
}

// Round to nearest even into an 8-bit float whose largest finite magnitude is max_finite.
uint8_t double_to_fp8(double x, int mant, int exp, double max_finite, bool ieee_specials,
                      bool satfinite) {
  const uint8_t nan = 0x7F;  // e4m3: S.1111.111; e5m2: S.11111.11 (a quiet NaN)
  if (std::isnan(x)) return nan;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const int bias = (1 << (exp - 1)) - 1, emin = 1 - bias;
  const uint8_t max_bits =
      static_cast<uint8_t>(ieee_specials ? ((((1 << exp) - 2) << mant) | ((1 << mant) - 1))
                                         : ((((1 << exp) - 1) << mant) | ((1 << mant) - 2)));
  const uint8_t inf_bits = static_cast<uint8_t>(((1 << exp) - 1) << mant);
  const double a = std::fabs(x);
  auto too_big = [&]() -> uint8_t {
    if (satfinite) return sign | max_bits;
    return ieee_specials ? (sign | inf_bits) : nan;
  };
  if (std::isinf(a)) return too_big();
  if (a == 0) return sign;
  int e = std::ilogb(a);
  if (e < emin) e = emin;
  const double ulp = std::ldexp(1.0, e - mant);
  const double q = std::nearbyint(a / ulp);  // exact division by a power of two; rn (default)
  const double v = q * ulp;
  if (v > max_finite) return too_big();
  if (v == 0) return sign;
  if (v < std::ldexp(1.0, emin))  // subnormal
    return static_cast<uint8_t>(sign | static_cast<int>(v / std::ldexp(1.0, emin - mant)));
  const int ve = std::ilogb(v);
  const int frac = static_cast<int>(v / std::ldexp(1.0, ve - mant)) - (1 << mant);
  return static_cast<uint8_t>(sign | ((ve + bias) << mant) | frac);
}

}  // namespace

double e4m3_to_double(uint8_t b) { return fp8_to_double(b, 3, 4, false); }
double e5m2_to_double(uint8_t b) { return fp8_to_double(b, 2, 5, true); }
uint8_t double_to_e4m3(double x, bool satfinite) {
  return double_to_fp8(x, 3, 4, 448.0, false, satfinite);
}
uint8_t double_to_e5m2(double x, bool satfinite) {
  return double_to_fp8(x, 2, 5, 57344.0, true, satfinite);
}

double tf32_operand_to_double(uint32_t f32_bits) {
  if (f32_is_nan(f32_bits)) return NAN;
  return static_cast<double>(as_f32(f32_bits & 0xFFFFE000u));
}

uint32_t mma_accumulate_f32(const double* products, const int* exps, int k, double c) {
  uint64_t out = 0;
  if (special(products, k, c, internal::kF32, out)) return static_cast<uint32_t>(out);
  // 1. The largest exponent among the nonzero terms.
  int emax = INT_MIN;
  for (int i = 0; i < k; ++i)
    if (products[i] != 0) emax = std::max(emax, exps[i]);
  if (c != 0) emax = std::max(emax, std::ilogb(c));
  if (emax == INT_MIN) {  // every term is zero: -0 only if all are -0
    bool all_neg = std::signbit(c);
    for (int i = 0; i < k; ++i) all_neg = all_neg && std::signbit(products[i]);
    return all_neg ? 0x80000000u : 0u;
  }
  // 2.-3. Each term truncated toward zero to a multiple of 2^(emax - 25), summed exactly. A term
  // is below 2^(emax + 2) (a product's significand is below 4), so it is fewer than 2^27 units
  // and the sum of at most 33 fits an int64 with room to spare.
  const double inv_unit = std::ldexp(1.0, 25 - emax);
  int64_t units = static_cast<int64_t>(std::trunc(c * inv_unit));  // exact: a power-of-two scale
  for (int i = 0; i < k; ++i) units += static_cast<int64_t>(std::trunc(products[i] * inv_unit));
  if (units == 0) return 0u;  // an exact zero sum is +0
  // 4. Rounded toward zero.
  const bool neg = units < 0;
  const uint64_t mag = neg ? 0 - static_cast<uint64_t>(units) : static_cast<uint64_t>(units);
  return static_cast<uint32_t>(
      internal::round_pack(neg, mag, emax - 25, false, internal::kF32, Rounding::Rz));
}

uint32_t mma_accumulate_f16(const double* products, int k, double c) {
  uint64_t out = 0;
  if (special(products, k, c, internal::kF16, out)) return static_cast<uint32_t>(out);
  ExactSum sum;
  for (int i = 0; i < k; ++i) sum.add(products[i]);
  sum.add(c);
  return static_cast<uint32_t>(sum.round(internal::kF16, Rounding::Rn));
}

int mma_operand_exponent(double v, int exp_bits) {
  const int emin = 2 - (1 << (exp_bits - 1));  // 1 - bias
  return std::max(std::ilogb(v), emin);
}

}  // namespace warplab::func::num
