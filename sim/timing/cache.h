// A sectored, set-associative cache (used for the L1 of each SM and every L2 slice).
//
// Hardware: NVIDIA caches keep tags per 128-byte line but move data in 32-byte sectors, so a line
// can be present with only some sectors valid. A request for sectors of a line "hits" the sectors
// already there and "misses" the rest, which are fetched from the next level.
//
// Modelled: tags, per-sector valid and dirty bits, a fill time per sector (a sector whose data is
// still on its way counts as a hit that waits for the fill: this is miss merging, what MSHRs do),
// a replacement policy by name, write-back of dirty sectors on eviction.
// Simplified: the cache updates its tags when a request is accepted, not when the data returns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/common/zeroed_array.h"
#include "sim/timing/replacement.h"

namespace warplab::timing {

struct CacheAccess {
  uint32_t hit_mask = 0;      // requested sectors present (data ready at ready_at)
  uint32_t pending_mask = 0;  // of hit_mask: sectors whose fill is still in flight (merged)
  uint32_t miss_mask = 0;     // requested sectors absent
  uint64_t ready_at = 0;      // latest fill time among hit sectors (0 if all long present)
  bool evicted = false;       // allocating evicted a valid line
  uint64_t evicted_line = 0;
  uint32_t evicted_dirty = 0;    // dirty sectors of the evicted line (to write back)
  uint32_t evicted_partial = 0;  // of evicted_dirty: sectors only partly written (see mark_partial)
  int64_t way = -1;              // way index holding the line after the access (-1: not allocated)
};

class SectoredCache {
 public:
  // `lines` total lines (rounded down to whole sets), `sectors_per_line` <= 32.
  SectoredCache(uint64_t lines, int assoc, int sectors_per_line, const std::string& replacement);

  // Looks `line` up for `sector_mask`. With allocate, a miss claims a way (evicting if needed) and
  // marks the missing sectors valid with fill time kPending; call set_fill() once it is known.
  CacheAccess access(uint64_t line, uint32_t sector_mask, uint64_t now, bool allocate);
  void set_fill(int64_t way, uint32_t sector_mask, uint64_t ready_at);
  // One sector's fill time; and, for those of `sector_mask` whose fill time is still `stand_in`,
  // the fill time `ready_at` (a fill known only later: an L1 miss held to the cycle's end,
  // l2_queue.h; a sector reallocated meanwhile keeps its new fill).
  uint64_t fill_at(int64_t way, int sector) const { return fill(way, sector); }
  void resolve_fill(int64_t way, uint32_t sector_mask, uint64_t stand_in, uint64_t ready_at);
  void mark_dirty(int64_t way, uint32_t sector_mask);
  // Sectors holding only the bytes a store wrote (a partial write that missed): their other bytes
  // are in DRAM. A read must fetch them; a write-back must merge them (read-modify-write).
  void mark_partial(int64_t way, uint32_t sector_mask) { ways_[way].partial |= sector_mask; }
  void clear_partial(int64_t way, uint32_t sector_mask) {
    ways_[way].partial &= ~sector_mask;
    ways_[way].written &= ~sector_words(sector_mask);
  }
  // Records the 32nds of the line a store wrote; partial sectors wholly written by now become
  // whole sectors again.
  void add_written(int64_t way, uint32_t word_mask) {
    Way& w = ways_[way];
    w.written |= word_mask;
    for (int s = 0; s < sectors_; ++s)
      if ((w.partial >> s & 1u) && (w.written & sector_words(1u << s)) == sector_words(1u << s))
        clear_partial(way, 1u << s);
  }
  uint32_t partial(int64_t way) const { return ways_[way].partial; }
  // A set may hold at most `max_dirty` dirty lines (an L2 that writes back early, l2.dirty_ways):
  // when `way`'s set holds more, the line made dirty first (not `way`) is cleaned and returned
  // as an eviction to write back (evicted, evicted_line, evicted_dirty, evicted_partial); it
  // stays in the cache, valid and clean. Nothing to do: evicted is false.
  CacheAccess clean_oldest_dirty(int64_t way, int max_dirty);
  // Drops sectors of `line` if present (write-through L1 on a store: no stale data).
  void invalidate(uint64_t line, uint32_t sector_mask);
  bool contains(uint64_t line, uint32_t sector_mask) const;
  // Keeps the contents but forgets fill times (the next launch counts cycles from 0 again).
  void clear_fill_times();
  uint64_t sets() const { return sets_; }

  static constexpr uint64_t kPending = ~0ull;

 private:
  // One way's state and its sectors' fill times side by side: 64 bytes, one host cache line
  // when a line has at most kInlineSectors sectors (the presets' 4), so an access touches its
  // set's tags, the policy's stamps and this one line (issue 26: per-core speed). Lines of more
  // sectors keep their fill times in fill_ instead.
  static constexpr int kInlineSectors = 5;
  struct alignas(64) Way {
    uint32_t valid, dirty, partial, written;  // sector masks; written: 32nds of the line
    uint64_t fill[kInlineSectors];            // per sector: the cycle its data arrives
  };
  static_assert(sizeof(Way) == 64);
  uint64_t& fill(int64_t way, int sector) {
    return sectors_ <= kInlineSectors ? ways_[way].fill[sector] : fill_[way * sectors_ + sector];
  }
  uint64_t fill(int64_t way, int sector) const {
    return sectors_ <= kInlineSectors ? ways_[way].fill[sector] : fill_[way * sectors_ + sector];
  }
  int64_t find(uint64_t line) const;
  uint64_t sets_;
  int assoc_, sectors_;
  ZeroedArray<uint64_t> tag_;  // line address + 1 (0 = invalid way)
  // The 32nds of the line that sector_mask's sectors span.
  uint32_t sector_words(uint32_t sector_mask) const {
    const int per = 32 / sectors_;
    uint32_t m = 0;
    for (int s = 0; s < sectors_; ++s)
      if (sector_mask >> s & 1u) m |= (per >= 32 ? ~0u : ((1u << per) - 1)) << (s * per);
    return m;
  }
  ZeroedArray<Way> ways_;
  // Per way: the order its line became dirty (1, 2, ...), 0 while it is clean (its dirty mask
  // 0). Apart from the ways so that clean_oldest_dirty reads a set's 8 bytes a way, not one host
  // cache line a way (a store stream asks it at every L2 store: issue 26, per-core speed).
  // Allocated at the first mark_dirty (a write-through L1 never marks a line dirty).
  ZeroedArray<uint64_t> dirtied_;
  uint64_t dirty_count_ = 0;
  ZeroedArray<uint64_t> fill_;  // per way x sector, for lines of more than kInlineSectors
  std::unique_ptr<ReplacementPolicy> policy_;
};

}  // namespace warplab::timing
