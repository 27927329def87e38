// Numeric semantics of PTX instructions: one bit-exact scalar function per operation, called by the
// functional executor once per active lane.
//
// What the hardware does: an SM has separate pipes for FP32 (FMA units, IEEE add/mul/fma with all
// four rounding modes, optional flush-to-zero), FP64, packed half precision (f16x2/bf16x2), the
// integer ALU, and the SFU ("special function unit", MUFU in SASS) that gives fast approximations
// of rcp/rsqrt/sqrt/sin/cos/lg2/ex2/tanh. Everything PTX defines exactly (IEEE arithmetic with a
// rounding mode, conversions, integer ops) is reproduced here bit for bit. SFU approximations are
// not documented bit for bit by NVIDIA; WarpLab computes them in double precision and rounds, which
// is always inside the error bound the PTX ISA documents (each function says which bound).
//
// Conventions (every function below):
//  - Values travel as raw bits: uint32_t for 32-bit and narrower types, uint64_t for 64-bit. f16
//  and
//    bf16 sit in the low 16 bits; f16x2/bf16x2 hold two halves of a uint32_t (element 0 = low
//    half). Integer results are returned zero-extended to 64 bits at the destination width (an s32
//    result of -1 is 0x00000000FFFFFFFF); use sign_extend() to read them as signed.
//  - Rounding::None means the instruction's default (round to nearest even for IEEE operations).
//  - `ftz` flushes subnormal inputs and subnormal results to a zero of the same sign.
//  - `sat` clamps a float result to [+0.0, 1.0]; NaN saturates to +0.0.
//  - f32 arithmetic that produces a NaN returns the GPU's canonical NaN 0x7FFFFFFF (input payloads
//  are
//    not propagated); f64 likewise returns 0x7FFFFFFFFFFFFFFF; f16 0x7FFF; bf16 0x7FFF.
//  - No function reads or leaves behind global state. Precondition: the host FPU is in its default
//    state (round to nearest, no FTZ/DAZ), which every function here restores if it changes it.
//
// Files: numeric_float.cpp (f32/f64 arithmetic and SFU functions), numeric_half.cpp (f16/bf16),
// numeric_convert.cpp (cvt and rounding to narrow formats), numeric_int.cpp (integer and bit ops).
#pragma once

#include <bit>
#include <cstdint>

#include "sim/ptx/isa.h"

namespace warplab::func::num {

using ptx::CmpOp;
using ptx::MulMode;
using ptx::PrmtMode;
using ptx::Rounding;
using ptx::ShfMode;
using ptx::TestpMode;
using ptx::Type;

inline constexpr uint32_t kF32CanonicalNaN = 0x7FFFFFFFu;
inline constexpr uint64_t kF64CanonicalNaN = 0x7FFFFFFFFFFFFFFFull;
inline constexpr uint32_t kF16CanonicalNaN = 0x7FFFu;
inline constexpr uint32_t kBF16CanonicalNaN = 0x7FFFu;

// ---- bit helpers
// ---------------------------------------------------------------------------------
inline float as_f32(uint32_t b) { return std::bit_cast<float>(b); }
inline double as_f64(uint64_t b) { return std::bit_cast<double>(b); }
inline uint32_t bits_f32(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t bits_f64(double d) { return std::bit_cast<uint64_t>(d); }
inline bool f32_is_nan(uint32_t a) { return (a & 0x7FFFFFFFu) > 0x7F800000u; }
inline bool f64_is_nan(uint64_t a) { return (a & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }
inline bool f32_is_subnormal(uint32_t a) {
  return (a & 0x7F800000u) == 0 && (a & 0x007FFFFFu) != 0;
}
// ftz on one f32 operand: a subnormal becomes a zero of the same sign.
inline uint32_t f32_flush(uint32_t a) { return (a & 0x7F800000u) == 0 ? (a & 0x80000000u) : a; }
inline uint64_t f64_flush(uint64_t a) {
  return (a & 0x7FF0000000000000ull) == 0 ? (a & 0x8000000000000000ull) : a;
}
// Low `bits` bits set: width_mask(16) == 0xFFFF.
inline uint64_t width_mask(int bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }
inline int64_t sign_extend(uint64_t v, int bits) {
  if (bits <= 0) return 0;  // no bits (a predicate's width): nothing to extend
  return bits >= 64 ? static_cast<int64_t>(v)
                    : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
}

// =================================================================================================
// f32 (numeric_float.cpp)
// =================================================================================================
namespace detail {
uint32_t f32_arith_slow(int op, uint32_t a, uint32_t b, uint32_t c, Rounding r, bool ftz, bool sat);
// The common tail of an f32 result: canonical NaN, ftz of the result, saturation.
inline uint32_t f32_finish(float x, bool ftz, bool sat) {
  uint32_t bits = bits_f32(x);
  if (x != x) return sat ? 0u : kF32CanonicalNaN;
  if (ftz) bits = f32_flush(bits);
  if (sat) {
    if (bits & 0x80000000u) return 0u;           // negative (incl. -0) -> +0
    if (bits > 0x3F800000u) return 0x3F800000u;  // > 1.0 (incl. +inf) -> 1.0
  }
  return bits;
}
inline bool is_rn(Rounding r) { return r == Rounding::None || r == Rounding::Rn; }
enum : int { kOpAdd = 0, kOpSub = 1, kOpMul = 2, kOpFma = 3 };
}  // namespace detail

// add/sub/mul/fma .f32 {.rn,.rz,.rm,.rp}{.ftz}{.sat}. mad.rnd.f32 is fma. IEEE, bit-exact.
// Round-to-nearest runs inline on the host FPU; directed modes go through exact integer rounding.
inline uint32_t f32_add(uint32_t a, uint32_t b, Rounding r = Rounding::None, bool ftz = false,
                        bool sat = false) {
  if (!detail::is_rn(r)) return detail::f32_arith_slow(detail::kOpAdd, a, b, 0, r, ftz, sat);
  if (ftz) a = f32_flush(a), b = f32_flush(b);
  return detail::f32_finish(as_f32(a) + as_f32(b), ftz, sat);
}
inline uint32_t f32_sub(uint32_t a, uint32_t b, Rounding r = Rounding::None, bool ftz = false,
                        bool sat = false) {
  if (!detail::is_rn(r)) return detail::f32_arith_slow(detail::kOpSub, a, b, 0, r, ftz, sat);
  if (ftz) a = f32_flush(a), b = f32_flush(b);
  return detail::f32_finish(as_f32(a) - as_f32(b), ftz, sat);
}
inline uint32_t f32_mul(uint32_t a, uint32_t b, Rounding r = Rounding::None, bool ftz = false,
                        bool sat = false) {
  if (!detail::is_rn(r)) return detail::f32_arith_slow(detail::kOpMul, a, b, 0, r, ftz, sat);
  if (ftz) a = f32_flush(a), b = f32_flush(b);
  return detail::f32_finish(as_f32(a) * as_f32(b), ftz, sat);
}
// fma: a*b+c with one rounding (also `mad.rnd.f32`).
uint32_t f32_fma(uint32_t a, uint32_t b, uint32_t c, Rounding r = Rounding::None, bool ftz = false,
                 bool sat = false);

// div.f32. approx: div.approx.f32 = a * rcp.approx(b) (for 2^126 < |b| < 2^128 it returns 0, or NaN
// when a is infinite, as PTX documents). full: div.full.f32 (PTX: max 2 ulp; WarpLab returns the
// correctly rounded quotient). Otherwise div.rnd.f32, IEEE with rounding r (default rn).
uint32_t f32_div(uint32_t a, uint32_t b, Rounding r = Rounding::None, bool approx = false,
                 bool full = false, bool ftz = false);
// rcp.rnd.f32 (IEEE 1/a) or rcp.approx.f32 (PTX: max 1 ulp; here correctly rounded).
uint32_t f32_rcp(uint32_t a, Rounding r = Rounding::None, bool approx = false, bool ftz = false);
// sqrt.rnd.f32 (IEEE) or sqrt.approx.f32 (PTX: max relative error 2^-23; here correctly rounded).
uint32_t f32_sqrt(uint32_t a, Rounding r = Rounding::None, bool approx = false, bool ftz = false);
// SFU approximations (all .approx). Each within PTX's bound; see numeric_float.cpp.
uint32_t f32_rsqrt(uint32_t a, bool ftz = false);  // PTX: max rel. error 2^-22.9
uint32_t f32_sin(uint32_t a, bool ftz = false);    // PTX: max abs. error 2^-20.5 in [-100pi, 100pi]
uint32_t f32_cos(uint32_t a, bool ftz = false);    // same as sin
uint32_t f32_lg2(uint32_t a, bool ftz = false);    // PTX: max abs. error 2^-22 (rel. 2^-22.6)
uint32_t f32_ex2(uint32_t a, bool ftz = false);    // PTX: max 2 ulp (ftz) / rel. error 2^-22.5
uint32_t f32_tanh(uint32_t a, bool ftz = false);   // PTX: max rel. error 2^-11

// min/max.f32{.ftz}{.NaN}{.xorsign.abs}. Default: if one operand is NaN return the other; both NaN
// -> canonical NaN. .NaN: any NaN -> canonical NaN. -0.0 < +0.0. .xorsign.abs: compare |a|, |b| and
// give the result the sign bit sign(a) ^ sign(b).
uint32_t f32_min(uint32_t a, uint32_t b, bool ftz = false, bool nan = false,
                 bool xorsign_abs = false);
uint32_t f32_max(uint32_t a, uint32_t b, bool ftz = false, bool nan = false,
                 bool xorsign_abs = false);
// abs/neg only touch the sign bit (NaN payloads pass through, as on the GPU); ftz flushes first.
inline uint32_t f32_abs(uint32_t a, bool ftz = false) {
  return (ftz ? f32_flush(a) : a) & 0x7FFFFFFFu;
}
inline uint32_t f32_neg(uint32_t a, bool ftz = false) {
  return (ftz ? f32_flush(a) : a) ^ 0x80000000u;
}
// copysign.f32 d, a, b: d = |b| with the sign of a (PTX operand order!).
inline uint32_t f32_copysign(uint32_t a, uint32_t b) {
  return (b & 0x7FFFFFFFu) | (a & 0x80000000u);
}
bool f32_testp(uint32_t a, TestpMode m);

// =================================================================================================
// f64 (numeric_float.cpp). No .ftz/.sat except where PTX has them (rcp/rsqrt.approx.ftz.f64).
// =================================================================================================
namespace detail {
uint64_t f64_arith_slow(int op, uint64_t a, uint64_t b, uint64_t c, Rounding r);
inline uint64_t f64_finish(double x) { return x != x ? kF64CanonicalNaN : bits_f64(x); }
}  // namespace detail
inline uint64_t f64_add(uint64_t a, uint64_t b, Rounding r = Rounding::None) {
  if (!detail::is_rn(r)) return detail::f64_arith_slow(detail::kOpAdd, a, b, 0, r);
  return detail::f64_finish(as_f64(a) + as_f64(b));
}
inline uint64_t f64_sub(uint64_t a, uint64_t b, Rounding r = Rounding::None) {
  if (!detail::is_rn(r)) return detail::f64_arith_slow(detail::kOpSub, a, b, 0, r);
  return detail::f64_finish(as_f64(a) - as_f64(b));
}
inline uint64_t f64_mul(uint64_t a, uint64_t b, Rounding r = Rounding::None) {
  if (!detail::is_rn(r)) return detail::f64_arith_slow(detail::kOpMul, a, b, 0, r);
  return detail::f64_finish(as_f64(a) * as_f64(b));
}
uint64_t f64_fma(uint64_t a, uint64_t b, uint64_t c, Rounding r = Rounding::None);
uint64_t f64_div(uint64_t a, uint64_t b, Rounding r = Rounding::None);  // div.rnd.f64, IEEE
// rcp.rnd.f64 (IEEE) or rcp.approx.ftz.f64 (approx: only the high 32 bits of the result are
// computed, as the hardware's MUFU.RCP64H does; PTX documents it as a coarse approximation).
uint64_t f64_rcp(uint64_t a, Rounding r = Rounding::None, bool approx = false);
uint64_t f64_sqrt(uint64_t a, Rounding r = Rounding::None);  // sqrt.rnd.f64, IEEE
uint64_t f64_rsqrt(uint64_t a);                              // rsqrt.approx{.ftz}.f64
uint64_t f64_min(uint64_t a, uint64_t b, bool nan = false);
uint64_t f64_max(uint64_t a, uint64_t b, bool nan = false);
inline uint64_t f64_abs(uint64_t a) { return a & 0x7FFFFFFFFFFFFFFFull; }
inline uint64_t f64_neg(uint64_t a) { return a ^ 0x8000000000000000ull; }
inline uint64_t f64_copysign(uint64_t a, uint64_t b) {  // |b| with the sign of a
  return (b & 0x7FFFFFFFFFFFFFFFull) | (a & 0x8000000000000000ull);
}
bool f64_testp(uint64_t a, TestpMode m);

// =================================================================================================
// f16 / bf16, scalar and x2 (numeric_half.cpp). `t` is one of F16, F16x2, BF16, BF16x2; x2 types
// apply the operation to each 16-bit half independently. Scalar results are in the low 16 bits.
// PTX allows: add/sub/mul {.rn}{.ftz}{.sat} for f16, .rn only for bf16; fma.rn{.ftz}{.sat|.relu}
// for f16, fma.rn{.relu} for bf16; min/max {.ftz}{.NaN}{.xorsign.abs}; ex2.approx; tanh.approx.
// .relu clamps negative results to +0 (NaN stays canonical NaN). Rounding r: rn (None), rz, rm, rp
// are all honoured even where PTX only offers rn.
// =================================================================================================
uint32_t half_add(Type t, uint32_t a, uint32_t b, Rounding r = Rounding::None, bool ftz = false,
                  bool sat = false);
uint32_t half_sub(Type t, uint32_t a, uint32_t b, Rounding r = Rounding::None, bool ftz = false,
                  bool sat = false);
uint32_t half_mul(Type t, uint32_t a, uint32_t b, Rounding r = Rounding::None, bool ftz = false,
                  bool sat = false);
uint32_t half_fma(Type t, uint32_t a, uint32_t b, uint32_t c, Rounding r = Rounding::None,
                  bool ftz = false, bool sat = false, bool relu = false);
uint32_t half_neg(Type t, uint32_t a, bool ftz = false);
uint32_t half_abs(Type t, uint32_t a, bool ftz = false);
uint32_t half_min(Type t, uint32_t a, uint32_t b, bool ftz = false, bool nan = false,
                  bool xorsign_abs = false, bool relu = false);
uint32_t half_max(Type t, uint32_t a, uint32_t b, bool ftz = false, bool nan = false,
                  bool xorsign_abs = false, bool relu = false);
uint32_t half_ex2(Type t, uint32_t a, bool ftz = false);  // ex2.approx: max rel. error 2^-9.9
uint32_t half_tanh(Type t, uint32_t a);                   // tanh.approx: max rel. error 2^-8
// Exact widening and rounding narrowing between a 16-bit float and f32.
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f, Rounding r = Rounding::None, bool sat = false, bool relu = false);
uint16_t f32_to_bf16(float f, Rounding r = Rounding::None, bool sat = false, bool relu = false);

// =================================================================================================
// comparisons (numeric_float.cpp for fcmp, numeric_int.cpp for icmp)
// =================================================================================================
// setp/set/slct on floats (F16, BF16, F32, F64). Ordered ops are false if either is NaN; the
// unordered ones (equ, neu, ...) are true then; num/nan test for NaN. ftz flushes subnormals first.
bool fcmp(uint64_t a, uint64_t b, Type t, CmpOp op, bool ftz = false);
// f16x2/bf16x2 setp: bit 0 = result for the low halves, bit 1 = result for the high halves.
unsigned fcmp_x2(uint32_t a, uint32_t b, Type t, CmpOp op, bool ftz = false);
// Integer comparisons at the width of t (signed for s*, unsigned for u*/b*; lo/ls/hi/hs unsigned).
bool icmp(uint64_t a, uint64_t b, Type t, CmpOp op);

// =================================================================================================
// cvt (numeric_convert.cpp)
// =================================================================================================
// cvt{.rnd}{.ftz}{.sat}{.relu}.dst.src for every integer/float pair (u8..u64, s8..s64, b*, f16,
// bf16, f32, f64). The PTX rules:
//  - float -> float, narrowing: r is rn (default), rz, rm, rp. Widening is exact (r must be None).
//    Same size (f32->f32, f64->f64): r is an integer rounding rni/rzi/rmi/rpi (round to integral).
//  - float -> int: r is rni, rzi, rmi or rpi (PTX requires one; None is taken as rzi, C's
//    truncation). Always saturates to the destination range; NaN -> 0.
//  - int -> float: r is rn (default), rz, rm, rp.
//  - int -> int: truncation or sign/zero extension; .sat clamps to the destination range.
//  - ftz: f32 subnormal inputs/outputs flush to zero. sat on a float destination clamps to [0,1].
//  - relu (f16/bf16 destinations): negative results become +0; NaN stays the canonical NaN.
// The result is the destination's bits, zero-extended (f16 in the low 16 bits).
uint64_t cvt(uint64_t src_bits, Type dst, Type src, Rounding r = Rounding::None, bool sat = false,
             bool ftz = false, bool relu = false);
// cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b / .bf16x2: d = {hi: cvt(a), lo: cvt(b)}.
uint32_t cvt_pack_x2(uint32_t a_f32, uint32_t b_f32, Type dst, Rounding r = Rounding::None,
                     bool relu = false, bool satfinite = false);
// Round a double to the nearest value of a narrower binary format (mant_bits explicit fraction
// bits, exp_bits exponent bits, IEEE layout, subnormals kept) with rounding r; returns the bits.
// Used by cvt and half arithmetic; exact (one rounding) when x holds the exact value or its
// round-to-odd.
uint64_t round_to_format(double x, int mant_bits, int exp_bits, Rounding r);

// =================================================================================================
// integer (numeric_int.cpp). `t` names the operation type (S32, U64, B16, ...); inputs are read at
// its width (upper bits ignored), results are zero-extended bits at the destination width.
// =================================================================================================
struct CarryResult {
  uint64_t value;
  bool carry;  // carry-out of add.cc/addc.cc; for sub.cc/subc.cc the borrow (1 = a < b + bin)
};
uint64_t int_add(uint64_t a, uint64_t b, Type t, bool sat = false);  // .sat: s32 only, clamps
uint64_t int_sub(uint64_t a, uint64_t b, Type t, bool sat = false);
// add.cc (carry_in false) / addc{.cc} (carry_in = CC.CF). 32 and 64 bit.
CarryResult add_carry(uint64_t a, uint64_t b, bool carry_in, Type t);
// sub.cc (borrow_in false) / subc{.cc}: a - b - borrow_in; carry = borrow out.
CarryResult sub_borrow(uint64_t a, uint64_t b, bool borrow_in, Type t);
// mul.{lo,hi,wide}: wide (16/32-bit types only) returns the full double-width product.
uint64_t int_mul(uint64_t a, uint64_t b, Type t, MulMode m);
// mad.{lo,hi,wide}{.sat}: mul then add c (c is double width for .wide). .sat only for mad.hi.s32.
uint64_t int_mad(uint64_t a, uint64_t b, uint64_t c, Type t, MulMode m, bool sat = false);
// mad.cc / madc: the .lo/.hi product plus c plus carry_in with carry-out (32/64 bit).
CarryResult int_mad_carry(uint64_t a, uint64_t b, uint64_t c, bool carry_in, Type t, MulMode m);
// mul24/mad24 {.lo,.hi}.{u32,s32}: 24x24 -> 48-bit product; lo = bits 0..31, hi = bits 16..47.
uint64_t mul24(uint64_t a, uint64_t b, Type t, bool hi);
uint64_t mad24(uint64_t a, uint64_t b, uint64_t c, Type t, bool hi, bool sat = false);
// div/rem. PTX leaves x/0 unspecified; like nvcc's code on the GPU, x/0 and x%0 return all ones
// (0xFF..F: -1 for signed types). INT_MIN / -1 = INT_MIN (wraps), INT_MIN % -1 = 0.
uint64_t int_div(uint64_t a, uint64_t b, Type t);
uint64_t int_rem(uint64_t a, uint64_t b, Type t);
uint64_t int_abs(uint64_t a, Type t);  // abs(INT_MIN) = INT_MIN
uint64_t int_neg(uint64_t a, Type t);
uint64_t int_min(uint64_t a, uint64_t b, Type t);
uint64_t int_max(uint64_t a, uint64_t b, Type t);
// Bit ops. popc/clz/brev/bfind on b32/b64 (bfind on u32/s32/u64/s64).
uint32_t popc(uint64_t a, Type t);
uint32_t clz(uint64_t a, Type t);
uint64_t brev(uint64_t a, Type t);
// bfind: position of the most significant non-sign bit; 0xFFFFFFFF when none. shiftamt:
// width-1-pos.
uint32_t bfind(uint64_t a, Type t, bool shiftamt = false);
// bfe.{u,s}{32,64} a, pos, len (pos, len read as 8-bit values, clamped as PTX specifies).
uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, Type t);
// bfi.b{32,64} f (field), b (base), pos, len: insert the low len bits of f into b at pos.
uint64_t bfi(uint64_t f, uint64_t b, uint32_t pos, uint32_t len, Type t);
// fns.b32 mask, base, offset: position of the offset-th set bit from base (0xFFFFFFFF if none).
uint32_t fns(uint32_t mask, uint32_t base, int32_t offset);
// prmt.b32{.mode} a, b, c: byte permute of {b, a} (bytes 0..3 from a, 4..7 from b) by selector c.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, PrmtMode m);
// lop3.b32 a, b, c, immLut: each result bit is immLut[(a<<2)|(b<<1)|c] (a=0xF0, b=0xCC, c=0xAA).
inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut) {
  uint32_t r = 0;
  if (lut & 0x01) r |= ~a & ~b & ~c;
  if (lut & 0x02) r |= ~a & ~b & c;
  if (lut & 0x04) r |= ~a & b & ~c;
  if (lut & 0x08) r |= ~a & b & c;
  if (lut & 0x10) r |= a & ~b & ~c;
  if (lut & 0x20) r |= a & ~b & c;
  if (lut & 0x40) r |= a & b & ~c;
  if (lut & 0x80) r |= a & b & c;
  return r;
}
// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit value {b:a} by c
// (wrap: c & 31; clamp: min(c, 32)). l returns the high word of ({b:a} << n), r the low word of >>
// n.
uint32_t shf(uint32_t a, uint32_t b, uint32_t c, ShfMode m);
// shl.b{16,32,64}, shr.{b,u,s}{16,32,64}: the amount is an unsigned 32-bit value; amounts >= the
// width give 0 (shl, shr.u/b) or the sign fill (shr.s).
uint64_t shl(uint64_t a, uint32_t n, Type t);
uint64_t shr(uint64_t a, uint32_t n, Type t);
// sad.{u,s}{16,32,64}: c + |a - b|.
uint64_t sad(uint64_t a, uint64_t b, uint64_t c, Type t);
// dp4a.atype.btype d, a, b, c: c + sum of 4 byte products (each byte signed if its type is s32).
uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed);
// dp2a.{lo,hi}: c + two 16-bit halves of a times bytes {0,1} (lo) or {2,3} (hi) of b.
uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed, bool hi);
inline uint64_t cnot(uint64_t a, Type t) {  // cnot.b*: d = (a == 0) ? 1 : 0
  return (a & width_mask(ptx::type_bits(t))) == 0 ? 1 : 0;
}

// =================================================================================================
// tensor-core element types and the accumulation rule (numeric_tensor.cpp)
// =================================================================================================
// FP8 formats (OCP "8-bit floating point", what PTX's .e4m3/.e5m2 are): e4m3 has 4 exponent bits
// (bias 7), 3 fraction bits, no infinities, NaN = S.1111.111, largest finite 448; e5m2 has 5
// exponent bits (bias 15), 2 fraction bits and IEEE infinities and NaNs, largest finite 57344.
double e4m3_to_double(uint8_t b);
double e5m2_to_double(uint8_t b);
// Round to nearest even to e4m3/e5m2. satfinite: a finite value too large becomes the largest
// finite value of that sign (an infinity too; NaN stays NaN, 0x7F). Without satfinite, too large
// gives NaN 0x7F (e4m3, which has no infinity) or an infinity (e5m2).
uint8_t double_to_e4m3(double x, bool satfinite);
uint8_t double_to_e5m2(double x, bool satfinite);
// A .tf32 operand: an f32 bit pattern of which the tensor core reads the sign, the exponent and
// the top 10 fraction bits (the low 13 fraction bits are ignored: truncated, not rounded).
double tf32_operand_to_double(uint32_t f32_bits);

// THE ACCUMULATION RULE of the tensor-core model, in one place. `products` holds the K exact
// products a[k]*b[k] of one output element (each is exact in a double for f16, bf16, tf32, e4m3
// and e5m2 inputs) and `exps` their exponents as the hardware sees them, e_a + e_b: the sum of the
// operands' exponent fields (unbiased; a subnormal operand counts its format's smallest normal
// exponent), so a product whose significand is in [2, 4) has one less than its true exponent;
// `c` is the accumulator input, exact. Measured on the H100 (mma.sync m16n8k16 f16/bf16 -> f32,
// 65,536 outputs reproduced bit for bit: scripts/microbench/TENSOR-ASYNC-2026-11-26.md):
//   1. emax = the largest exponent among the nonzero products (e_a + e_b) and c (its own);
//   2. every product and c is truncated toward zero to a multiple of 2^(emax - 25);
//   3. the truncated terms are summed exactly;
//   4. the sum is rounded to f32 toward zero.
// NaN in, an infinity minus an infinity, or 0 * infinity gives the canonical NaN; infinities
// pass through. Not measured (the same rule is applied): m16n8k8 and tf32 shapes, subnormal
// results (kept, rounded toward zero), overflow (toward zero: the largest finite f32), the sign
// of a zero result (-0 only when every term is -0).
uint32_t mma_accumulate_f32(const double* products, const int* exps, int k, double c);
// f16 accumulators (mma .f16.f16.f16.f16): not measured. WarpLab sums the exact products and c
// exactly and rounds once to f16, to nearest even.
uint32_t mma_accumulate_f16(const double* products, int k, double c);
// The exponent a tensor core uses for an operand of `mant` fraction bits and `exp` exponent bits
// with value v (nonzero, finite): floor(log2 |v|), or the format's smallest normal exponent for a
// subnormal.
int mma_operand_exponent(double v, int exp_bits);

}  // namespace warplab::func::num
