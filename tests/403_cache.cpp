// Sectored cache: hits, misses, sector masks, eviction, miss merging (sim/timing/cache.h).
#include <doctest/doctest.h>

#include "sim/timing/cache.h"

using namespace warplab::timing;

TEST_CASE("403 miss allocates, second access hits the same sectors only") {
  SectoredCache c(8, 2, 4, "lru");  // 4 sets x 2 ways
  auto a = c.access(10, 0x3u, 0, true);
  CHECK(a.miss_mask == 0x3u);
  CHECK(a.hit_mask == 0u);
  c.set_fill(a.way, a.miss_mask, 100);
  auto b = c.access(10, 0xfu, 200, true);
  CHECK(b.hit_mask == 0x3u);
  CHECK(b.miss_mask == 0xcu);
  CHECK(b.pending_mask == 0u);
  CHECK(c.contains(10, 0x3u));
}

TEST_CASE("403 a sector still being filled is a merged hit that waits for the fill") {
  SectoredCache c(8, 2, 4, "lru");
  auto a = c.access(3, 0x1u, 0, true);
  c.set_fill(a.way, a.miss_mask, 500);
  auto b = c.access(3, 0x1u, 10, true);
  CHECK(b.hit_mask == 0x1u);
  CHECK(b.pending_mask == 0x1u);
  CHECK(b.ready_at == 500);
}

TEST_CASE("403 LRU evicts the least recently used way of the set, FIFO the oldest fill") {
  for (const char* policy : {"lru", "fifo"}) {
    SectoredCache c(4, 2, 4, policy);  // 2 sets x 2 ways; lines 0, 2, 4 share set 0
    c.set_fill(c.access(0, 0xf, 1, true).way, 0xf, 1);
    c.set_fill(c.access(2, 0xf, 2, true).way, 0xf, 2);
    c.access(0, 0x1, 3, true);           // touch line 0
    auto e = c.access(4, 0x1, 4, true);  // evicts
    CHECK(e.evicted);
    if (std::string(policy) == "lru")
      CHECK(e.evicted_line == 2);
    else
      CHECK(e.evicted_line == 0);
  }
}

TEST_CASE("403 dirty sectors come back on eviction; invalidate drops sectors") {
  SectoredCache c(2, 1, 4, "lru");  // 2 sets x 1 way
  auto a = c.access(0, 0x5, 0, true);
  c.mark_dirty(a.way, 0x4);
  auto e = c.access(2, 0x1, 1, true);
  CHECK(e.evicted);
  CHECK(e.evicted_dirty == 0x4u);
  c.invalidate(2, 0x1);
  CHECK_FALSE(c.contains(2, 0x1));
  auto n = c.access(7, 0x1, 2, false);  // no allocation
  CHECK(n.way == -1);
  CHECK_FALSE(c.contains(7, 0x1));
}

TEST_CASE("403 fill times per sector, for lines of 4 and of 8 sectors, and cleared") {
  // Up to 5 sectors keep their fill times beside the way's state, more in an array of their own
  // (cache.h): both give each sector its own time.
  for (int sectors : {4, 8}) {
    CAPTURE(sectors);
    SectoredCache c(8, 2, sectors, "lru");
    const uint32_t last = 1u << (sectors - 1);
    auto a = c.access(5, last | 0x1u, 0, true);
    CHECK(a.miss_mask == (last | 0x1u));
    CHECK(c.fill_at(a.way, sectors - 1) == SectoredCache::kPending);
    c.set_fill(a.way, last, 300);
    c.set_fill(a.way, 0x1u, 200);
    c.resolve_fill(a.way, 0x2u | last, 300, 400);  // sector 1 absent: left alone
    CHECK(c.fill_at(a.way, 0) == 200);
    CHECK(c.fill_at(a.way, sectors - 1) == 400);
    CHECK(c.fill_at(a.way, 1) == 0);
    auto b = c.access(5, last | 0x3u, 250, true);
    CHECK(b.hit_mask == (last | 0x1u));
    CHECK(b.pending_mask == last);
    CHECK(b.miss_mask == 0x2u);
    CHECK(b.ready_at == 400);
    c.clear_fill_times();
    CHECK(c.fill_at(a.way, sectors - 1) == 0);
    CHECK(c.fill_at(a.way, 1) == 0);  // (its pending fill forgotten too)
    CHECK(c.contains(5, last | 0x3u));
  }
}
