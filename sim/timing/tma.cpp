#include "sim/timing/tma.h"

#include <algorithm>
#include <cmath>

namespace warplab::timing {

uint64_t Tma::copy(uint64_t now, uint64_t bytes) {
  // 1. The copy starts moving bytes once the unit is free (copies queue for its bandwidth).
  const double start = std::max(static_cast<double>(now), free_);
  // 2. It holds the bandwidth for bytes / bandwidth cycles.
  free_ = start + static_cast<double>(bytes) / cfg_.tma_bytes_per_cycle;
  // 3. Its last byte lands the latency after it left.
  return static_cast<uint64_t>(std::ceil(free_)) + static_cast<uint64_t>(cfg_.tma_latency);
}

}  // namespace warplab::timing
