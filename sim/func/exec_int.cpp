// Integer, bitwise, predicate-logic, compare and select instructions.
//
// These run on the SM's integer pipe (IMAD/IADD3/LOP3/SHF in SASS). Their bit-exact semantics
// live in numeric.h (num::); this file only wires them to the warp's registers: one handler per
// operation, looping over the lanes in the exec mask. The most frequent forms in compiled CUDA
// (32/64-bit add, mad.lo, mul.wide, shifts, logic, compares) have inline fast paths; everything
// else calls the num:: function for the instruction's type.
#include <bit>

#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::CmpOp;
using ptx::MulMode;
using ptx::Opcode;
using ptx::Type;

// ---- fast paths (32/64-bit) --------------------------------------------------------------------
WL_LANES2(add_u32, static_cast<uint32_t>(a + b))
WL_LANES2(add_u64, a + b)
WL_LANES2(sub_u32, static_cast<uint32_t>(a - b))
WL_LANES2(sub_u64, a - b)
WL_LANES2(mul_lo_u32, static_cast<uint32_t>(a* b))
WL_LANES2(mul_lo_u64, a* b)
WL_LANES2(mul_wide_s32,
          static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)))
WL_LANES2(mul_wide_u32, uint64_t{static_cast<uint32_t>(a)} * static_cast<uint32_t>(b))
WL_LANES3(mad_lo_u32, static_cast<uint32_t>(a* b + c))
WL_LANES3(mad_lo_u64, a* b + c)
WL_LANES3(mad_wide_s32,
          static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) + c)
WL_LANES3(mad_wide_u32, uint64_t{static_cast<uint32_t>(a)} * static_cast<uint32_t>(b) + c)
WL_LANES2(and_b, a& b)
WL_LANES2(or_b, a | b)
WL_LANES2(xor_b, a ^ b)
WL_LANES1(not_b, ~a& num::width_mask(ptx::type_bits(t)))
// The shift amount is the operand's low 32 bits (a .u32 operand), also when PTX names a wider
// register: shifting by the whole 64-bit value would be undefined for a value the check passed.
WL_LANES2(shl_b32,
          static_cast<uint32_t>(b) >= 32 ? 0 : static_cast<uint32_t>(a << static_cast<uint32_t>(b)))
WL_LANES2(shl_b64, static_cast<uint32_t>(b) >= 64 ? 0 : a << static_cast<uint32_t>(b))
WL_LANES2(shr_u32,
          static_cast<uint32_t>(b) >= 32 ? 0 : static_cast<uint32_t>(a) >> static_cast<uint32_t>(b))
WL_LANES2(shr_u64, static_cast<uint32_t>(b) >= 64 ? 0 : a >> static_cast<uint32_t>(b))
WL_LANES2(shr_s32, static_cast<uint32_t>(static_cast<int32_t>(a) >>
                                         std::min<uint32_t>(static_cast<uint32_t>(b), 31)))
WL_LANES2(shr_s64, static_cast<uint64_t>(static_cast<int64_t>(a) >>
                                         std::min<uint32_t>(static_cast<uint32_t>(b), 63)))
WL_LANES2(min_s32,
          static_cast<uint32_t>(std::min(static_cast<int32_t>(a), static_cast<int32_t>(b))))
WL_LANES2(max_s32,
          static_cast<uint32_t>(std::max(static_cast<int32_t>(a), static_cast<int32_t>(b))))
WL_LANES2(min_u32, std::min(static_cast<uint32_t>(a), static_cast<uint32_t>(b)))
WL_LANES2(max_u32, std::max(static_cast<uint32_t>(a), static_cast<uint32_t>(b)))

// ---- generic (num::) ---------------------------------------------------------------------------
WL_LANES2(add_gen, num::int_add(a, b, t, md.sat))
WL_LANES2(sub_gen, num::int_sub(a, b, t, md.sat))
WL_LANES2(mul_gen, num::int_mul(a, b, t, md.mul))
WL_LANES3(mad_gen, num::int_mad(a, b, c, t, md.mul, md.sat))
WL_LANES2(mul24_gen, num::mul24(a, b, t, md.mul == MulMode::Hi))
WL_LANES3(mad24_gen, num::mad24(a, b, c, t, md.mul == MulMode::Hi, md.sat))
WL_LANES2(div_gen, num::int_div(a, b, t))
WL_LANES2(rem_gen, num::int_rem(a, b, t))
WL_LANES1(abs_gen, num::int_abs(a, t))
WL_LANES1(neg_gen, num::int_neg(a, t))
WL_LANES2(min_gen, num::int_min(a, b, t))
WL_LANES2(max_gen, num::int_max(a, b, t))
WL_LANES1(popc_gen, num::popc(a, t))
WL_LANES1(clz_gen, num::clz(a, t))
WL_LANES1(brev_gen, num::brev(a, t))
WL_LANES1(bfind_gen, num::bfind(a, t, md.shiftamt))
WL_LANES3(bfe_gen, num::bfe(a, static_cast<uint32_t>(b), static_cast<uint32_t>(c), t))
WL_LANES2(shl_gen, num::shl(a, static_cast<uint32_t>(b), t))
WL_LANES2(shr_gen, num::shr(a, static_cast<uint32_t>(b), t))
WL_LANES1(cnot_gen, num::cnot(a, t))
WL_LANES3(sad_gen, num::sad(a, b, c, t))
WL_LANES3(prmt_gen, num::prmt(static_cast<uint32_t>(a), static_cast<uint32_t>(b),
                              static_cast<uint32_t>(c), md.prmt))
WL_LANES3(shf_gen, num::shf(static_cast<uint32_t>(a), static_cast<uint32_t>(b),
                            static_cast<uint32_t>(c), md.shf))
WL_LANES3(fns_gen,
          num::fns(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<int32_t>(c)))
WL_LANES3(dp4a_gen,
          num::dp4a(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c),
                    ptx::is_signed_int(d.ir->type), ptx::is_signed_int(d.ir->type2)))
WL_LANES3(dp2a_gen,
          num::dp2a(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(c),
                    ptx::is_signed_int(d.ir->type), ptx::is_signed_int(d.ir->type2), d.aux != 0))
// lop3: the lookup table is an immediate, decoded into d.aux.
WL_LANES3(lop3_b32, num::lop3(static_cast<uint32_t>(a), static_cast<uint32_t>(b),
                              static_cast<uint32_t>(c), static_cast<uint8_t>(d.aux)))

void bfi_gen(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  uint64_t* R = x.R;
  for_lanes(x.exec, [&](int l) {
    R[d.d[0] * 32 + l] =
        num::bfi(R[d.s[0] * 32 + l], R[d.s[1] * 32 + l], static_cast<uint32_t>(R[d.s[2] * 32 + l]),
                 static_cast<uint32_t>(R[d.s[3] * 32 + l]), t);
  });
}

// Carry chain: the CC.CF flag is a hidden per-lane register (slot d.aux).
void add_cc(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const bool sub = d.ir->op == Opcode::Sub || d.ir->op == Opcode::Subc;
  const bool cin = d.ir->op == Opcode::Addc || d.ir->op == Opcode::Subc;
  const bool cout = d.ir->mod.carry_out;
  uint64_t* R = x.R;
  const int cc = static_cast<int>(d.aux) * 32;
  for_lanes(x.exec, [&](int l) {
    const uint64_t a = R[d.s[0] * 32 + l], b = R[d.s[1] * 32 + l];
    const bool ci = cin && (R[cc + l] & 1);
    const num::CarryResult r = sub ? num::sub_borrow(a, b, ci, t) : num::add_carry(a, b, ci, t);
    R[d.d[0] * 32 + l] = r.value;
    if (cout) R[cc + l] = r.carry ? 1 : 0;
  });
}
// mad.cc (carry out) and madc (carry in, and out with .cc): d = a*b (.lo or .hi) + c + CF.
void mad_cc(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const auto& md = d.ir->mod;
  const bool cin = d.ir->op == Opcode::Madc;
  uint64_t* R = x.R;
  const int cc = static_cast<int>(d.aux) * 32;
  for_lanes(x.exec, [&](int l) {
    const bool ci = cin && (R[cc + l] & 1);
    const num::CarryResult r = num::int_mad_carry(R[d.s[0] * 32 + l], R[d.s[1] * 32 + l],
                                                  R[d.s[2] * 32 + l], ci, t, md.mul);
    R[d.d[0] * 32 + l] = r.value;
    if (md.carry_out) R[cc + l] = r.carry ? 1 : 0;
  });
}

// ---- predicates --------------------------------------------------------------------------------
void pred_and(Exec& x, const DInst& d) {
  write_pred(x, d.d[0], pred_mask(x, d, 0) & pred_mask(x, d, 1));
}
void pred_or(Exec& x, const DInst& d) {
  write_pred(x, d.d[0], pred_mask(x, d, 0) | pred_mask(x, d, 1));
}
void pred_xor(Exec& x, const DInst& d) {
  write_pred(x, d.d[0], pred_mask(x, d, 0) ^ pred_mask(x, d, 1));
}
void pred_not(Exec& x, const DInst& d) { write_pred(x, d.d[0], ~pred_mask(x, d, 0)); }

// setp/set finish: combine with the optional predicate c and write one or two predicates.
inline void finish_setp(Exec& x, const DInst& d, uint32_t r) {
  const auto op = d.ir->mod.bool_op;
  const uint32_t c = d.np ? pred_mask(x, d, 0) : 0;
  write_pred(x, d.d[0], combine(r, c, op));
  if (d.nd > 1) write_pred(x, d.d[1], combine(~r, c, op));
}

template <class T, CmpOp C>
void setp_fast(Exec& x, const DInst& d) {
  const uint64_t* R = x.R;
  const int sa = d.s[0] * 32, sb = d.s[1] * 32;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    const T a = static_cast<T>(R[sa + l]), b = static_cast<T>(R[sb + l]);
    bool v;
    if constexpr (C == CmpOp::Eq)
      v = a == b;
    else if constexpr (C == CmpOp::Ne)
      v = a != b;
    else if constexpr (C == CmpOp::Lt)
      v = a < b;
    else if constexpr (C == CmpOp::Le)
      v = a <= b;
    else if constexpr (C == CmpOp::Gt)
      v = a > b;
    else
      v = a >= b;
    r |= static_cast<uint32_t>(v) << l;
  });
  finish_setp(x, d, r);
}
void setp_gen(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const CmpOp c = d.ir->mod.cmp;
  const uint64_t* R = x.R;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    r |= static_cast<uint32_t>(num::icmp(R[d.s[0] * 32 + l], R[d.s[1] * 32 + l], t, c)) << l;
  });
  finish_setp(x, d, r);
}
void set_gen(Exec& x, const DInst& d) {
  const Type dt = d.ir->type, st = d.ir->type2;
  const CmpOp c = d.ir->mod.cmp;
  uint64_t* R = x.R;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    r |= static_cast<uint32_t>(num::icmp(R[d.s[0] * 32 + l], R[d.s[1] * 32 + l], st, c)) << l;
  });
  const uint32_t pc = d.np ? pred_mask(x, d, 0) : 0;
  r = combine(r, pc, d.ir->mod.bool_op);
  const uint64_t one = dt == Type::F32 ? 0x3F800000u : num::width_mask(ptx::type_bits(dt));
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = ((r >> l) & 1) ? one : 0; });
}
void selp_gen(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const uint32_t c = pred_mask(x, d, 0);
  const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32;
  for_lanes(x.exec, [&](int l) { R[o + l] = ((c >> l) & 1) ? R[sa + l] : R[sb + l]; });
}
void slct_int(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  for_lanes(x.exec, [&](int l) {
    const bool ge = static_cast<int32_t>(R[d.s[2] * 32 + l]) >= 0;
    R[d.d[0] * 32 + l] = ge ? R[d.s[0] * 32 + l] : R[d.s[1] * 32 + l];
  });
}

template <class T>
Handler pick_setp_fast(CmpOp c) {
  switch (c) {
    case CmpOp::Eq:
      return setp_fast<T, CmpOp::Eq>;
    case CmpOp::Ne:
      return setp_fast<T, CmpOp::Ne>;
    case CmpOp::Lt:
    case CmpOp::Lo:
      return setp_fast<T, CmpOp::Lt>;
    case CmpOp::Le:
    case CmpOp::Ls:
      return setp_fast<T, CmpOp::Le>;
    case CmpOp::Gt:
    case CmpOp::Hi:
      return setp_fast<T, CmpOp::Gt>;
    case CmpOp::Ge:
    case CmpOp::Hs:
      return setp_fast<T, CmpOp::Ge>;
    default:
      return nullptr;
  }
}

bool int_type(Type t) {
  return ptx::is_signed_int(t) || ptx::is_unsigned_int(t) || ptx::is_bits(t);
}

}  // namespace

Handler pick_int(const ptx::Instruction& in, DInst& d, std::string& why) {
  const Type t = in.type;
  const auto& m = in.mod;
  const int bits = ptx::type_bits(t);
  const bool s = ptx::is_signed_int(t);
  const bool pred_dst = (d.dpred & 1) != 0;
  auto need = [&](int nd, int ns, int np = 0) {
    if (d.nd >= nd && d.ns >= ns && d.np >= np) return true;
    why = "wrong number of operands";
    return false;
  };
  // Predicate logic: and/or/xor/not/mov on .pred.
  if (t == Type::Pred) {
    if (!pred_dst) {
      why = "predicate operation needs a predicate destination";
      return nullptr;
    }
    switch (in.op) {
      case Opcode::And:
        return need(1, 0, 2) ? pred_and : nullptr;
      case Opcode::Or:
        return need(1, 0, 2) ? pred_or : nullptr;
      case Opcode::Xor:
        return need(1, 0, 2) ? pred_xor : nullptr;
      case Opcode::Not:
        return need(1, 0, 1) ? pred_not : nullptr;
      default:
        why = "not defined on .pred";
        return nullptr;
    }
  }
  if (in.op == Opcode::Selp) {  // a bit-level select: any 16/32/64-bit type, floats included
    if (bits < 16 || bits > 64) {
      why = "selp needs a 16, 32 or 64-bit type";
      return nullptr;
    }
    return need(1, 2, 1) ? selp_gen : nullptr;
  }
  if (!int_type(t) || bits > 64 || bits < 8) {
    why = "type ." + std::string(ptx::type_name(t)) + " is not supported here";
    return nullptr;
  }
  const bool w3264 = bits == 32 || bits == 64;
  switch (in.op) {
    case Opcode::Add:
    case Opcode::Sub:
      if (!need(1, 2)) return nullptr;
      if (m.carry_out) {
        if (!w3264) break;
        return add_cc;
      }
      if (m.sat && t != Type::S32) {
        why = ".sat is only defined for .s32";
        return nullptr;
      }
      if (!m.sat && bits == 32) return in.op == Opcode::Add ? add_u32 : sub_u32;
      if (!m.sat && bits == 64) return in.op == Opcode::Add ? add_u64 : sub_u64;
      return in.op == Opcode::Add ? add_gen : sub_gen;
    case Opcode::Addc:
    case Opcode::Subc:
      if (!need(1, 2) || !w3264) break;
      return add_cc;
    case Opcode::Madc:
      if (!need(1, 3) || !w3264) break;
      if (m.mul == MulMode::Wide) {
        why = "madc has no .wide form";
        return nullptr;
      }
      return mad_cc;
    case Opcode::Mul:
      if (!need(1, 2) || bits < 16) break;
      if (m.mul == MulMode::Wide && bits == 64) {
        why = "mul.wide is not defined for 64-bit types";
        return nullptr;
      }
      if (m.mul == MulMode::Lo || m.mul == MulMode::None) {
        if (bits == 32) return mul_lo_u32;
        if (bits == 64) return mul_lo_u64;
      }
      if (m.mul == MulMode::Wide && bits == 32) return s ? mul_wide_s32 : mul_wide_u32;
      return mul_gen;
    case Opcode::Mad:
      if (!need(1, 3) || bits < 16) break;
      if (m.mul == MulMode::Wide && bits == 64) {
        why = "mad.wide is not defined for 64-bit types";
        return nullptr;
      }
      if (m.carry_out) return w3264 ? mad_cc : nullptr;
      if (!m.sat && (m.mul == MulMode::Lo || m.mul == MulMode::None)) {
        if (bits == 32) return mad_lo_u32;
        if (bits == 64) return mad_lo_u64;
      }
      if (!m.sat && m.mul == MulMode::Wide && bits == 32) return s ? mad_wide_s32 : mad_wide_u32;
      return mad_gen;
    case Opcode::Mul24:
      return need(1, 2) && bits == 32 ? mul24_gen : nullptr;
    case Opcode::Mad24:
      return need(1, 3) && bits == 32 ? mad24_gen : nullptr;
    case Opcode::Div:
      return need(1, 2) && bits >= 16 ? div_gen : nullptr;
    case Opcode::Rem:
      return need(1, 2) && bits >= 16 ? rem_gen : nullptr;
    case Opcode::Abs:
      return need(1, 1) && s ? abs_gen : nullptr;
    case Opcode::Neg:
      return need(1, 1) && s ? neg_gen : nullptr;
    case Opcode::Min:
    case Opcode::Max:
      if (!need(1, 2) || bits < 16) break;
      if (bits == 32 && !m.relu) {
        if (in.op == Opcode::Min) return s ? min_s32 : min_u32;
        return s ? max_s32 : max_u32;
      }
      if (m.relu) {
        why = ".relu is not supported on integer min/max";
        return nullptr;
      }
      return in.op == Opcode::Min ? min_gen : max_gen;
    case Opcode::Popc:
      return need(1, 1) && w3264 ? popc_gen : nullptr;
    case Opcode::Clz:
      return need(1, 1) && w3264 ? clz_gen : nullptr;
    case Opcode::Bfind:
      return need(1, 1) && w3264 ? bfind_gen : nullptr;
    case Opcode::Brev:
      return need(1, 1) && w3264 ? brev_gen : nullptr;
    case Opcode::Bfe:
      return need(1, 3) && w3264 ? bfe_gen : nullptr;
    case Opcode::Bfi:
      return need(1, 4) && w3264 ? bfi_gen : nullptr;
    case Opcode::Fns:
      return need(1, 3) && bits == 32 ? fns_gen : nullptr;
    case Opcode::Prmt:
      return need(1, 3) && bits == 32 ? prmt_gen : nullptr;
    case Opcode::Lop3: {
      if (!need(1, 4) || bits != 32) break;
      const auto& lut = in.ops.back();
      if (lut.kind != ptx::Operand::Kind::Imm) {
        why = "lop3 needs an immediate lookup table";
        return nullptr;
      }
      d.aux = lut.bits & 0xFF;
      return lop3_b32;
    }
    case Opcode::And:
      return need(1, 2) ? and_b : nullptr;
    case Opcode::Or:
      return need(1, 2) ? or_b : nullptr;
    case Opcode::Xor:
      return need(1, 2) ? xor_b : nullptr;
    case Opcode::Not:
      return need(1, 1) ? not_b : nullptr;
    case Opcode::Cnot:
      return need(1, 1) ? cnot_gen : nullptr;
    case Opcode::Shl:
      if (!need(1, 2) || bits < 16) break;
      if (bits == 32) return shl_b32;
      if (bits == 64) return shl_b64;
      return shl_gen;
    case Opcode::Shr:
      if (!need(1, 2) || bits < 16) break;
      if (bits == 32) return s ? shr_s32 : shr_u32;
      if (bits == 64) return s ? shr_s64 : shr_u64;
      return shr_gen;
    case Opcode::Shf:
      if (!need(1, 3) || bits != 32 || m.shf == ptx::ShfMode::None) break;
      return shf_gen;
    case Opcode::Sad:
      return need(1, 3) && bits >= 16 ? sad_gen : nullptr;
    case Opcode::Dp4a:
      return need(1, 3) ? dp4a_gen : nullptr;
    case Opcode::Dp2a:
      if (!need(1, 3)) break;
      d.aux = m.mul == MulMode::Hi ? 1 : 0;
      return dp2a_gen;
    case Opcode::Setp: {
      if (!need(1, 2) || !pred_dst || bits < 16) break;
      if (m.cmp == CmpOp::None) {
        why = "setp needs a comparison";
        return nullptr;
      }
      const bool unsigned_cmp = m.cmp == CmpOp::Lo || m.cmp == CmpOp::Ls || m.cmp == CmpOp::Hi ||
                                m.cmp == CmpOp::Hs || !s;
      Handler h = nullptr;
      if (bits == 32)
        h = unsigned_cmp ? pick_setp_fast<uint32_t>(m.cmp) : pick_setp_fast<int32_t>(m.cmp);
      if (bits == 64)
        h = unsigned_cmp ? pick_setp_fast<uint64_t>(m.cmp) : pick_setp_fast<int64_t>(m.cmp);
      if (m.cmp >= CmpOp::Equ) {
        why = "unordered comparisons need a float type";
        return nullptr;
      }
      return h ? h : setp_gen;
    }
    case Opcode::Set:
      if (!need(1, 2) || m.cmp == CmpOp::None || m.cmp >= CmpOp::Equ) break;
      if (!int_type(in.type2) && in.type2 != Type::None) break;
      return set_gen;
    case Opcode::Selp:
      return need(1, 2, 1) ? selp_gen : nullptr;
    case Opcode::Slct:
      return need(1, 3) && bits >= 16 ? slct_int : nullptr;
    default:
      why = "opcode not implemented by the functional executor";
      return nullptr;
  }
  if (why.empty()) why = "this type/modifier combination is not supported";
  return nullptr;
}

}  // namespace warplab::func
