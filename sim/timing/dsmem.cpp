// Distributed shared memory and the cluster barrier in time: see dsmem.h.
#include "sim/timing/dsmem.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace warplab::timing {

uint64_t DsmemUnit::access(const func::StepInfo& in, uint64_t now) {
  const uint64_t bytes = static_cast<uint64_t>(std::popcount(in.exec_mask)) * in.access_bytes;
  ++accesses_;
  bytes_ += bytes;
  // 1. The SM's port to the network takes the request when it is free.
  const double start = std::max(double(now), port_free_);
  const double busy = std::max(1.0, std::ceil(double(bytes) / cfg_.remote_bytes_per_cycle));
  port_free_ = start + busy;
  // 2. The data is back a network round trip after the last byte left.
  return static_cast<uint64_t>(start) + static_cast<uint64_t>(busy) - 1 +
         static_cast<uint64_t>(cfg_.remote_latency);
}

void DsmemUnit::hold(const func::StepInfo& in, uint64_t now, uint64_t drain_until,
                     uint64_t& fetch_ready, WarpState& reason) const {
  const ptx::Instruction& inst = *in.inst;
  uint64_t until = 0;
  WarpState why = WarpState::Barrier;
  if (inst.mod.bar == ptx::BarMode::Arrive) {
    // .release: the warp's earlier stores complete first (as membar); .relaxed goes on.
    if (inst.mod.mem_sem == ptx::MemSem::Release) until = drain_until, why = WarpState::Membar;
  } else if (in.wait_failed) {
    until = now + static_cast<uint64_t>(cfg_.barrier_poll);
  } else {
    // in.mbarrier: the cycle the phase completed (sim/func/cluster.cpp).
    until = std::max(now, in.mbarrier + static_cast<uint64_t>(cfg_.barrier_latency));
  }
  if (until > fetch_ready) fetch_ready = until, reason = why;
}

}  // namespace warplab::timing
