// The link between the L2's two partitions: see l2_fabric.h.
#include "sim/timing/l2_fabric.h"

#include <algorithm>
#include <cmath>

namespace warplab::timing {

bool L2Fabric::far(uint64_t line) {
  // A multiplicative hash's top bit: half of the lines, spread over any stride.
  return ((line * 0x9E3779B97F4A7C15ull) >> 63) != 0;
}

uint64_t L2Fabric::cross(int to, uint64_t bytes, uint64_t now) {
  if (!enabled()) return now;
  double& free = free_[to & 1];
  const double start = std::max(static_cast<double>(now), free);
  free = start + static_cast<double>(bytes) / bytes_per_cycle_;
  return static_cast<uint64_t>(std::ceil(free));
}

}  // namespace warplab::timing
