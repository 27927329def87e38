// Warp scheduling policies: which ready warp a sub-partition's scheduler issues this cycle.
//
// Hardware: each of the SM's four sub-partitions has one warp scheduler that can issue one
// instruction per cycle from the warps assigned to it. Among the warps that are ready, the policy
// decides. Loose round-robin (lrr) rotates so every warp progresses evenly; greedy-then-oldest
// (gto) keeps issuing from the same warp until it stalls, then takes the oldest ready warp, which
// tends to spread warps out in time and helps caches.
//
// Contract: pick() gets the ready warps as a set of slots (ReadyWarps: one bit per slot, and
// each slot's age: lower = launched earlier) with at least one in it, and returns the slot it
// issues. on_issue() tells the policy who issued. Policies are picked by name from
// make_warp_scheduler(); add one by a class and a row there.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace warplab::timing {

struct ReadyWarps {
  std::span<const uint64_t> bits;  // slot s is ready when bit s % 64 of bits[s / 64] is set
  const uint64_t* age = nullptr;   // [slot]
};

class WarpSchedulerPolicy {
 public:
  virtual ~WarpSchedulerPolicy() = default;
  virtual int pick(const ReadyWarps& ready) = 0;
  virtual void on_issue(int slot) = 0;
};

std::unique_ptr<WarpSchedulerPolicy> make_warp_scheduler(const std::string& name);

}  // namespace warplab::timing
