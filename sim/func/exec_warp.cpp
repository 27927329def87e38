// Warp-level instructions: shfl.sync, vote.sync, match.sync, redux.sync, activemask, and the
// member-mask check of bar.warp.sync.
//
// These exchange data between the lanes of one warp without memory: the hardware reads every
// lane's source register in one cycle and routes it through a crossbar. All reads happen before
// any lane writes, so `shfl.sync %r1, %r1, ...` is well defined, as on the GPU.
//
// The member mask is per lane. The PTX ISA defines each instruction from the point of view of one
// executing lane l: it names in its own `membermask` m_l the lanes it synchronises with, and its
// result is computed over the non-exited lanes of m_l. A warp split into tiles
// (cooperative_groups::tiled_partition<16>, labeled_partition) executes one vote.sync with two or
// more different masks at once, and each group gets its own answer. WarpLab computes exactly that:
// lane l's result covers the lanes of m_l that execute this instruction. When every lane gives the
// same mask and that mask is exactly the executing lanes (the common, converged case), one
// computation serves the whole warp.
//
// The GPU leaves some uses undefined; with synccheck on (CtaImpl::checks) each is reported as a
// Hazard at the instruction's PTX and CUDA line, and the launch goes on:
//   - a lane that is not in its own member mask;
//   - member masks that differ between lanes named in each other's masks;
//   - a mask that names lanes that are alive but do not execute this instruction with it. On Volta
//     and later the GPU would wait for them (they are on another path of a branch, or their guard
//     predicate is false). WarpLab's SIMT stack is pre-Volta: it cannot run two diverged paths of a
//     warp together, so it computes over the lanes of this path only and says so;
//   - bar.warp.sync naming lanes that have exited; shfl.sync reading a source lane that has
//     exited, does not execute the shuffle, or is not in the reading lane's mask. (vote, match and
//     redux are defined over the non-exited lanes of the mask: exited lanes are not a hazard.
//     Lanes that took CUDA's early `return` wait at the kernel's last `ret` on WarpLab's stack;
//     on the GPU they have exited, and they count as exited here (returned_lanes).
//     Measured on an H100, CUDA 13.0, lanes 16-31 returned: __reduce_add_sync(0xffffffff, lane)
//     gave 0+...+15 = 120 and __ballot_sync 0xffff, while __shfl_down_sync(0xffffffff, lane, 8)
//     gave lanes 8-15 the value 0: only the shuffle's value is undefined. compute-sanitizer's
//     synccheck reported none of these, nor __syncwarp() with those lanes gone.)
#include <cstdio>
#include <sstream>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::Opcode;
using ptx::Type;

// Each executing lane's membermask (operand `slot_index`), masks[l]; returns true when they are
// all equal to x.exec (every executing lane names exactly the executing lanes: the fast path).
inline bool read_masks(const Exec& x, const DInst& d, int slot_index, uint32_t* masks) {
  const int base = d.s[slot_index] * 32;
  bool uniform = true;
  for_lanes(x.exec, [&](int l) {
    masks[l] = static_cast<uint32_t>(x.R[base + l]);
    uniform &= masks[l] == x.exec;
  });
  return uniform;
}

// "3", "0-15", "0-3,8,17-19".
std::string lane_list(uint32_t m) {
  std::ostringstream s;
  bool first = true;
  while (m) {
    const int lo = std::countr_zero(m);
    int hi = lo;
    while (hi < 31 && ((m >> (hi + 1)) & 1u)) ++hi;
    if (!first) s << ',';
    first = false;
    s << lo;
    if (hi > lo) s << '-' << hi;
    m = hi == 31 ? 0 : m & ~((2u << hi) - 1u);
  }
  return s.str();
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// The name a report uses for the instruction ("vote.sync", "bar.warp.sync").
std::string sync_name(const DInst& d) {
  if (!d.ir) return "warp-level .sync instruction";
  if (d.ir->op == Opcode::Bar) return "bar.warp.sync";
  return std::string(ptx::opcode_info(d.ir->op).name) + ".sync";
}

// Lanes off the running path that will exit without executing anything more: they wait at a
// reconvergence point that is the kernel's `ret` or an `exit`. CUDA's early `return` compiles
// to a branch to the kernel's last `ret`, where those lanes wait on WarpLab's pre-Volta stack;
// on the GPU they are gone (ptxas makes the path an EXIT). For the .sync rules they count as
// exited.
uint32_t returned_lanes(const Exec& x) {
  const auto& es = x.w->stack.entries();
  const auto& code = x.cta->k->code;
  uint32_t seen = x.active | x.w->exited | ~x.w->valid, out = 0;
  for (size_t i = es.size() - 1; i-- > 0;) {  // below the running entry, innermost first
    const uint32_t m = es[i].mask & ~seen;
    if (!m) continue;
    seen |= m;
    const int32_t pc = es[i].pc;
    if (pc < 0 || pc >= static_cast<int32_t>(code.size()) || !code[pc].ir) continue;
    const ptx::Opcode op = code[pc].ir->op;
    if (op == Opcode::Exit || (op == Opcode::Ret && code[pc].func == 0)) out |= m;
  }
  return out;
}

// synccheck over one execution of a warp-level .sync instruction: masks[l] for each lane of
// x.exec. `exited_undefined`: the instruction is undefined when its mask names exited lanes
// (bar.warp.sync); vote/match/redux/shfl exclude exited lanes by definition.
void check_masks(Exec& x, const DInst& d, const uint32_t* masks, bool exited_undefined) {
  const Warp& w = *x.w;
  const uint32_t returned = x.active == w.stack.top().mask ? returned_lanes(x) : 0;
  // Exited (or returned) lanes, and lanes a partial warp lacks.
  const uint32_t gone = w.exited | ~w.valid | returned;
  uint32_t not_self = 0, named_gone = 0, named_off = 0, differ = 0;
  uint32_t off_lanes = 0, gone_lanes = 0;
  for_lanes(x.exec, [&](int l) {
    const uint32_t m = masks[l];
    if (!((m >> l) & 1u)) not_self |= 1u << l;
    if (m & gone) named_gone |= 1u << l, gone_lanes |= m & gone;
    if (m & ~x.exec & ~gone) named_off |= 1u << l, off_lanes |= m & ~x.exec & ~gone;
    for_lanes(m & x.exec, [&](int k) {
      if (masks[k] != m) differ |= 1u << l;
    });
  });
  const std::string op = sync_name(d);
  auto lane_mask = [&](int l) {
    return "lane " + std::to_string(l) + "'s mask " + hex32(masks[l]);
  };
  if (not_self) {
    const int l = std::countr_zero(not_self);
    x.cta->sync_hazard(x, d, l,
                       op + ": lane(s) " + lane_list(not_self) +
                           " are not in their own member mask (" + lane_mask(l) +
                           "); the GPU leaves the result undefined");
  }
  if (named_off) {
    const int l = std::countr_zero(named_off);
    const uint32_t predicated = off_lanes & x.active, other_path = off_lanes & ~x.active;
    std::string why;
    if (other_path)
      why += "lane(s) " + lane_list(other_path) +
             " are on another path of a branch; on Volta and later the GPU would wait for them "
             "to reach this instruction, but WarpLab's SIMT stack is pre-Volta and cannot run "
             "diverged paths together, so only this path's lanes take part";
    if (predicated)
      why += std::string(why.empty() ? "" : "; ") + "lane(s) " + lane_list(predicated) +
             " are on this path but their guard predicate is false, so they never execute it";
    x.cta->sync_hazard(x, d, l,
                       op +
                           ": the member mask names live lanes that do not execute this "
                           "instruction (" +
                           lane_mask(l) + "): " + why);
  }
  if (exited_undefined && named_gone) {
    const int l = std::countr_zero(named_gone);
    x.cta->sync_hazard(x, d, l,
                       op + ": the member mask names lane(s) " + lane_list(gone_lanes) +
                           ((gone_lanes & ~x.w->valid)
                                ? " that have exited or do not exist (the block's last warp is "
                                  "partial) ("
                            : (gone_lanes & returned) ? " that have exited or returned from the "
                                                        "kernel ("
                                                      : " that have exited (") +
                           lane_mask(l) + "); the GPU leaves this undefined");
  }
  if (differ) {
    const int l = std::countr_zero(differ);
    uint32_t others = 0;
    for_lanes(masks[l] & x.exec, [&](int k) {
      if (masks[k] != masks[l]) others |= 1u << k;
    });
    const int k = std::countr_zero(others);
    x.cta->sync_hazard(x, d, l,
                       op + ": lanes that name each other give different member masks (" +
                           lane_mask(l) + ", " + lane_mask(k) +
                           "); all lanes of a mask must execute it with the same mask");
  }
}

// The per-lane masks of instruction d (operand `slot_index`), checked when synccheck is on.
// Returns true on the fast path (all masks == x.exec, nothing to check).
inline bool members(Exec& x, const DInst& d, int slot_index, uint32_t* masks) {
  if (read_masks(x, d, slot_index, masks)) return true;
  if (x.cta->checks.synccheck) check_masks(x, d, masks, false);
  for_lanes(x.exec, [&](int l) { masks[l] &= x.exec; });
  return false;
}

// shfl.sync.mode.b32 d{|p}, a, b, c, membermask (PTX ISA pseudo-code). The mask does not change
// the value moved: each lane computes its source lane j from b and c (clamp and segment).
void shfl_h(Exec& x, const DInst& d) {
  const auto mode = d.ir->mod.shfl;
  uint64_t* R = x.R;
  uint64_t val[32];
  int src[32];
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
    src[l] = j;
    val[l] = R[d.s[0] * 32 + j] & 0xFFFFFFFFu;
    pbits |= static_cast<uint32_t>(p) << l;
  });
  if (x.cta->checks.synccheck) {
    uint32_t masks[32];
    if (!read_masks(x, d, 3, masks)) check_masks(x, d, masks, false);
    // A source lane that does not take part: its register value is undefined on the GPU.
    uint32_t bad = 0;
    for_lanes(x.exec, [&](int l) {
      const int j = src[l];
      if (j != l && (!((x.exec >> j) & 1u) || !((masks[l] >> j) & 1u))) bad |= 1u << l;
    });
    if (bad) {
      const int l = std::countr_zero(bad), j = src[l];
      const Warp& w = *x.w;
      const char* why = !((w.valid >> j) & 1u) ? "does not exist (the block's last warp is partial)"
                        : ((w.exited >> j) & 1u) ? "has exited"
                        : ((returned_lanes(x) >> j) & 1u)
                            ? "has returned from the kernel (it waits only to exit)"
                        : !((x.exec >> j) & 1u) ? "does not execute this shuffle"
                                                : "is not in its member mask";
      x.cta->sync_hazard(x, d, l,
                         "shfl.sync: lane(s) " + lane_list(bad) + " read a lane that does not " +
                             "take part (lane " + std::to_string(l) + " reads lane " +
                             std::to_string(j) + ", which " + why + ", member mask " +
                             hex32(masks[l]) + "); the GPU leaves the value undefined");
    }
  }
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = val[l]; });
  if (d.nd > 1) write_pred(x, d.d[1], pbits);
}

// vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask.
// Lane l: a over the lanes of m_l; a lane outside m_l contributes 0 to the ballot.
inline uint32_t vote_result(ptx::VoteMode mode, uint32_t a, uint32_t members) {
  const uint32_t in = a & members;
  switch (mode) {
    case ptx::VoteMode::Ballot:
      return in;
    case ptx::VoteMode::All:
      return in == members;
    case ptx::VoteMode::Any:
      return in != 0;
    case ptx::VoteMode::Uni:
      return in == 0 || in == members;
    default:
      return 0;
  }
}

void vote_h(Exec& x, const DInst& d) {
  const auto mode = d.ir->mod.vote;
  const uint32_t a = pred_mask(x, d, 0);
  uint32_t masks[32];
  if (members(x, d, 0, masks)) {
    const uint32_t r = vote_result(mode, a, x.exec);
    if (mode == ptx::VoteMode::Ballot)
      for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = r; });
    else
      write_pred(x, d.d[0], r ? ~0u : 0u);
    return;
  }
  if (mode == ptx::VoteMode::Ballot) {
    for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = vote_result(mode, a, masks[l]); });
    return;
  }
  uint32_t bits = 0;
  for_lanes(x.exec, [&](int l) { bits |= vote_result(mode, a, masks[l]) << l; });
  write_pred(x, d.d[0], bits);
}

// match.sync.any.b32/b64 d, a, membermask; match.sync.all.b32/b64 d{|p}, a, membermask.
// Lane l: any: the lanes of m_l whose a equals l's; all: m_l when every lane of m_l has the same
// a, else 0 (p says which).
void match_h(Exec& x, const DInst& d) {
  uint32_t masks[32];
  if (members(x, d, 1, masks)) for_lanes(x.exec, [&](int l) { masks[l] = x.exec; });
  const uint64_t wm = num::width_mask(ptx::type_bits(d.ir->type));
  const bool all = d.ir->mod.match_all;
  uint64_t* R = x.R;
  const int sa = d.s[0] * 32;
  uint32_t out[32];
  uint32_t pbits = 0;
  for_lanes(x.exec, [&](int l) {
    const uint32_t m = masks[l];
    const uint64_t v = R[sa + l] & wm;
    uint32_t same = 0;
    for_lanes(m, [&](int k) { same |= static_cast<uint32_t>((R[sa + k] & wm) == v) << k; });
    if (!all) {
      out[l] = same;
      return;
    }
    // Every lane of m equals v only if every lane equals lane l (l itself may lie outside m).
    const bool equal = same == m;
    out[l] = equal ? m : 0u;
    pbits |= static_cast<uint32_t>(equal) << l;
  });
  for_lanes(x.exec, [&](int l) { R[d.d[0] * 32 + l] = out[l]; });
  if (d.nd > 1) write_pred(x, d.d[1], pbits);
}

// One redux.sync reduction over the lanes of `m` (32-bit values).
inline uint64_t reduce(const uint64_t* v, uint32_t m, ptx::AtomOp op, Type t) {
  if (!m) return 0;
  uint64_t acc = v[std::countr_zero(m)] & 0xFFFFFFFFu;
  m &= m - 1;
  for_lanes(m, [&](int l) {
    const uint64_t a = v[l] & 0xFFFFFFFFu;
    switch (op) {
      case ptx::AtomOp::Add:
        acc = (acc + a) & 0xFFFFFFFFu;
        break;
      case ptx::AtomOp::Min:
        acc = num::int_min(acc, a, t);
        break;
      case ptx::AtomOp::Max:
        acc = num::int_max(acc, a, t);
        break;
      case ptx::AtomOp::And:
        acc &= a;
        break;
      case ptx::AtomOp::Or:
        acc |= a;
        break;
      case ptx::AtomOp::Xor:
        acc ^= a;
        break;
      default:
        break;
    }
  });
  return acc;
}

// redux.sync.op.type d, a, membermask: lane l gets the reduction over the lanes of m_l.
void redux_h(Exec& x, const DInst& d) {
  const Type t = d.ir->type;
  const auto op = d.ir->mod.atom;
  const uint64_t* v = x.R + d.s[0] * 32;
  uint64_t* out = x.R + d.d[0] * 32;
  uint32_t masks[32];
  if (members(x, d, 1, masks)) {
    const uint64_t r = reduce(v, x.exec, op, t);
    for_lanes(x.exec, [&](int l) { out[l] = r; });
    return;
  }
  // Lanes of one tile share a mask: reduce once per distinct mask (results first, then writes,
  // since d may be a).
  uint64_t res[32];
  uint32_t last_mask = 0;
  uint64_t last = 0;
  bool have = false;
  for_lanes(x.exec, [&](int l) {
    if (!have || masks[l] != last_mask) {
      last_mask = masks[l];
      last = reduce(v, last_mask, op, t);
      have = true;
    }
    res[l] = last;
  });
  for_lanes(x.exec, [&](int l) { out[l] = res[l]; });
}

void activemask_h(Exec& x, const DInst& d) {
  for_lanes(x.exec, [&](int l) { x.R[d.d[0] * 32 + l] = x.exec; });
}

// bar.warp.sync membermask (__syncwarp). The lanes of one SIMT path run in lock step here, so the
// lanes of the mask that execute it are already together and their memory effects visible;
// what is left is synccheck's view of the mask (exited lanes in it are undefined on the GPU).
void warp_sync_h(Exec& x, const DInst& d) {
  if (!x.cta->checks.synccheck) return;
  uint32_t masks[32];
  if (read_masks(x, d, 0, masks)) return;
  check_masks(x, d, masks, true);
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
    case Opcode::Bar:
      if (in.mod.bar != ptx::BarMode::WarpSync || d.ns < 1) break;
      return warp_sync_h;
    default:
      break;
  }
  if (why.empty()) why = "unsupported warp-level form";
  return nullptr;
}

}  // namespace warplab::func
