#include "sim/timing/tma.h"

#include <algorithm>
#include <cmath>

#include "sim/timing/l2.h"

namespace warplab::timing {

uint64_t Tma::send(double start, uint64_t global, uint64_t bytes, bool to_shared) {
  uint64_t last = 0;
  if (!l2_ || bytes == 0) return last;
  const double per_byte = 1.0 / cfg_.tma_bytes_per_cycle;
  const uint64_t sector = line_bytes_ / 4;
  for (uint64_t line = global / line_bytes_; line * line_bytes_ < global + bytes; ++line) {
    const uint64_t lo = std::max(global, line * line_bytes_);
    const uint64_t hi = std::min(global + bytes, (line + 1) * line_bytes_);
    const uint64_t at =
        static_cast<uint64_t>(std::ceil(start + static_cast<double>(lo - global) * per_byte));
    uint32_t sectors = 0, full = 0, words = 0;
    for (uint64_t s = 0; s < 4; ++s) {
      const uint64_t a = line * line_bytes_ + s * sector, b = a + sector;
      if (hi <= a || lo >= b) continue;
      sectors |= 1u << s;
      if (lo <= a && hi >= b) full |= 1u << s;
    }
    for (uint64_t w = 0; w < 32; ++w) {
      const uint64_t a = line * line_bytes_ + w * (line_bytes_ / 32);
      if (a >= lo && a < hi) words |= 1u << w;
    }
    last = std::max(last, to_shared ? l2_->read(line, sectors, at)
                                    : l2_->write(line, sectors, full, words, at));
  }
  return last;
}

uint64_t Tma::copy(uint64_t now, uint64_t bytes, uint64_t global, bool to_shared) {
  // 1. The copy starts once the unit is free (copies queue for its bandwidth).
  const double start = std::max(static_cast<double>(now), free_);
  // 2. It holds the bandwidth for bytes / bandwidth cycles.
  free_ = start + static_cast<double>(bytes) / cfg_.tma_bytes_per_cycle;
  // 3. Its lines go to the L2 in order, at the unit's rate; the last answer ends the transfer.
  const uint64_t last =
      std::max(static_cast<uint64_t>(std::ceil(free_)), send(start, global, bytes, to_shared));
  // 4. Its last byte lands tma_latency later.
  return last + static_cast<uint64_t>(cfg_.tma_latency);
}

uint64_t Tma::copy_tensor(uint64_t now, const std::vector<func::GlobalRange>& ranges,
                          uint64_t box_bytes, bool to_shared) {
  // 1. The unit reads the tensor map and plans the box before its first request.
  const double start = std::max(static_cast<double>(now), free_) +
                       static_cast<double>(cfg_.tma_tensor_latency);
  // 2. It is busy for the whole box, fill included.
  free_ = start + static_cast<double>(box_bytes) / cfg_.tma_bytes_per_cycle;
  // 3. The rows inside the tensor go to the L2 one after another at the unit's rate.
  uint64_t last = static_cast<uint64_t>(std::ceil(free_));
  double at = start;
  for (const func::GlobalRange& r : ranges) {
    last = std::max(last, send(at, r.address, r.bytes, to_shared));
    at += static_cast<double>(r.bytes) / cfg_.tma_bytes_per_cycle;
  }
  // 4. The last byte lands tma_latency later.
  return last + static_cast<uint64_t>(cfg_.tma_latency);
}

uint64_t Tma::prefetch_tensor(uint64_t now, const std::vector<func::GlobalRange>& ranges) {
  const double start = std::max(static_cast<double>(now), free_) +
                       static_cast<double>(cfg_.tma_tensor_latency);
  uint64_t bytes = 0;
  for (const func::GlobalRange& r : ranges) bytes += r.bytes;
  free_ = start + static_cast<double>(bytes) / cfg_.tma_bytes_per_cycle;
  uint64_t last = static_cast<uint64_t>(std::ceil(free_));
  double at = start;
  for (const func::GlobalRange& r : ranges) {
    last = std::max(last, send(at, r.address, r.bytes, true));
    at += static_cast<double>(r.bytes) / cfg_.tma_bytes_per_cycle;
  }
  return last;
}

}  // namespace warplab::timing
