// Coalescer: see coalescer.h.
#include "sim/timing/coalescer.h"

#include <array>
#include <bit>
#include <cstring>

#include "sim/common/bits.h"

namespace warplab::timing {
namespace {

// Bytes [lo, hi] of a line of at most 128 bytes, as bits of two words.
void cover(std::array<uint64_t, 2>& c, uint64_t lo, uint64_t hi) {
  if (lo >> 6 == hi >> 6) {  // (most accesses: within one 64-byte half)
    c[lo >> 6] |= (~0ull >> (63 - (hi & 63))) & (~0ull << (lo & 63));
    return;
  }
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

// Bits a..b of a mask (none when b < a); a, b < 32.
uint32_t bit_range(int64_t a, int64_t b) {
  return b < a ? 0 : static_cast<uint32_t>((2ull << b) - (1ull << a));
}

// The 2^`shift`-byte pieces of a line wholly inside its bytes [lo, hi]: one bit each.
uint32_t whole_units(uint64_t lo, uint64_t hi, int shift) {
  const uint64_t unit = 1ull << shift;
  return bit_range(static_cast<int64_t>((lo + unit - 1) >> shift),
                   static_cast<int64_t>((hi + 1) >> shift) - 1);
}

// Bits 0, 4, 8, ... 60 of x as bits 0..15 (gathered in halving steps).
uint32_t every_fourth_bit(uint64_t x) {
  x &= 0x1111111111111111ull;
  x = (x | x >> 3) & 0x0303030303030303ull;
  x = (x | x >> 6) & 0x000F000F000F000Full;
  x = (x | x >> 12) & 0x000000FF000000FFull;
  return static_cast<uint32_t>((x | x >> 24) & 0xFFFFull);
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
  // The lane of byte `a` in a run of lanes that starts with lane `l0` at `start`: its byte offset
  // over the access size (a shift for the usual power-of-two sizes; a division costs tens of
  // cycles). Used by the whole warp's run and by the runs below.
  const bool pow2 = single_bit(bytes);
  const int byte_shift = std::countr_zero(bytes);
  auto lane_in_run = [&](uint64_t a, uint64_t start, int64_t l0) {
    return l0 + static_cast<int64_t>(pow2 ? (a - start) >> byte_shift : (a - start) / bytes);
  };
  // A full warp reading or writing one contiguous run (lane l at addr[0] + l * bytes: a
  // coalesced stream): each line's part of the run is the union of its lanes' bytes, so the
  // lines take their bytes, sectors and lanes from the run itself, without a pass per lane.
  // (One pass without an early exit, two lanes at a time: each lane's address XOR its place in
  // the run, OR-ed; zero when every lane is in its place.)
  const uint64_t run = 32ull * bytes, a0 = addr[0];
  bool contiguous = exec_mask == ~0u && a0 <= ~0ull - run &&
                    ((a0 + run - 1) >> line_shift) - (a0 >> line_shift) < out.lines.size();
  if (contiguous) {
    using Pair = uint64_t __attribute__((vector_size(16)));
    Pair place = {a0, a0 + bytes}, off = {0, 0};
    const Pair step = {2ull * bytes, 2ull * bytes};
    for (int l = 0; l < 32; l += 2) {
      Pair a;
      std::memcpy(&a, &addr[l], sizeof a);
      off |= a ^ place;
      place += step;
    }
    contiguous = (off[0] | off[1]) == 0;
  }
  if (contiguous) {
    const uint64_t end = a0 + run - 1;
    const int word_shift = std::countr_zero(line_bytes / 32);
    for (uint64_t line = a0 >> line_shift; line <= end >> line_shift; ++line) {
      const uint64_t base = line << line_shift;
      const uint64_t from = std::max(a0, base), to = std::min(end, base + line_bytes - 1);
      const uint64_t lo = from - base, hi = to - base;
      const int i = out.line_count++;
      const uint32_t lanes = bit_range(lane_in_run(from, a0, 0), lane_in_run(to, a0, 0));
      out.lines[i] = LineRequest{line, 0, 0, 0, 0};
      out.lines[i].sector_mask =
          static_cast<uint32_t>((2ull << (hi >> sector_shift)) - (1ull << (lo >> sector_shift)));
      out.lines[i].lane_mask = lanes;
      out.sectors += popc32(out.lines[i].sector_mask);
      // The run covers bytes lo..hi of the line and no others: its whole words and sectors.
      const uint32_t word_bytes = line_bytes / 32;
      out.lines[i].word_mask = !track ? ~0u : word_bytes ? whole_units(lo, hi, word_shift) : 0;
      out.lines[i].full_mask = !track
                                   ? out.lines[i].sector_mask
                                   : whole_units(lo, hi, sector_shift) & out.lines[i].sector_mask;
    }
    return;
  }
  // The line the previous run's bytes ended in and its index: neighbouring lanes mostly share
  // a line, so the search below runs once a line, not once a lane.
  uint64_t last_line = ~0ull;
  int last_i = 0;
  // Lanes are taken in runs: consecutive active lanes each of whose bytes follow the previous
  // lane's (a row of a tile, a partial warp's stream). A run's bytes in a line are one range, and
  // its lanes touch its lines in ascending order, as lane by lane would: the same lines in the
  // same first-touch order, with the union of the same lanes, sectors and bytes. (A lane whose
  // last byte would pass 2^64 - 1 is a run of its own, as is the lane after it.)
  const uint64_t last_start = ~0ull - bytes;  // a lane at or below it ends before 2^64 - 1
  for (uint32_t m = exec_mask; m != 0;) {
    const int l0 = std::countr_zero(m);
    int l1 = l0;
    while (l1 < 31 && (m >> (l1 + 1) & 1u) && addr[l1] <= last_start &&
           addr[l1 + 1] == addr[l1] + bytes && addr[l1 + 1] <= last_start + 1)
      ++l1;
    m = l1 == 31 ? 0u : m & (~0u << (l1 + 1));
    const uint64_t first = addr[l0], last = addr[l1] + bytes - 1;
    // 1. Each line the run's bytes touch.
    const uint64_t first_line = first >> line_shift, last_line_of_run = last >> line_shift;
    for (uint64_t line = first_line; line <= last_line_of_run; ++line) {
      const uint64_t base = line << line_shift;
      const uint64_t lo = line == first_line ? first - base : 0;
      const uint64_t hi = line == last_line_of_run ? last - base : line_bytes - 1;
      // Sectors lo / sector_bytes .. hi / sector_bytes (at most 32 a line).
      const uint32_t mask =
          static_cast<uint32_t>((2ull << (hi >> sector_shift)) - (1ull << (lo >> sector_shift)));
      // 2. Merge with a line already requested by an earlier run, or start a new one.
      int i = 0;
      if (line == last_line) {
        i = last_i;
      } else {
        while (i < out.line_count && out.lines[i].line != line) ++i;
        if (i == out.line_count) {
          if (out.line_count == static_cast<int>(out.lines.size())) continue;  // cannot happen
          out.lines[out.line_count++] = LineRequest{line, 0, 0, 0, 0};
          covered[i] = {0, 0};
        }
        last_line = line, last_i = i;
      }
      if (track) cover(covered[i], lo, hi);
      out.lines[i].sector_mask |= mask;
      out.lines[i].lane_mask |=
          bit_range(lane_in_run(base + lo, first, l0), lane_in_run(base + hi, first, l0));
    }
  }
  for (int i = 0; i < out.line_count; ++i) {
    LineRequest& r = out.lines[i];
    out.sectors += popc32(r.sector_mask);
    if (!track) {
      r.full_mask = r.sector_mask;
      r.word_mask = ~0u;
      continue;
    }
    const uint32_t word_bytes = line_bytes / 32;
    if (word_bytes == 4) {  // 128-byte lines: word w is nibble w % 16 of covered[w / 16]
      for (int k = 0; k < 2; ++k) {
        uint64_t x = covered[i][k];
        x &= x >> 1;
        x &= x >> 2;  // bit 4j: all of nibble j
        r.word_mask |= every_fourth_bit(x) << (16 * k);
      }
    } else {
      for (uint32_t w = 0; w < 32 && word_bytes > 0; ++w)
        if (covered_all(covered[i], w * word_bytes, word_bytes)) r.word_mask |= 1u << w;
    }
    for (uint32_t s = 0; s * sector_bytes < line_bytes; ++s)
      if (covered_all(covered[i], s * sector_bytes, sector_bytes)) r.full_mask |= 1u << s;
    r.full_mask &= r.sector_mask;
  }
}

}  // namespace warplab::timing
