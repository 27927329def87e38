// Coalescer: see coalescer.h.
#include "sim/timing/coalescer.h"

#include <array>
#include <bit>

namespace warplab::timing {
namespace {

// Bytes [lo, hi] of a line of at most 128 bytes, as bits of two words.
void cover(std::array<uint64_t, 2>& c, uint64_t lo, uint64_t hi) {
  for (uint64_t w = lo >> 6; w <= hi >> 6; ++w) {
    const uint64_t a = w == lo >> 6 ? lo & 63 : 0, b = w == hi >> 6 ? hi & 63 : 63;
    c[w] |= (~0ull >> (63 - b)) & (~0ull << a);
  }
}

// Whether every byte of [lo, lo + n) is covered (n a power of two, lo a multiple of n).
bool covered_all(const std::array<uint64_t, 2>& c, uint32_t lo, uint32_t n) {
  if (n >= 64) {
    for (uint32_t w = lo >> 6; w < (lo + n) >> 6; ++w)
      if (c[w] != ~0ull) return false;
    return true;
  }
  const uint64_t m = ((1ull << n) - 1) << (lo & 63);
  return (c[lo >> 6] & m) == m;
}

}  // namespace

void coalesce(const std::array<uint64_t, 32>& addr, uint32_t exec_mask, uint32_t access_bytes,
              uint32_t line_bytes, uint32_t sector_bytes, CoalescedAccess& out) {
  out.line_count = 0;
  out.sectors = 0;
  const uint32_t bytes = access_bytes == 0 ? 1 : access_bytes;
  // Line and sector sizes are powers of two (validate_config): shifts, not divisions.
  const int line_shift = std::countr_zero(line_bytes);
  const int sector_shift = std::countr_zero(sector_bytes);
  // Bytes covered per line (lines of at most 128 bytes; longer lines count sectors as full).
  // Entry i is cleared when line i is first requested.
  std::array<std::array<uint64_t, 2>, 64> covered;
  const bool track = line_bytes <= 128;
  for (uint32_t m = exec_mask; m != 0; m &= m - 1) {
    const int lane = std::countr_zero(m);
    const uint64_t first = addr[lane], last = addr[lane] + bytes - 1;
    // 1. Each line the lane's bytes touch (two only when the access straddles a line).
    for (uint64_t line = first >> line_shift; line <= last >> line_shift; ++line) {
      const uint64_t base = line << line_shift;
      const uint64_t lo = std::max(first, base) - base;
      const uint64_t hi = std::min(last, base + line_bytes - 1) - base;
      // Sectors lo / sector_bytes .. hi / sector_bytes (at most 32 a line).
      const uint32_t mask =
          static_cast<uint32_t>((2ull << (hi >> sector_shift)) - (1ull << (lo >> sector_shift)));
      // 2. Merge with a line already requested by an earlier lane, or start a new one.
      int i = 0;
      while (i < out.line_count && out.lines[i].line != line) ++i;
      if (i == out.line_count) {
        if (out.line_count == static_cast<int>(out.lines.size())) continue;  // cannot happen
        out.lines[out.line_count++] = LineRequest{line, 0, 0, 0, 0};
        covered[i] = {0, 0};
      }
      if (track) cover(covered[i], lo, hi);
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
    for (uint32_t w = 0; w < 32 && word_bytes > 0; ++w)
      if (covered_all(covered[i], w * word_bytes, word_bytes)) r.word_mask |= 1u << w;
    for (uint32_t s = 0; s * sector_bytes < line_bytes; ++s)
      if (covered_all(covered[i], s * sector_bytes, sector_bytes)) r.full_mask |= 1u << s;
    r.full_mask &= r.sector_mask;
  }
}

}  // namespace warplab::timing
