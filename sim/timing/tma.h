// The Tensor Memory Accelerator (TMA): the SM's engine for bulk copies (cp.async.bulk).
//
// Hardware (Hopper): one TMA unit per SM takes a copy description from one thread (source,
// destination, size, the mbarrier to report to) and moves the whole block of bytes between
// global and shared memory on its own: the issuing warp goes on at once, no registers or
// load/store units are involved, and the unit reports each arriving byte to the mbarrier
// (complete_tx) or closes the copy's bulk group. Copies queue in the unit; its bandwidth is
// shared by all of them.
//
// Modelled: the unit requests the copy's lines one after another at its bandwidth (copies queue
// behind each other for it) from the L2 model, which answers each (an L2 hit, or a miss to
// DRAM that takes DRAM bandwidth like any load); the copy completes tma_latency cycles after its
// last line is back and its last byte has passed the unit. Without an L2 (unit tests) a copy of
// B bytes issued at cycle t, with the unit free, completes at
// t + tma_latency + ceil(B / tma_bytes_per_cycle).
// Measured (scripts/microbench/h100-async-timing-2026-11-26.tsv, one copy in flight on an H100,
// L2-resident source): ~330 cycles plus 1 cycle per 104 bytes; tests/341 checks the preset
// against it. Simplified: the lines bypass the L1 model; a shared->global copy's writes are
// timed like stores.
#pragma once

#include <cstdint>

#include "sim/timing/config.h"

namespace warplab::timing {

class L2;

class Tma {
 public:
  // `l2` nullptr: no memory traffic, the formula above.
  Tma(const AsyncConfig& cfg, L2* l2 = nullptr, int64_t line_bytes = 128)
      : cfg_(cfg), l2_(l2), line_bytes_(static_cast<uint64_t>(line_bytes)) {}
  // A copy of `bytes` between global address `global` and shared memory (to_shared: a read of
  // global memory), issued at `now`: the cycle its last byte has landed.
  uint64_t copy(uint64_t now, uint64_t bytes, uint64_t global = 0, bool to_shared = true);

 private:
  const AsyncConfig& cfg_;
  L2* l2_;
  uint64_t line_bytes_;
  double free_ = 0;  // when the unit's bandwidth is next free (fractional cycles)
};

}  // namespace warplab::timing
