// Warp-level instructions: shfl.sync, vote.sync, match.sync, redux.sync, activemask.
//
// These exchange data between the lanes of one warp without memory: the hardware reads every
// lane's source register in one cycle and routes it through a crossbar. The member mask names the
// lanes that take part; a lane outside it (or not active) contributes nothing. All reads happen
// before any lane writes, so `shfl.sync %r1, %r1, ...` is well defined, as on the GPU.
// Simplified: if the member mask names lanes that are not active on this SIMT path, Volta-class
// hardware would wait for them; WarpLab uses the active members only (the result a correct,
// converged program sees is the same).
#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::Opcode;
using ptx::Type;

inline uint32_t member_mask(const Exec& x, const DInst& d, int slot_index) {
  if (slot_index < 0 || slot_index >= d.ns || x.exec == 0) return x.exec;
  return static_cast<uint32_t>(x.R[d.s[slot_index] * 32 + std::countr_zero(x.exec)]) & x.exec;
}

// shfl.sync.mode.b32 d{|p}, a, b, c, membermask (PTX ISA pseudo-code).
void shfl_h(Exec& x, const DInst& d) {
  const auto mode = d.ir->mod.shfl;
  uint64_t* R = x.R;
  uint64_t val[32];
  uint32_t pbits = 0;
  for_lanes(x.exec, [&](int l) {
    const uint32_t b = static_cast<uint32_t>(R[d.s[1] * 32 + l]);
    const uint32_t c = static_cast<uint32_t>(R[d.s[2] * 32 + l]);
    const uint32_t seg = (c >> 8) & 0x1F;
    const uint32_t max_lane = (static_cast<uint32_t>(l) & seg) | (c & 0x1F & ~seg);
    const uint32_t min_lane = static_cast<uint32_t>(l) & seg;
    int32_t j = l;
    bool p = false;
    switch (mode) {
      case ptx::ShflMode::Up:
        j = l - static_cast<int32_t>(b & 0x1F);
        p = j >= static_cast<int32_t>(max_lane);
        break;
      case ptx::ShflMode::Down:
        j = l + static_cast<int32_t>(b & 0x1F);
        p = j <= static_cast<int32_t>(max_lane);
        break;
      case ptx::ShflMode::Bfly:
        j = l ^ static_cast<int32_t>(b & 0x1F);
        p = j <= static_cast<int32_t>(max_lane);
        break;
      default:
        j = static_cast<int32_t>(min_lane | (b & 0x1F & ~seg));
        p = j <= static_cast<int32_t>(max_lane);
        break;
    }
    if (!p || j < 0 || j > 31) j = l;  // PTX: an out-of-range source reads the lane's own value
    val[l] = R[d.s[0] * 32 + j] & 0xFFFFFFFFu;
    pbits |= static_cast<uint32_t>(p) << l;
  });
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = val[l]; });
  if (d.nd > 1) write_pred(x, d.d[1], pbits);
}

// vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask.
void vote_h(Exec& x, const DInst& d) {
  const uint32_t members = member_mask(x, d, 0);
  const uint32_t a = pred_mask(x, d, 0) & members;
  switch (d.ir->mod.vote) {
    case ptx::VoteMode::Ballot:
      for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = a; });
      return;
    case ptx::VoteMode::All:
      write_pred(x, d.d[0], a == members ? ~0u : 0u);
      return;
    case ptx::VoteMode::Any:
      write_pred(x, d.d[0], a != 0 ? ~0u : 0u);
      return;
    case ptx::VoteMode::Uni:
      write_pred(x, d.d[0], (a == 0 || a == members) ? ~0u : 0u);
      return;
    default:
      return;
  }
}

// match.sync.any.b32/b64 d, a, membermask; match.sync.all.b32/b64 d{|p}, a, membermask.
void match_h(Exec& x, const DInst& d) {
  const uint32_t members = member_mask(x, d, 1);
  const uint64_t wm = num::width_mask(ptx::type_bits(d.ir->type));
  uint64_t* R = x.R;
  uint32_t out[32];
  bool all_equal = true;
  const int first = members ? std::countr_zero(members) : 0;
  for_lanes(members, [&](int l) {
    if ((R[d.s[0] * 32 + l] & wm) != (R[d.s[0] * 32 + first] & wm)) all_equal = false;
  });
  for_lanes(x.exec, [&](int l) {
    uint32_t m = 0;
    const uint64_t v = R[d.s[0] * 32 + l] & wm;
    for_lanes(members,
              [&](int k) { m |= static_cast<uint32_t>((R[d.s[0] * 32 + k] & wm) == v) << k; });
    out[l] = d.ir->mod.match_all ? (all_equal ? members : 0u) : m;
  });
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = out[l]; });
  if (d.nd > 1) write_pred(x, d.d[1], all_equal ? ~0u : 0u);
}

// redux.sync.op.type d, a, membermask.
void redux_h(Exec& x, const DInst& d) {
  const uint32_t members = member_mask(x, d, 1);
  const Type t = d.ir->type;
  const auto op = d.ir->mod.atom;
  uint64_t* R = x.R;
  bool first = true;
  uint64_t acc = 0;
  for_lanes(members, [&](int l) {
    const uint64_t v = R[d.s[0] * 32 + l] & 0xFFFFFFFFu;
    if (first) {
      acc = v;
      first = false;
      return;
    }
    switch (op) {
      case ptx::AtomOp::Add:
        acc = (acc + v) & 0xFFFFFFFFu;
        break;
      case ptx::AtomOp::Min:
        acc = num::int_min(acc, v, t);
        break;
      case ptx::AtomOp::Max:
        acc = num::int_max(acc, v, t);
        break;
      case ptx::AtomOp::And:
        acc &= v;
        break;
      case ptx::AtomOp::Or:
        acc |= v;
        break;
      case ptx::AtomOp::Xor:
        acc ^= v;
        break;
      default:
        break;
    }
  });
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = acc; });
}

void activemask_h(Exec& x, const DInst& d) {
  for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = x.exec; });
}

}  // namespace

Handler pick_warp(const ptx::Instruction& in, DInst& d, std::string& why) {
  const Type t = in.type;
  const int bits = ptx::type_bits(t);
  switch (in.op) {
    case Opcode::Shfl:
      if (d.nd < 1 || d.ns < 3 || bits != 32 || in.mod.shfl == ptx::ShflMode::None) break;
      if (d.ns == 3) {
        why = "shfl without .sync (pre-Volta) is not supported; use shfl.sync";
        return nullptr;
      }
      return shfl_h;
    case Opcode::Vote:
      if (d.nd < 1 || d.np < 1 || in.mod.vote == ptx::VoteMode::None) break;
      if (d.ns < 1) {
        why = "vote without .sync (pre-Volta) is not supported; use vote.sync";
        return nullptr;
      }
      if ((in.mod.vote == ptx::VoteMode::Ballot) == ((d.dpred & 1) != 0)) break;
      return vote_h;
    case Opcode::Match:
      if (d.nd < 1 || d.ns < 2 || (bits != 32 && bits != 64)) break;
      return match_h;
    case Opcode::Redux:
      if (d.nd < 1 || d.ns < 2 || bits != 32) break;
      if (in.mod.atom == ptx::AtomOp::None || in.mod.atom == ptx::AtomOp::Inc ||
          in.mod.atom == ptx::AtomOp::Dec || in.mod.atom == ptx::AtomOp::Cas ||
          in.mod.atom == ptx::AtomOp::Exch)
        break;
      return redux_h;
    case Opcode::Activemask:
      if (d.nd < 1) break;
      return activemask_h;
    default:
      break;
  }
  if (why.empty()) why = "unsupported warp-level form";
  return nullptr;
}

}  // namespace warplab::func
