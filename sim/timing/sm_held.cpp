// The SM's side of loads held to the cycle's end (l2_queue.h; parallel_loop.h: "Held to the
// cycle's end").
//
// What it does: inside a parallel cycle, before the SM's turn, a plain load's L1 misses wait in
// the SM's L1 for the flush, and the load's answer (the cycle its data can be used) is a held
// one till then (L2Queue::kHeld + an index, above every cycle). The tick puts it where the
// immediate answer would go, and only there, since each of these is read in a later tick:
//   - the scoreboard: the Pending entries of the load's destination registers (ready, and
//     branch_ready = ready: a load writes no predicate), written by issue() or, for a hoisted
//     load, by advance() when the warp reaches it;
//   - a hoisted load's window entry (Ahead::ready: find_hoist's loaded_operands_ready);
//   - a vector group's members and w.vec_ready (shared loads only lead one: filled all the same).
// The warp that issued it is not looked at again in that tick (a warp issues once a tick, and
// the SM's next_wake is the next cycle), so the flush, at the SM's turn or the cycle's end, is
// soon enough. A cp.async's load is not held (its answer goes to the async unit at once), nor a
// traced one (the trace's record reads it).
#include <algorithm>

#include "sim/timing/sm.h"
#include "sim/timing/sm_warp.h"

namespace warplab::timing {

uint64_t Sm::load(int slot, const CoalescedAccess& a, bool local, uint64_t now, AccessJourney& j,
                  const ptx::Instruction& inst) {
  const bool may_hold = (inst.op == ptx::Opcode::Ld || inst.op == ptx::Opcode::Ldu) && !j.lines_out;
  const uint64_t ready = l1tex_.load(a, local, now, &j, L1Tex::bypasses_l1(inst.mod), may_hold);
  if (L2Queue::is_held(ready) && (held_slots_.empty() || held_slots_.back() != slot))
    held_slots_.push_back(slot);
  return ready;
}

void Sm::ask_l2() {
  if (!l1tex_.holds()) return;
  l1tex_.ask_l2();
  unfilled_ = true;
}

void Sm::fill_held() {
  if (!unfilled_) return;
  unfilled_ = false;
  l1tex_.fill_held();
  auto fill = [this](uint64_t& v) {
    if (L2Queue::is_held(v)) v = l1tex_.held_answer(v);
  };
  for (const int s : held_slots_) {
    Warp& w = warps_[s];
    for (Pending& p : w.pending) fill(p.ready), fill(p.branch_ready);
    for (size_t k = 0; k < w.win.count; ++k) fill(w.win.at(k).ready);
    fill(w.vec_ready);
  }
  held_slots_.clear();
}

}  // namespace warplab::timing
