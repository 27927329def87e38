// Coalescer: see coalescer.h.
#include "sim/timing/coalescer.h"

#include <array>
#include <bit>

namespace warplab::timing {

void coalesce(const std::array<uint64_t, 32>& addr, uint32_t exec_mask, uint32_t access_bytes,
              uint32_t line_bytes, uint32_t sector_bytes, CoalescedAccess& out) {
  out.line_count = 0;
  out.sectors = 0;
  const uint32_t bytes = access_bytes == 0 ? 1 : access_bytes;
  // Bytes covered per line (lines of at most 128 bytes; longer lines count sectors as full).
  std::array<std::array<uint64_t, 2>, 64> covered{};
  const bool track = line_bytes <= 128;
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
        if (out.line_count == static_cast<int>(out.lines.size())) continue;  // cannot happen
        out.lines[out.line_count++] = LineRequest{line, 0, 0, 0, 0};
        covered[i] = {0, 0};
      }
      if (track)
        for (uint64_t b = lo; b <= hi; ++b) covered[i][b >> 6] |= 1ull << (b & 63);
      out.lines[i].sector_mask |= mask;
      out.lines[i].lane_mask |= 1u << lane;
    }
  }
  for (int i = 0; i < out.line_count; ++i) {
    LineRequest& r = out.lines[i];
    out.sectors += std::popcount(r.sector_mask);
    if (!track) {
      r.full_mask = r.sector_mask;
      r.word_mask = ~0u;
      continue;
    }
    const uint32_t word_bytes = line_bytes / 32;
    for (uint32_t w = 0; w < 32 && word_bytes > 0; ++w) {
      bool full = true;
      for (uint32_t b = w * word_bytes; b < (w + 1) * word_bytes && full; ++b)
        full = covered[i][b >> 6] >> (b & 63) & 1u;
      if (full) r.word_mask |= 1u << w;
    }
    for (uint32_t s = 0; s * sector_bytes < line_bytes; ++s) {
      bool full = true;
      for (uint32_t b = s * sector_bytes; b < (s + 1) * sector_bytes && full; ++b)
        full = covered[i][b >> 6] >> (b & 63) & 1u;
      if (full) r.full_mask |= 1u << s;
    }
    r.full_mask &= r.sector_mask;
  }
}

}  // namespace warplab::timing
