// Asynchronous copies in time: cp.async groups (LDGSTS), bulk groups, and mbarrier waits.
//
// Hardware: `cp.async` is a load whose data the L1TEX unit writes straight into shared memory
// (SASS LDGSTS) instead of a register: the warp issues it like a load and goes on, and no
// scoreboard waits for it. `cp.async.commit_group` / `wait_group N` (SASS LDGDEPBAR / DEPBAR)
// make the warp wait until all but its N newest groups have landed. A bulk copy goes to the SM's
// TMA unit (tma.h); a global->shared one reports to an mbarrier, a shared->global one closes a
// bulk group. A warp that waits on an mbarrier phase (test_wait/try_wait) is held until the
// asynchronous work that phase waits for has landed; a failed try_wait suspends the warp for a
// while before it tries again. Nsight Compute shows these waits as their own stall reasons;
// WarpLab counts them as `stall_mbarrier`.
//
// Modelled: each cp.async's landing cycle is its L1TEX access's data-ready cycle (the same path,
// coalescing and caches as a load: sm.cpp's access) plus async.cp_async_fill; each warp's open
// and committed groups keep the latest landing cycle of their copies; wait_group holds the warp
// until the groups it waits for have landed; cp.async.mbarrier.arrive and bulk copies raise
// their mbarrier's ready cycle; a successful test/try_wait holds the warp until that cycle, and
// at least async.try_wait_latency cycles (the round trip to the SYNCS unit that holds the
// mbarrier), a failed try_wait for async.try_wait_suspend cycles.
// Simplified: groups are per warp, not per thread (a warp's lanes commit and wait together in
// the kernels that use them); the functional result of a wait (sim/func/async_copies.h) decides
// whether it succeeds, the units here only decide when.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/func/cta.h"
#include "sim/timing/config.h"
#include "sim/timing/tma.h"
#include "sim/timing/trace.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

class AsyncCopyUnit {
 public:
  // `l2` nullptr: bulk copies make no memory traffic (tma.h).
  // `unit_trace`: where its copies and answered mbarrier waits are recorded (trace.h AsyncRecord).
  AsyncCopyUnit(const AsyncConfig& cfg, int warp_slots, L2* l2 = nullptr, int64_t line_bytes = 128,
                UnitTrace unit_trace = {});

  // Warp slot `slot` of block `block` (any stable identity) issued `in`, an instruction of
  // isa.def's async section, at `now`; `data_ready` is when its L1TEX access delivers (cp.async).
  // Returns the cycle before which the warp may not issue again (0: no hold), the state it is
  // held in set in `state`. (A slot's next warp finds only groups that landed long ago.)
  uint64_t issue(int slot, const void* block, const func::StepInfo& in, uint64_t now,
                 uint64_t data_ready, WarpState& state);
  // sm.cpp's hook: holds the warp's next fetch (fetch_ready, reason) until issue() allows it.
  void hold(int slot, const void* block, const func::StepInfo& in, uint64_t now,
            uint64_t data_ready, uint64_t& fetch_ready, WarpState& reason) {
    WarpState s = WarpState::Mbarrier;
    if (const uint64_t t = issue(slot, block, in, now, data_ready, s); t > fetch_ready)
      fetch_ready = t, reason = s;
  }
  const Tma& tma() const { return tma_; }

 private:
  struct Groups {
    uint64_t open = 0;            // latest landing cycle of the copies not committed yet
    // Committed groups' latest landing cycles, oldest first (at most kMaxGroups + 1). A vector:
    // a warp that never commits a group allocates nothing (a std::deque takes ~600 bytes at
    // once, 2 per warp slot: 10 MB of first touches per launch on 132 SMs).
    std::vector<uint64_t> closed;
    void commit();
    uint64_t wait(uint32_t newest_pending);  // the cycle the waited-for groups have landed
    uint64_t latest() const;
  };
  struct Slot {
    Groups copies, bulk;
  };
  const AsyncConfig& cfg_;
  Tma tma_;
  std::vector<Slot> slots_;
  std::map<std::pair<const void*, uint64_t>, uint64_t> mbarrier_ready_;  // (block, offset)
  UnitTrace trace_;
};

}  // namespace warplab::timing
