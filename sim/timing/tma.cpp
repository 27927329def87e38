#include "sim/timing/tma.h"

#include <algorithm>
#include <cmath>

#include "sim/timing/l2.h"

namespace warplab::timing {

uint64_t Tma::send(double start, uint64_t global, uint64_t bytes, bool to_shared) {
  uint64_t last = 0;
  if (!l2_ || bytes == 0) return last;
  const double per_byte = 1.0 / rate(to_shared);
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
  free_ = start + static_cast<double>(bytes) / rate(to_shared);
  // 3. Its lines go to the L2 in order, at the unit's rate; the last answer ends the transfer.
  const uint64_t last =
      std::max(static_cast<uint64_t>(std::ceil(free_)), send(start, global, bytes, to_shared));
  // 4. Its last byte lands tma_latency later.
  return last + static_cast<uint64_t>(cfg_.tma_latency);
}

uint64_t Tma::descriptor(uint64_t now, uint64_t map) {
  if (map == 0) return now;
  const auto [it, fetch] = descriptors_.try_emplace(map, now);
  if (!fetch) return std::max(now, it->second);
  uint64_t at = now;
  constexpr uint64_t kInParams = 1ull << 63;  // StepInfo::tma_map: a parameter's map
  if (l2_ && !(map & kInParams)) at = l2_->read(map / line_bytes_, 0xF, now);
  it->second = at + static_cast<uint64_t>(cfg_.tma_descriptor_latency);
  return it->second;
}

double Tma::row_cycles(const func::GlobalRange& r, bool to_shared) const {
  if (r.bytes == 0) return 0;
  const uint64_t pieces = (r.address + r.bytes - 1) / line_bytes_ - r.address / line_bytes_ + 1;
  return static_cast<double>(pieces * line_bytes_) / rate(to_shared);
}

uint64_t Tma::copy_tensor(uint64_t now, const std::vector<func::GlobalRange>& ranges,
                          uint64_t box_bytes, bool to_shared, uint64_t map) {
  // 1. The unit reads the tensor map and plans the box before its first request. A map it must
  //    fetch first delays the copy by the fetch (`wait`, added to its answers below: the L2
  //    model's slices serve requests in booking order, so booking the box's requests that far
  //    ahead would hold up other SMs' earlier ones).
  const uint64_t wait = descriptor(now, map) - now;
  const double start =
      std::max(static_cast<double>(now), free_) + static_cast<double>(cfg_.tma_tensor_latency);
  // 2. The rows inside the tensor go to the L2 one after another, a request per line piece of a
  //    row, each taking the unit a whole line's time.
  double at = start;
  uint64_t in = 0, last = 0;
  for (const func::GlobalRange& r : ranges) {
    last = std::max(last, send(at, r.address, r.bytes, to_shared));
    at += row_cycles(r, to_shared);
    in += r.bytes;
  }
  // 3. The fill of the rest of the box (rows outside the tensor) at the unit's rate.
  free_ = at + static_cast<double>(box_bytes > in ? box_bytes - in : 0) / rate(to_shared);
  last = std::max(last, static_cast<uint64_t>(std::ceil(free_)));
  // 4. The last byte lands tma_latency later.
  return last + wait + static_cast<uint64_t>(cfg_.tma_latency);
}

uint64_t Tma::prefetch_tensor(uint64_t now, const std::vector<func::GlobalRange>& ranges,
                              uint64_t map) {
  const uint64_t wait = descriptor(now, map) - now;
  const double start =
      std::max(static_cast<double>(now), free_) + static_cast<double>(cfg_.tma_tensor_latency);
  double at = start;
  uint64_t last = 0;
  for (const func::GlobalRange& r : ranges) {
    last = std::max(last, send(at, r.address, r.bytes, true));
    at += row_cycles(r, true);
  }
  free_ = at;
  return std::max(last, static_cast<uint64_t>(std::ceil(free_))) + wait;
}

}  // namespace warplab::timing
