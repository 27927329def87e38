// Warps held by a full MIO queue: the SM looks at them in brief while the queue stays full.
//
// Hardware: shared-memory accesses (and SFU and shuffle instructions) enter the MIO queue of
// their SM; when it is full, every warp whose next instruction needs it stalls
// (stall_mio_throttle) until the queue drains by one access, and then one of them enters. A
// kernel bound by shared memory (the tiled matmul) keeps the queue full most of the time, with
// many warps waiting on it.
// Modelled (for the simulator's speed, nothing the hardware does): such a warp's state cannot
// change while the queue stays full, since only its own issue changes its next instruction and
// nothing else holds it. Sm::tick keeps a bit per slot (mio_wait_) for the warps that its last
// full look found waiting on the queue alone (clear to issue, next instruction in the MIO pipe
// class, queue full); while the queue is full, it only refreshes their wake cycle, which is what
// pipe_state() would give, instead of looking at each in full. The states, lines and wake cycles
// are the same as with a full look at every warp.
// Private to the SM's files (sm.cpp), like sm_warp.h.
#pragma once

#include <bit>
#include <cstdint>

#include "sim/timing/sm_warp.h"

namespace warplab::timing {

inline bool Sm::waits_on_mio(const Warp& w, WarpState state, uint64_t now) const {
  using ptx::UnitClass;
  if (state != WarpState::MioThrottle || w.next_access != NextAccess::Shared ||
      !clear_to_issue(w, now))
    return false;
  // pipe_state's answer is MioThrottle whether the pipe or the queue holds it.
  const UnitClass u = w.next_unit;
  return u == UnitClass::Sfu || u == UnitClass::Warp || (u == UnitClass::Ldst && w.next_shared);
}

inline void Sm::mio_wait(int sp, int wd, uint64_t held, uint64_t now, uint64_t& wake_min) {
  const auto& free_at = pipe_free_[sp];
  for (; held; held &= held - 1) {
    const int s = 64 * wd + std::countr_zero(held);
    const Warp& w = warps_[s];
    uint64_t free = free_at[w.next_pipe];
    if (w.next_sfu) free = std::max(free, free_at[static_cast<int>(ptx::UnitClass::Sfu)]);
    const uint64_t wake = free > now ? free : mio_wake_;  // pipe_state's wake, queue full
    wake_[s] = wake;
    wake_min = std::min(wake_min, wake);
  }
}

}  // namespace warplab::timing
