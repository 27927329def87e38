// Distributed shared memory and the cluster barrier in time: see dsmem.h.
#include "sim/timing/dsmem.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/func/cluster.h"
#include "sim/func/executor.h"

namespace warplab::timing {

DsmemUnit::DsmemUnit(const ClusterConfig& cfg, uint32_t cluster_blocks, uint32_t block_warps,
                     uint32_t sub_partitions)
    : cfg_(cfg), sub_partitions_(sub_partitions), clustered_(cluster_blocks > 1) {
  // log2 of the cluster's size (rounded up: a cluster of 3 spans two levels, as one of 4).
  const int levels = std::bit_width(std::max<uint32_t>(cluster_blocks, 1) - 1);
  level_latency_ =
      static_cast<uint64_t>(cfg.barrier_latency + cfg.barrier_level_latency * levels);
  barrier_latency_ = barrier_latency(block_warps);
}

uint64_t DsmemUnit::barrier_latency(uint32_t sm_warps) const {
  const uint32_t extra = sm_warps > sub_partitions_ ? sm_warps - sub_partitions_ : 0;
  return level_latency_ + static_cast<uint64_t>(cfg_.barrier_warp_latency) * extra;
}

DsmemUnit::DsmemUnit(const ClusterConfig& cfg, const func::LaunchConfig& launch,
                     const func::Program& program, int64_t sub_partitions)
    : DsmemUnit(cfg,
                [&] {
                  const ptx::Function* k = program.kernel(launch.kernel);
                  return k ? static_cast<uint32_t>(func::effective_cluster(launch, *k).count()) : 1u;
                }(),
                static_cast<uint32_t>((launch.block.count() + 31) / 32),
                static_cast<uint32_t>(std::max<int64_t>(sub_partitions, 1))) {}

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
                     uint64_t& fetch_ready, WarpState& reason, uint32_t sm_warps) const {
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
    const bool by_sm = clustered_ && sm_warps > 0;
    until = std::max(now, in.mbarrier + (by_sm ? barrier_latency(sm_warps) : barrier_latency_));
  }
  if (until > fetch_ready) fetch_ready = until, reason = why;
}

}  // namespace warplab::timing
