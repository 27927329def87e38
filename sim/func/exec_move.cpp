// Data movement between registers: mov (including special registers, symbol addresses and
// vector pack/unpack), cvt between every integer and float type, cvta between the generic address
// space and a state space, isspacep.
//
// Generic addressing: an SM maps one 64-bit generic address space onto its state spaces with
// windows: a shared window (this block's shared memory), a local window (this thread's stack), and
// everything else global. cvta.shared adds the window base to a shared offset; cvta.to.shared
// subtracts it. WarpLab's windows are kSharedWindow and kLocalWindow (cta_impl.h); constant
// memory is addressed by its device address, so cvta.const is the identity.
#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::Opcode;
using ptx::Space;
using ptx::Type;

void mov_data(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32;
  const uint64_t mask = d.aux;
  for_lanes(x.exec, [&](int l) { R[o + l] = R[sa + l] & mask; });
}
void mov_pred(Exec& x, const DInst& d) { write_pred(x, d.d[0], pred_mask(x, d, 0)); }
void mov_pred_imm(Exec& x, const DInst& d) {
  const uint32_t v = (x.R[d.s[0] * 32] & 1) ? ~0u : 0u;
  write_pred(x, d.d[0], v);
}
// mov.u32 %r, %clock / mov.u64 %rd, %clock64 / %globaltimer.
void mov_clock(Exec& x, const DInst& d) {
  const auto r = static_cast<ptx::SpecialReg>(d.aux);
  uint64_t v = x.clock;
  if (r == ptx::SpecialReg::Clock) v &= 0xFFFFFFFFu;
  if (r == ptx::SpecialReg::Globaltimer) v *= 1;  // one "nanosecond" per cycle, simplified
  for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = v & d.dmask; });
}
// mov.b64 %rd, {%r1, %r2}: element 0 in the low bits.
void mov_pack(Exec& x, const DInst& d) {
  const int eb = static_cast<int>(d.aux);
  const uint64_t em = num::width_mask(eb);
  for_lanes(x.exec, [&](int l) {
    uint64_t v = 0;
    for (int e = 0; e < d.ns; ++e) v |= (x.R[d.s[e] * 32 + l] & em) << (e * eb);
    x.R[d.d[0] * 32 + l] = v;
  });
}
void mov_unpack(Exec& x, const DInst& d) {
  const int eb = static_cast<int>(d.aux);
  const uint64_t em = num::width_mask(eb);
  for_lanes(x.exec, [&](int l) {
    const uint64_t v = x.R[d.s[0] * 32 + l];
    for (int e = 0; e < d.nd; ++e) x.R[d.d[e] * 32 + l] = (v >> (e * eb)) & em;
  });
}

void cvt_gen(Exec& x, const DInst& d) {
  const auto& in = *d.ir;
  uint64_t* R = x.R;
  const int o = d.d[0] * 32, sa = d.s[0] * 32;
  for_lanes(x.exec, [&](int l) {
    R[o + l] = num::cvt(R[sa + l], in.type, in.type2, in.mod.rounding, in.mod.sat, in.mod.ftz,
                        in.mod.relu) &
               d.dmask;
  });
}
// Integer widening/narrowing without .sat: the common cvt.u64.u32 / cvt.s64.s32 / cvt.u32.u64.
void cvt_zext(Exec& x, const DInst& d) {
  const uint64_t m = d.aux;
  for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = x.R[d.s[0] * 32 + l] & m & d.dmask; });
}
void cvt_sext(Exec& x, const DInst& d) {
  const int sb = static_cast<int>(d.aux);
  for_lanes(x.exec, [&](int l) {
    x.R[d.d[0] * 32 + l] =
        static_cast<uint64_t>(num::sign_extend(x.R[d.s[0] * 32 + l], sb)) & d.dmask;
  });
}
void cvt_pack(Exec& x, const DInst& d) {
  const auto& in = *d.ir;
  for_lanes(x.exec, [&](int l) {
    x.R[d.d[0] * 32 + l] = num::cvt_pack_x2(static_cast<uint32_t>(x.R[d.s[0] * 32 + l]),
                                            static_cast<uint32_t>(x.R[d.s[1] * 32 + l]), in.type,
                                            in.mod.rounding, in.mod.relu, in.mod.sat);
  });
}

// cvta: d.aux = window base, added (to generic) or subtracted (to the space); d.dmask = width.
void cvta_add(Exec& x, const DInst& d) {
  for_lanes(x.exec,
            [&](int l) { x.R[d.d[0] * 32 + l] = (x.R[d.s[0] * 32 + l] + d.aux) & d.dmask; });
}
void cvta_sub(Exec& x, const DInst& d) {
  for_lanes(x.exec,
            [&](int l) { x.R[d.d[0] * 32 + l] = (x.R[d.s[0] * 32 + l] - d.aux) & d.dmask; });
}
void isspacep_h(Exec& x, const DInst& d) {
  const Space sp = d.ir->space;
  uint32_t r = 0;
  for_lanes(x.exec, [&](int l) {
    const uint64_t a = x.R[d.s[0] * 32 + l];
    const bool sh = a - kSharedWindow < kWindowSize, lo = a - kLocalWindow < kWindowSize;
    bool v = false;
    if (sp == Space::Shared)
      v = sh;
    else if (sp == Space::Local)
      v = lo;
    else
      v = !sh && !lo;  // global / const
    r |= static_cast<uint32_t>(v) << l;
  });
  write_pred(x, d.d[0], r);
}

}  // namespace

Handler pick_move(const ptx::Instruction& in, DInst& d, std::string& why) {
  const Type t = in.type;
  switch (in.op) {
    case Opcode::Mov: {
      if (d.nd < 1) break;
      if (d.dpred & 1) {
        if (d.np == 1) return mov_pred;
        if (d.ns == 1) return mov_pred_imm;
        break;
      }
      if (d.nd == 1 && d.ns == 0 && d.aux != 0) return mov_clock;
      if (d.nd > 1) {  // unpack
        if (d.ns != 1) break;
        d.aux = static_cast<uint64_t>(ptx::type_bits(t) / d.nd);
        return mov_unpack;
      }
      if (d.ns > 1) {  // pack
        d.aux = static_cast<uint64_t>(ptx::type_bits(t) / d.ns);
        return mov_pack;
      }
      if (d.ns != 1) break;
      d.aux = num::width_mask(std::max(1, ptx::type_bits(t)));
      return mov_data;
    }
    case Opcode::Cvt: {
      if (d.nd < 1 || d.ns < 1) break;
      if (in.type2 == Type::None || t == Type::None) {
        why = "cvt needs a destination and a source type (cvt.rn.f32.u32, not cvt.rn.f32)";
        return nullptr;
      }
      if (t == Type::F16x2 || t == Type::BF16x2) {
        if (d.ns != 2 || in.type2 != Type::F32) break;
        return cvt_pack;
      }
      if (ptx::type_bits(t) > 64 || ptx::type_bits(in.type2) > 64 || in.type2 == Type::Pred ||
          t == Type::Pred || in.type2 == Type::F16x2 || in.type2 == Type::BF16x2)
        break;
      const bool int_d = !ptx::is_float(t), int_s = !ptx::is_float(in.type2);
      if (int_d && int_s && !in.mod.sat) {
        const int db = ptx::type_bits(t), sb = ptx::type_bits(in.type2);
        if (db <= sb || !ptx::is_signed_int(in.type2)) {
          d.aux = num::width_mask(std::min(db, sb));
          return cvt_zext;
        }
        d.aux = static_cast<uint64_t>(sb);
        d.dmask &= num::width_mask(db);
        return cvt_sext;
      }
      return cvt_gen;
    }
    case Opcode::Cvta: {
      if (d.nd < 1 || d.ns < 1) break;
      d.dmask = num::width_mask(ptx::type_bits(t) == 32 ? 32 : 64);
      switch (in.space) {
        case Space::Global:
        case Space::Const:
          d.aux = 0;
          break;
        case Space::Shared:
          d.aux = kSharedWindow;
          break;
        case Space::Local:
          d.aux = kLocalWindow;
          break;
        case Space::Param:  // a kernel parameter's generic address (cta_impl.h)
          d.aux = kParamWindow;
          break;
        default:
          why =
              "cvta on the ." + std::string(ptx::space_name(in.space)) + " space is not supported";
          return nullptr;
      }
      return in.mod.to_space ? cvta_sub : cvta_add;
    }
    case Opcode::Isspacep:
      if (d.nd < 1 || d.ns < 1 || !(d.dpred & 1)) break;
      return isspacep_h;
    default:
      break;
  }
  if (why.empty()) why = "unsupported operand or type combination";
  return nullptr;
}

}  // namespace warplab::func
