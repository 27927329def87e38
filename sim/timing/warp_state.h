// Warp states: what each resident warp is doing in a cycle, named as Nsight Compute names them.
//
// Every cycle, every resident warp is in exactly one state. "selected" means it issued; every
// other state is a reason it did not. Summed over a kernel, these explain where time went: a
// memory-bound kernel's warps sit in stall_long_scoreboard, a compute-bound one's in
// stall_math_pipe_throttle or stall_wait, a badly synchronised one's in stall_barrier.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace warplab::timing {

enum class WarpState : uint8_t {
  Selected,            // issued an instruction this cycle
  NotSelected,         // could issue, but the scheduler picked another warp
  LongScoreboard,      // waits for a global/local memory result (L1TEX)
  ShortScoreboard,     // waits for a shared memory, SFU or warp-shuffle result (MIO)
  Wait,                // waits for a fixed-latency result (ALU dependency)
  MathPipeThrottle,    // its math pipe is busy with earlier instructions
  LgThrottle,          // the LSU queue or MSHRs are full (global/local memory)
  MioThrottle,         // the MIO queue is full (shared memory, SFU, shuffles)
  Barrier,             // waits at bar.sync for the rest of its block
  BranchResolving,     // a branch's target is not resolved yet
  NoInstruction,       // no instruction fetched yet (block just launched)
  Drain,               // exited, waiting for its stores to drain
  Membar,              // waits for a memory barrier
  Mbarrier,            // waits for an mbarrier phase or cp.async/bulk group (async_copy.h)
  Count_
};
constexpr int kWarpStateCount = static_cast<int>(WarpState::Count_);

constexpr std::string_view warp_state_name(WarpState s) {
  constexpr std::array<std::string_view, kWarpStateCount> n = {
      "selected", "not_selected", "stall_long_scoreboard", "stall_short_scoreboard", "stall_wait",
      "stall_math_pipe_throttle", "stall_lg_throttle", "stall_mio_throttle", "stall_barrier",
      "stall_branch_resolving", "stall_no_instruction", "stall_drain", "stall_membar",
      "stall_mbarrier"};
  return n[static_cast<int>(s)];
}

using WarpStateCycles = std::array<uint64_t, kWarpStateCount>;

}  // namespace warplab::timing
