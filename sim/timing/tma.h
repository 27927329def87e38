// The Tensor Memory Accelerator (TMA): the SM's engine for bulk copies (cp.async.bulk).
//
// Hardware (Hopper): one TMA unit per SM takes a copy description from one thread (source,
// destination, size, the mbarrier to report to) and moves the whole block of bytes between
// global and shared memory on its own: the issuing warp goes on at once, no registers or
// load/store units are involved, and the unit reports each arriving byte to the mbarrier
// (complete_tx) or closes the copy's bulk group. Copies queue in the unit; its bandwidth is
// shared by all of them.
//
// Modelled: a fixed latency from issue to the first bytes (address generation and the round
// trip to L2) and a per-SM bandwidth; copies queue behind each other for the bandwidth, so a
// copy of B bytes issued at cycle t, with the unit free, completes at
// t + tma_latency + ceil(B / tma_bytes_per_cycle).
// Measured (scripts/microbench/h100-async-timing-2026-11-26.tsv, one copy in flight on an H100,
// L2-resident source): ~330 cycles plus 1 cycle per 104 bytes; tests/341 checks the preset
// against it. Simplified: the copy's bytes do not travel through the L2 and DRAM models (they
// neither see misses nor take bandwidth from loads), so a copy from DRAM is as fast as one from
// the L2.
#pragma once

#include <cstdint>

#include "sim/timing/config.h"

namespace warplab::timing {

class Tma {
 public:
  explicit Tma(const AsyncConfig& cfg) : cfg_(cfg) {}
  // A copy of `bytes` issued at `now`: the cycle its last byte has landed.
  uint64_t copy(uint64_t now, uint64_t bytes);
  uint64_t busy_until() const { return free_; }

 private:
  const AsyncConfig& cfg_;
  double free_ = 0;  // when the unit's bandwidth is next free (fractional cycles)
};

}  // namespace warplab::timing
