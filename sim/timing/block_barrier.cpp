// The block barrier: see block_barrier.h.
#include "sim/timing/block_barrier.h"

#include <algorithm>
#include <cmath>

namespace warplab::timing {

void BlockBarrier::arrive(const PipesConfig& p, uint64_t now) {
  counted_ = std::max(double(now), counter_free_);
  counter_free_ = counted_ + p.barrier_arrival_cycles;
}

uint64_t BlockBarrier::release(const PipesConfig& p, uint64_t now) {
  const uint64_t last = std::max(now, static_cast<uint64_t>(std::ceil(counted_)));
  counted_ = 0;
  counter_free_ = 0;
  return last + static_cast<uint64_t>(p.barrier.latency);
}

}  // namespace warplab::timing
