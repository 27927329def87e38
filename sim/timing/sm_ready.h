// Ready warps the scheduler did not pick: the SM keeps what made them ready for the next cycle.
//
// Hardware: each cycle a sub-partition's scheduler sees which of its warps are ready (next
// instruction fetched, registers clear, its pipe and queue free) and issues one of them; the
// others are stall_not_selected and try again next cycle. A busy kernel (the tiled matmul)
// keeps four or five warps ready per scheduler, so most warps a tick looks at are such warps.
// Modelled (for the simulator's speed, nothing the hardware does): what made such a warp ready
// holds until its own next issue: its next instruction (or the later load find_hoist offers it,
// Warp::pick), and that its registers are clear (or, for the offered load, that its next
// instruction's registers stay pending until sb_until, when the look changes), as long as the
// look used the warp's kept answers (Warp::next_clear, sb_known, hoist_at) and fetched nothing
// (a look-ahead fetch makes the next look start afresh). What can change
// while it waits lies outside the warp: the pipe it needs (pipe_free_, which an issue of its
// sub-partition moves on) and the L1TEX queue its access enters. So Sm::tick keeps a bit per
// slot (ready_) and each such warp's key (Keep), and the next cycle asks only the pipe and the
// queue (still_ready), in the order pipe_state and hoist_now ask them; a warp whose key no
// longer holds is looked at in full (look). The states, lines, wake cycles and picks are the same
// as with a full look at every warp; a kept warp's slot is not read at all.
// Private to the SM's files (sm.cpp), like sm_warp.h.
#pragma once

#include <bit>
#include <cstdint>

#include "sim/timing/sm_mio_wait.h"
#include "sim/timing/sm_warp.h"

namespace warplab::timing {

// What a kept ready warp needs to stay ready: its pipe (and the SFU pipe), the queue its access
// enters, and the cycle from which its look changes (the offered load's warp: sb_until).
struct Sm::Keep {
  uint64_t until = kNever;
  uint8_t pipe = 0;
  bool sfu = false;
  NextAccess access = NextAccess::None;
};

inline uint64_t Sm::still_ready(int sp, int wd, uint64_t kept, uint64_t now) {
  const auto& free_at = pipe_free_[sp];
  uint64_t still = 0, qwake;
  const uint64_t all = kept;
  int global = -1;  // l1tex_.can_accept_global(now): the same for every warp until an issue
  for (; kept; kept &= kept - 1) {
    const int b = std::countr_zero(kept);
    const Keep& k = keep_[64 * wd + b];
    if (k.until <= now) continue;
    uint64_t free = free_at[k.pipe];
    if (k.sfu) free = std::max(free, free_at[static_cast<int>(ptx::UnitClass::Sfu)]);
    if (free > now) continue;
    if (k.access == NextAccess::Global) {
      if (global < 0) global = l1tex_.can_accept_global(now, qwake) ? 1 : 0;
      if (global == 0) continue;
    } else if (k.access == NextAccess::Shared && !mio_accepts(now, qwake)) {
      continue;
    }
    still |= 1ull << b;
  }
  ready_[wd] &= ~(all & ~still);  // the others are looked at in full (look() keeps them again)
  return still;
}

// (Inlined into the tick: as a call it cost a tenth of the tick's host instructions in register
// saves and restores; callgrind, matmul n=512.)
[[gnu::always_inline]] inline bool Sm::look(int s, int sp, uint64_t now, uint64_t& wake_min,
                                            uint64_t& go) {
  Warp& w = warps_[s];
  uint64_t wake = kNever;
  const WarpState state = evaluate(w, sp, now, wake);
  if (fault_) return false;  // looking ahead ran a faulting instruction
  wake_[s] = wake;
  if (w.win.first && !w.win.first_known) learn_next(w);
  // Its cycles are counted when its state or line changes (the same sums, added later).
  const int32_t line = w.win.first ? w.next_line : 0;
  if (state != w.state || line != w.line) account(w, s, now), w.state = state, w.line = line;
  const unsigned wd = static_cast<unsigned>(s) / 64;
  const uint64_t bit = 1ull << (static_cast<unsigned>(s) % 64);
  mio_wait_[wd] = waits_on_mio(w, state, now) ? mio_wait_[wd] | bit : mio_wait_[wd] & ~bit;
  // Ready but for a pipe or the scheduler: it issues soon, and its next fetch runs the
  // instruction after it (a host-cache hint; nothing simulated depends on it).
  if (w.next_clear && !w.next_warmed && w.win.count == 1 && w.win.first_known) {
    w.next_warmed = true;
    blocks_[w.block].cta->prefetch_step(w.index);
  }
  if (w.state != WarpState::NotSelected) {  // (its ready_ bit is clear: still_ready)
    wake_min = std::min(wake_min, wake);
    return true;
  }
  go |= bit;
  // Kept only when its next look would ask the same: not after a look-ahead fetch (fetch() makes
  // the tick call learn_next again, which forgets the scoreboard's and find_hoist's answers: the
  // next look scans again and may offer an earlier load whose address has come in since).
  if (!w.win.first_known || (w.pick == 0 ? !w.next_clear : !w.sb_known || w.hoist_at != w.pick))
    return true;
  ready_[wd] |= bit;
  Keep& k = keep_[s];
  if (w.pick == 0) {  // its next instruction (pipe_state)
    k = {kNever, w.next_pipe, w.next_sfu, w.next_access};
  } else {  // the load find_hoist offers while the next instruction waits (hoist_now)
    k = {w.sb_until, static_cast<uint8_t>(ptx::UnitClass::Ldst), false,
         w.hoist_shared ? NextAccess::Shared : NextAccess::Global};
  }
  return true;
}

}  // namespace warplab::timing
