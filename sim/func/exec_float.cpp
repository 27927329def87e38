// Floating-point instructions: f32 and f64 arithmetic, SFU approximations, f16/bf16 (x2),
// float compares and selects.
//
// On an SM the FP32 pipe (FFMA/FADD/FMUL), the FP64 pipe and the SFU (MUFU: rcp, rsqrt, sin, cos,
// lg2, ex2, tanh) execute these. Bit-exact results come from numeric.h (num::); this file binds
// them to registers. f32 add/mul/fma in round-to-nearest, the bulk of any kernel's float work,
// get fast paths specialised on .ftz/.sat; every other combination calls num:: with the
// instruction's rounding mode and flags.
#include <bit>
#include <cmath>

#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::CmpOp;
using ptx::Opcode;
using ptx::Rounding;
using ptx::Type;

inline uint32_t u32(uint64_t v) { return static_cast<uint32_t>(v); }

// ---- f32 fast paths (round to nearest), specialised on ftz/sat ---------------------------------
template <bool F, bool S>
void add_f32_rn(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32;
  for_lanes(x.exec, [&](int l) {
    R[o + l] = num::f32_add(u32(R[sa + l]), u32(R[sb + l]), Rounding::Rn, F, S);
  });
}
template <bool F, bool S>
void sub_f32_rn(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32;
  for_lanes(x.exec, [&](int l) {
    R[o + l] = num::f32_sub(u32(R[sa + l]), u32(R[sb + l]), Rounding::Rn, F, S);
  });
}
template <bool F, bool S>
void mul_f32_rn(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32;
  for_lanes(x.exec, [&](int l) {
    R[o + l] = num::f32_mul(u32(R[sa + l]), u32(R[sb + l]), Rounding::Rn, F, S);
  });
}
template <bool F, bool S>
void fma_f32_rn(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32, sc = d.s[2] * 32;
  for_lanes(x.exec, [&](int l) {
    uint32_t a = u32(R[sa + l]), b = u32(R[sb + l]), c = u32(R[sc + l]);
    if constexpr (F) a = num::f32_flush(a), b = num::f32_flush(b), c = num::f32_flush(c);
    R[o + l] =
        num::detail::f32_finish(std::fma(num::as_f32(a), num::as_f32(b), num::as_f32(c)), F, S);
  });
}
#if defined(__x86_64__) && defined(__GNUC__)
// The same with the host's FMA instruction inline (std::fma above calls libm's fmaf once a
// lane): a fused multiply-add rounds once, to nearest, in hardware as in libm, so every lane's
// bits are the same (NaNs leave f32_finish canonical either way). Picked when the host has FMA.
// (Its lambda names the target too: a lambda does not inherit its function's.)
template <bool F, bool S>
__attribute__((target("fma"))) void fma_f32_rn_fma3(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32, sc = d.s[2] * 32;
  auto lane = [&](int l) __attribute__((always_inline, target("fma"))) {
    uint32_t a = u32(R[sa + l]), b = u32(R[sb + l]), c = u32(R[sc + l]);
    if constexpr (F) a = num::f32_flush(a), b = num::f32_flush(b), c = num::f32_flush(c);
    R[o + l] = num::detail::f32_finish(
        __builtin_fmaf(num::as_f32(a), num::as_f32(b), num::as_f32(c)), F, S);
  };
  if (x.exec == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; ++l) lane(l);
  } else {
    for (uint32_t m = x.exec; m; m &= m - 1) lane(std::countr_zero(m));
  }
}
#endif
#define WL_PICK4(FN)                                                                              \
  Handler pick_##FN(bool f, bool s) {                                                             \
    return f ? (s ? FN<true, true> : FN<true, false>) : (s ? FN<false, true> : FN<false, false>); \
  }
WL_PICK4(add_f32_rn)
WL_PICK4(sub_f32_rn)
WL_PICK4(mul_f32_rn)
#if defined(__x86_64__) && defined(__GNUC__)
WL_PICK4(fma_f32_rn_fma3)
Handler pick_fma_f32_rn(bool f, bool s) {
  if (__builtin_cpu_supports("fma")) return pick_fma_f32_rn_fma3(f, s);
  return f ? (s ? fma_f32_rn<true, true> : fma_f32_rn<true, false>)
           : (s ? fma_f32_rn<false, true> : fma_f32_rn<false, false>);
}
#else
WL_PICK4(fma_f32_rn)
#endif

// ---- f32 general --------------------------------------------------------------------------------
WL_LANES2(add_f32, num::f32_add(u32(a), u32(b), md.rounding, md.ftz, md.sat))
WL_LANES2(sub_f32, num::f32_sub(u32(a), u32(b), md.rounding, md.ftz, md.sat))
WL_LANES2(mul_f32, num::f32_mul(u32(a), u32(b), md.rounding, md.ftz, md.sat))
WL_LANES3(fma_f32, num::f32_fma(u32(a), u32(b), u32(c), md.rounding, md.ftz, md.sat))
WL_LANES2(div_f32, num::f32_div(u32(a), u32(b), md.rounding, md.approx, md.full, md.ftz))
WL_LANES1(abs_f32, num::f32_abs(u32(a), md.ftz))
WL_LANES1(neg_f32, num::f32_neg(u32(a), md.ftz))
WL_LANES2(min_f32, num::f32_min(u32(a), u32(b), md.ftz, md.nan, md.xorsign))
WL_LANES2(max_f32, num::f32_max(u32(a), u32(b), md.ftz, md.nan, md.xorsign))
WL_LANES1(rcp_f32, num::f32_rcp(u32(a), md.rounding, md.approx, md.ftz))
WL_LANES1(sqrt_f32, num::f32_sqrt(u32(a), md.rounding, md.approx, md.ftz))
WL_LANES1(rsqrt_f32, num::f32_rsqrt(u32(a), md.ftz))
WL_LANES1(sin_f32, num::f32_sin(u32(a), md.ftz))
WL_LANES1(cos_f32, num::f32_cos(u32(a), md.ftz))
WL_LANES1(lg2_f32, num::f32_lg2(u32(a), md.ftz))
WL_LANES1(ex2_f32, num::f32_ex2(u32(a), md.ftz))
WL_LANES1(tanh_f32, num::f32_tanh(u32(a), md.ftz))
WL_LANES2(copysign_f32, num::f32_copysign(u32(a), u32(b)))

// ---- f64 ---------------------------------------------------------------------------------------
WL_LANES2(add_f64, num::f64_add(a, b, md.rounding))
WL_LANES2(sub_f64, num::f64_sub(a, b, md.rounding))
WL_LANES2(mul_f64, num::f64_mul(a, b, md.rounding))
WL_LANES3(fma_f64, num::f64_fma(a, b, c, md.rounding))
WL_LANES2(div_f64, num::f64_div(a, b, md.rounding))
WL_LANES1(abs_f64, num::f64_abs(a))
WL_LANES1(neg_f64, num::f64_neg(a))
WL_LANES2(min_f64, num::f64_min(a, b, md.nan))
WL_LANES2(max_f64, num::f64_max(a, b, md.nan))
WL_LANES1(rcp_f64, num::f64_rcp(a, md.rounding, md.approx))
WL_LANES1(sqrt_f64, num::f64_sqrt(a, md.rounding))
WL_LANES1(rsqrt_f64, num::f64_rsqrt(a))
WL_LANES2(copysign_f64, num::f64_copysign(a, b))

// ---- f16 / bf16 (scalar and x2) -----------------------------------------------------------------
WL_LANES2(add_half, num::half_add(t, u32(a), u32(b), md.rounding, md.ftz, md.sat))
WL_LANES2(sub_half, num::half_sub(t, u32(a), u32(b), md.rounding, md.ftz, md.sat))
WL_LANES2(mul_half, num::half_mul(t, u32(a), u32(b), md.rounding, md.ftz, md.sat))
WL_LANES3(fma_half, num::half_fma(t, u32(a), u32(b), u32(c), md.rounding, md.ftz, md.sat, md.relu))
WL_LANES1(neg_half, num::half_neg(t, u32(a), md.ftz))
WL_LANES1(abs_half, num::half_abs(t, u32(a), md.ftz))
WL_LANES2(min_half, num::half_min(t, u32(a), u32(b), md.ftz, md.nan, md.xorsign, md.relu))
WL_LANES2(max_half, num::half_max(t, u32(a), u32(b), md.ftz, md.nan, md.xorsign, md.relu))
WL_LANES1(ex2_half, num::half_ex2(t, u32(a), md.ftz))
WL_LANES1(tanh_half, num::half_tanh(t, u32(a)))

// ---- compares, selects, tests ------------------------------------------------------------------
void setp_float(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const CmpOp c = d.ir->mod.cmp;
  const bool ftz = d.ir->mod.ftz;
  const uint64_t* R = x.R;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    r |= static_cast<uint32_t>(num::fcmp(R[d.s[0] * 32 + l], R[d.s[1] * 32 + l], t, c, ftz)) << l;
  });
  const auto op = d.ir->mod.bool_op;
  const uint32_t pc = d.np ? pred_mask(x, d, 0) : 0;
  write_pred(x, d.d[0], combine(r, pc, op));
  if (d.nd > 1) write_pred(x, d.d[1], combine(~r, pc, op));
}
// setp.f16x2 / bf16x2 p|q: p gets the low halves' result, q the high halves'.
void setp_x2(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const CmpOp c = d.ir->mod.cmp;
  const uint64_t* R = x.R;
  uint32_t lo = 0, hi = 0;
  for_lanes(x.exec, [&](int l) {
    const unsigned v =
        num::fcmp_x2(u32(R[d.s[0] * 32 + l]), u32(R[d.s[1] * 32 + l]), t, c, d.ir->mod.ftz);
    lo |= (v & 1u) << l;
    hi |= ((v >> 1) & 1u) << l;
  });
  const auto op = d.ir->mod.bool_op;
  const uint32_t pc = d.np ? pred_mask(x, d, 0) : 0;
  write_pred(x, d.d[0], combine(lo, pc, op));
  if (d.nd > 1) write_pred(x, d.d[1], combine(hi, pc, op));
}
void set_float(Exec& x, const DInst& d) {
  const Type dt = d.ir->type, st = d.ir->type2;
  const CmpOp c = d.ir->mod.cmp;
  uint64_t* R = x.R;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    r |= static_cast<uint32_t>(
             num::fcmp(R[d.s[0] * 32 + l], R[d.s[1] * 32 + l], st, c, d.ir->mod.ftz))
         << l;
  });
  r = combine(r, d.np ? pred_mask(x, d, 0) : 0, d.ir->mod.bool_op);
  const uint64_t one = dt == Type::F32 ? 0x3F800000u : num::width_mask(ptx::type_bits(dt));
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = ((r >> l) & 1) ? one : 0; });
}
void slct_float(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const bool ftz = d.ir->mod.ftz;
  for_lanes(x.exec, [&](int l) {
    const bool ge = num::fcmp(R[d.s[2] * 32 + l], 0, Type::F32, CmpOp::Ge, ftz);
    R[d.d[0] * 32 + l] = ge ? R[d.s[0] * 32 + l] : R[d.s[1] * 32 + l];
  });
}
void testp_float(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const auto mode = d.ir->mod.testp;
  const uint64_t* R = x.R;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    const uint64_t a = R[d.s[0] * 32 + l];
    const bool v = t == Type::F64 ? num::f64_testp(a, mode) : num::f32_testp(u32(a), mode);
    r |= static_cast<uint32_t>(v) << l;
  });
  write_pred(x, d.d[0], r);
}

bool is_half(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2;
}
bool is_rn(Rounding r) { return r == Rounding::None || r == Rounding::Rn; }
bool float_rounding(Rounding r) {
  return r == Rounding::None || r == Rounding::Rn || r == Rounding::Rz || r == Rounding::Rm ||
         r == Rounding::Rp;
}

}  // namespace

Handler pick_float(const ptx::Instruction& in, DInst& d, std::string& why) {
  const auto& m = in.mod;
  const Type t = (in.op == Opcode::Set || in.op == Opcode::Slct) ? in.type2 : in.type;
  const bool f32 = t == Type::F32, f64 = t == Type::F64, half = is_half(t);
  auto need = [&](int nd, int ns) {
    if (d.nd >= nd && d.ns >= ns) return true;
    why = "wrong number of operands";
    return false;
  };
  if (!float_rounding(m.rounding)) {
    why = "rounding ." + std::string(ptx::rounding_name(m.rounding)) + " is not valid here";
    return nullptr;
  }
  switch (in.op) {
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
      if (!need(1, 2)) return nullptr;
      if (f32) {
        if (is_rn(m.rounding)) {
          if (in.op == Opcode::Add) return pick_add_f32_rn(m.ftz, m.sat);
          if (in.op == Opcode::Sub) return pick_sub_f32_rn(m.ftz, m.sat);
          return pick_mul_f32_rn(m.ftz, m.sat);
        }
        return in.op == Opcode::Add ? add_f32 : in.op == Opcode::Sub ? sub_f32 : mul_f32;
      }
      if (f64) {
        if (m.ftz || m.sat) break;
        return in.op == Opcode::Add ? add_f64 : in.op == Opcode::Sub ? sub_f64 : mul_f64;
      }
      if (half) return in.op == Opcode::Add ? add_half : in.op == Opcode::Sub ? sub_half : mul_half;
      break;
    case Opcode::Fma:
    case Opcode::Mad:
      if (!need(1, 3)) return nullptr;
      if (f32) return is_rn(m.rounding) ? pick_fma_f32_rn(m.ftz, m.sat) : fma_f32;
      if (f64) return m.ftz || m.sat ? nullptr : fma_f64;
      if (half) return fma_half;
      break;
    case Opcode::Div:
      if (!need(1, 2)) return nullptr;
      if (f32) {
        if (!m.approx && !m.full && m.rounding == Rounding::None) {
          why = "div.f32 needs .approx, .full or a rounding mode";
          return nullptr;
        }
        return div_f32;
      }
      if (f64) return div_f64;
      break;
    case Opcode::Abs:
      return !need(1, 1) ? nullptr : f32 ? abs_f32 : f64 ? abs_f64 : half ? abs_half : nullptr;
    case Opcode::Neg:
      return !need(1, 1) ? nullptr : f32 ? neg_f32 : f64 ? neg_f64 : half ? neg_half : nullptr;
    case Opcode::Min:
      return !need(1, 2) ? nullptr : f32 ? min_f32 : f64 ? min_f64 : half ? min_half : nullptr;
    case Opcode::Max:
      return !need(1, 2) ? nullptr : f32 ? max_f32 : f64 ? max_f64 : half ? max_half : nullptr;
    case Opcode::Rcp:
      if (!need(1, 1)) return nullptr;
      if (!m.approx && m.rounding == Rounding::None) {
        why = "rcp needs .approx or a rounding mode";
        return nullptr;
      }
      return f32 ? rcp_f32 : f64 ? rcp_f64 : nullptr;
    case Opcode::Sqrt:
      if (!need(1, 1)) return nullptr;
      if (!m.approx && m.rounding == Rounding::None) {
        why = "sqrt needs .approx or a rounding mode";
        return nullptr;
      }
      if (f64 && m.approx) break;
      return f32 ? sqrt_f32 : f64 ? sqrt_f64 : nullptr;
    case Opcode::Rsqrt:
      return !need(1, 1) ? nullptr : f32 ? rsqrt_f32 : f64 ? rsqrt_f64 : nullptr;
    case Opcode::Sin:
      return need(1, 1) && f32 ? sin_f32 : nullptr;
    case Opcode::Cos:
      return need(1, 1) && f32 ? cos_f32 : nullptr;
    case Opcode::Lg2:
      return need(1, 1) && f32 ? lg2_f32 : nullptr;
    case Opcode::Ex2:
      return !need(1, 1) ? nullptr : f32 ? ex2_f32 : half ? ex2_half : nullptr;
    case Opcode::Tanh:
      return !need(1, 1) ? nullptr : f32 ? tanh_f32 : half ? tanh_half : nullptr;
    case Opcode::Copysign:
      return !need(1, 2) ? nullptr : f32 ? copysign_f32 : f64 ? copysign_f64 : nullptr;
    case Opcode::Testp:
      if (!need(1, 1) || !(d.dpred & 1) || m.testp == ptx::TestpMode::None) break;
      return f32 || f64 ? testp_float : nullptr;
    case Opcode::Setp:
      if (!need(1, 2) || !(d.dpred & 1) || m.cmp == CmpOp::None) break;
      if (t == Type::F16x2 || t == Type::BF16x2) return setp_x2;
      return setp_float;
    case Opcode::Set:
      if (!need(1, 2) || m.cmp == CmpOp::None || t == Type::F16x2 || t == Type::BF16x2) break;
      return set_float;
    case Opcode::Slct:
      return need(1, 3) && f32 ? slct_float : nullptr;
    default:
      why = "opcode not implemented by the functional executor";
      return nullptr;
  }
  if (why.empty()) why = "this type/modifier combination is not supported";
  return nullptr;
}

}  // namespace warplab::func
