// Coalescer: see coalescer.h.
#include "sim/timing/coalescer.h"

#include <bit>

namespace warplab::timing {

void coalesce(const std::array<uint64_t, 32>& addr, uint32_t exec_mask, uint32_t access_bytes,
              uint32_t line_bytes, uint32_t sector_bytes, CoalescedAccess& out) {
  out.line_count = 0;
  out.sectors = 0;
  const uint32_t bytes = access_bytes == 0 ? 1 : access_bytes;
  for (uint32_t m = exec_mask; m != 0; m &= m - 1) {
    const int lane = std::countr_zero(m);
    const uint64_t first = addr[lane], last = addr[lane] + bytes - 1;
    // 1. Each line the lane's bytes touch (two only when the access straddles a line).
    for (uint64_t line = first / line_bytes; line <= last / line_bytes; ++line) {
      const uint64_t lo = std::max(first, line * line_bytes) - line * line_bytes;
      const uint64_t hi = std::min(last, line * line_bytes + line_bytes - 1) - line * line_bytes;
      uint32_t mask = 0;
      for (uint64_t s = lo / sector_bytes; s <= hi / sector_bytes; ++s) mask |= 1u << s;
      // 2. Merge with a line already requested by an earlier lane, or start a new one.
      int i = 0;
      while (i < out.line_count && out.lines[i].line != line) ++i;
      if (i == out.line_count) {
        if (out.line_count == static_cast<int>(out.lines.size())) continue;   // cannot happen
        out.lines[out.line_count++] = LineRequest{line, 0, 0};
      }
      out.lines[i].sector_mask |= mask;
      out.lines[i].lane_mask |= 1u << lane;
    }
  }
  for (int i = 0; i < out.line_count; ++i) out.sectors += std::popcount(out.lines[i].sector_mask);
}

}  // namespace warplab::timing
