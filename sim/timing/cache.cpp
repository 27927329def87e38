// Sectored cache: see cache.h.
#include "sim/timing/cache.h"

#include <algorithm>
#include <bit>

namespace warplab::timing {

SectoredCache::SectoredCache(uint64_t lines, int assoc, int sectors_per_line,
                             const std::string& replacement)
    : sets_(std::max<uint64_t>(1, lines / std::max(1, assoc))),
      assoc_(std::max(1, assoc)),
      sectors_(sectors_per_line),
      tag_(sets_ * assoc_),
      ways_(sets_ * assoc_),
      fill_(sectors_per_line > kInlineSectors ? sets_ * assoc_ * sectors_per_line : 0),
      policy_(make_replacement(replacement, sets_ * assoc_)) {
  if (!policy_) policy_ = make_replacement("lru", sets_ * assoc_);
}

void SectoredCache::clear_fill_times() {
  for (int64_t w = 0; w < static_cast<int64_t>(ways_.size()); ++w)
    for (int s = 0; s < sectors_; ++s) fill(w, s) = 0;
}

int64_t SectoredCache::find(uint64_t line) const {
  const uint64_t first = (line % sets_) * assoc_;
  for (int w = 0; w < assoc_; ++w)
    if (tag_[first + w] == line + 1) return static_cast<int64_t>(first + w);
  return -1;
}

CacheAccess SectoredCache::access(uint64_t line, uint32_t sector_mask, uint64_t now,
                                  bool allocate) {
  CacheAccess r;
  int64_t way = find(line);
  // 1. Tag match: split the request into present and missing sectors.
  if (way >= 0) {
    r.hit_mask = sector_mask & ways_[way].valid;
    r.miss_mask = sector_mask & ~ways_[way].valid;
    for (uint32_t m = r.hit_mask; m; m &= m - 1) {
      const uint64_t f = fill(way, std::countr_zero(m));
      if (f > now) r.pending_mask |= 1u << std::countr_zero(m);
      r.ready_at = std::max(r.ready_at, f);
    }
    policy_->on_hit(way, now);
  } else {
    r.miss_mask = sector_mask;
    if (!allocate) return r;
    // 2. Allocate: an invalid way first, else the policy's victim (write back its dirty sectors).
    const uint64_t first = (line % sets_) * assoc_;
    int pick = -1;
    for (int w = 0; w < assoc_ && pick < 0; ++w)
      if (tag_[first + w] == 0) pick = w;
    if (pick < 0) {
      pick = policy_->victim(first, assoc_);
      r.evicted = true;
      r.evicted_line = tag_[first + pick] - 1;
      r.evicted_dirty = ways_[first + pick].dirty;
      r.evicted_partial = ways_[first + pick].partial & r.evicted_dirty;
    }
    way = static_cast<int64_t>(first + pick);
    tag_[way] = line + 1;
    Way& w = ways_[way];
    if (w.dirty) dirtied_[way] = 0;  // (a clean way's is 0 already: an L1's stays untouched)
    w.valid = w.dirty = w.partial = w.written = 0;
    policy_->on_fill(way, now);
  }
  // 3. Missing sectors become valid now, their data arriving at the fill time set later.
  if (allocate && r.miss_mask) {
    ways_[way].valid |= r.miss_mask;
    for (uint32_t m = r.miss_mask; m; m &= m - 1) fill(way, std::countr_zero(m)) = kPending;
  }
  r.way = allocate || r.hit_mask ? way : -1;
  return r;
}

void SectoredCache::set_fill(int64_t way, uint32_t sector_mask, uint64_t ready_at) {
  if (way < 0) return;
  for (uint32_t m = sector_mask; m; m &= m - 1) fill(way, std::countr_zero(m)) = ready_at;
}

void SectoredCache::resolve_fill(int64_t way, uint32_t sector_mask, uint64_t stand_in,
                                 uint64_t ready_at) {
  if (way < 0) return;
  for (uint32_t m = sector_mask; m; m &= m - 1) {
    uint64_t& f = fill(way, std::countr_zero(m));
    if (f == stand_in) f = ready_at;
  }
}

void SectoredCache::mark_dirty(int64_t way, uint32_t sector_mask) {
  if (way < 0 || sector_mask == 0) return;
  Way& w = ways_[way];
  if (dirtied_.size() == 0) dirtied_ = ZeroedArray<uint64_t>(ways_.size());  // (an L1: never)
  if (w.dirty == 0) dirtied_[way] = ++dirty_count_;
  w.dirty |= sector_mask;
}

CacheAccess SectoredCache::clean_oldest_dirty(int64_t way, int max_dirty) {
  CacheAccess r;
  if (way < 0 || dirtied_.size() == 0) return r;  // (nothing was ever dirty)
  const uint64_t first = static_cast<uint64_t>(way) / assoc_ * assoc_;
  int dirty = 0;
  int64_t oldest = -1;
  for (int w = 0; w < assoc_; ++w) {
    const int64_t i = static_cast<int64_t>(first + w);
    if (dirtied_[i] == 0) continue;  // clean
    ++dirty;
    if (i != way && (oldest < 0 || dirtied_[i] < dirtied_[oldest])) oldest = i;
  }
  if (dirty <= max_dirty || oldest < 0) return r;
  r.evicted = true;
  r.evicted_line = tag_[oldest] - 1;
  r.evicted_dirty = ways_[oldest].dirty;
  r.evicted_partial = ways_[oldest].partial & ways_[oldest].dirty;
  r.way = oldest;
  ways_[oldest].dirty = 0;
  dirtied_[oldest] = 0;
  return r;
}

void SectoredCache::invalidate(uint64_t line, uint32_t sector_mask) {
  const int64_t way = find(line);
  if (way < 0) return;
  Way& w = ways_[way];
  w.valid &= ~sector_mask;
  if (w.dirty && (w.dirty &= ~sector_mask) == 0) dirtied_[way] = 0;
  w.partial &= ~sector_mask;
  if (w.valid == 0) tag_[way] = 0;
}

bool SectoredCache::contains(uint64_t line, uint32_t sector_mask) const {
  const int64_t way = find(line);
  return way >= 0 && (ways_[way].valid & sector_mask) == sector_mask;
}

}  // namespace warplab::timing
