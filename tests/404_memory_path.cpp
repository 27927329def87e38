// L1TEX -> L2 -> DRAM with synthetic requests: exact latencies, bandwidth, bounded misses.
#include <doctest/doctest.h>

#include <functional>

#include "sim/timing/dram.h"
#include "sim/timing/l1tex.h"
#include "sim/timing/l2.h"
#include "sim/timing/l2_fabric.h"

using namespace warplab::timing;

namespace {
CoalescedAccess warp_line(uint64_t base) {
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = base + 4 * l;
  CoalescedAccess c;
  coalesce(a, 0xffffffffu, 4, 128, 32, c);
  return c;
}
}  // namespace

TEST_CASE("404 an L1 hit returns at exactly the configured latency") {
  GpuConfig cfg;  // H100 defaults
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  const auto a = warp_line(0x10000);
  const uint64_t first = l1.load(a, false, 0);
  CHECK(first > uint64_t(cfg.l2.hit_latency + cfg.dram.latency));  // cold: from DRAM
  const uint64_t t = first + 10;
  CHECK(l1.load(a, false, t) == t + cfg.l1.hit_latency);
  CHECK(l1.counters().global_ld_sectors == 8);
  CHECK(l1.counters().global_ld_sector_hits == 4);
}

TEST_CASE(
    "404 an L2 hit from another SM returns at exactly the L2 latency; a cold miss adds DRAM") {
  GpuConfig cfg;
  L2 l2(cfg);
  L1Tex sm0(cfg, l2), sm1(cfg, l2);
  const auto a = warp_line(0x20000);
  const uint64_t cold = sm0.load(a, false, 0);
  // Cold DRAM: the bank is closed, so it activates the row (t_rcd) before the transfer.
  const uint64_t transfer = cold - cfg.l2.hit_latency - cfg.dram.latency - cfg.dram.t_rcd;
  CHECK(transfer >= 1);
  CHECK(transfer <= 20);  // 128 bytes on one pseudo-channel (~8 bytes per cycle)
  CHECK(sm1.load(a, false, 5000) == 5000 + uint64_t(cfg.l2.hit_latency));
  CHECK(l2.counters().read_sector_hits == 4);
  CHECK(l2.counters().read_sector_misses == 4);
  CHECK(l2.dram().bytes_read() == 128);
}

TEST_CASE("404 a second request for sectors in flight merges instead of refetching") {
  GpuConfig cfg;
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  const auto a = warp_line(0x30000);
  const uint64_t r0 = l1.load(a, false, 0);
  const uint64_t r1 = l1.load(a, false, 3);
  CHECK(r1 == r0);
  CHECK(l2.dram().bytes_read() == 128);
}

TEST_CASE("404 a read joining an in-flight fill gets the data with it and counts as a hit (ncu)") {
  // The H100 (scripts/microbench/L2-JOIN-2026-11-27.md): a second warp loading a line whose DRAM
  // fetch is in flight gets its data when the first does (join.cu: arrival times within 10
  // cycles for delays up to 375 cycles), and ncu counts most such lookups as hits (64 blocks
  // reading the same 64 KiB: 3,584 lookup misses for 2,168 DRAM sectors, 31,644 hits).
  GpuConfig cfg;
  L2 l2(cfg);
  const uint64_t first = l2.read(0x400, 0xF, 0);
  const uint64_t joined = l2.read(0x400, 0xF, 100);
  CHECK(joined == first);
  CHECK(l2.counters().read_sector_misses == 4);
  CHECK(l2.counters().read_sector_hits == 4);
  // After the fill: a plain hit, one L2 latency.
  CHECK(l2.read(0x400, 0x1, first + 10) == first + 10 + uint64_t(cfg.l2.hit_latency));
  CHECK(l2.counters().read_sector_hits == 5);
  CHECK(l2.dram().bytes_read() == 128);
}

TEST_CASE("404 DRAM sustains bus width x rate x efficiency") {
  GpuConfig cfg;
  Dram d(cfg);
  const uint64_t n = 200000;
  uint64_t last = 0;
  for (uint64_t i = 0; i < n; ++i) last = std::max(last, d.read(i * 32, 32, 0));
  const double cycles = double(last - cfg.dram.latency);
  const double expect = double(n * 32) / (cfg.peak_dram_bytes_per_cycle() * cfg.dram.efficiency);
  CHECK(cycles == doctest::Approx(expect).epsilon(0.03));
  CHECK(d.bytes_read() == n * 32);
}

TEST_CASE("404 misses in flight are bounded: the LSU refuses until one returns") {
  GpuConfig cfg;
  cfg.l1.miss_lines_in_flight = 4;
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  uint64_t wake = 0, first = 0;
  for (int i = 0; i < 4; ++i) {
    REQUIRE(l1.can_accept_global(i, wake));
    const uint64_t r = l1.load(warp_line(0x100000 + 4096 * i), false, i);
    if (i == 0) first = r;
  }
  CHECK_FALSE(l1.can_accept_global(4, wake));
  CHECK(wake == first);
  CHECK(l1.can_accept_global(first, wake));
}

TEST_CASE("404 a scattered load occupies the L1 tag stage one line per cycle") {
  GpuConfig cfg;
  cfg.l1.lsu_queue = 40;
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = 0x200000 + 128 * l;
  CoalescedAccess c;
  coalesce(a, 0xffffffffu, 4, 128, 32, c);
  l1.load(c, false, 0);
  uint64_t wake = 0;
  CHECK(l1.can_accept_global(0, wake));  // 32 lines queued <= 40
  l1.load(c, false, 0);                  // now 64 queued
  CHECK_FALSE(l1.can_accept_global(0, wake));
  CHECK(wake == 24);
  CHECK(l1.counters().line_lookups == 64);
}

TEST_CASE("404 stores write through to the L2 and dirty data reaches DRAM on eviction") {
  GpuConfig cfg;
  cfg.l2.size_bytes = 128 * 16 * 2;  // 2 slices x 1 set x 16 ways
  cfg.l2.slices = 2;
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  for (int i = 0; i < 64; ++i) l1.store(warp_line(0x400000 + 128 * i), false, i);
  CHECK(l1.counters().global_st_sectors == 64 * 4);
  CHECK(l2.counters().write_sectors == 64 * 4);
  CHECK(l2.dram().bytes_read() == 0);
  CHECK(l2.dram().bytes_written() == (64 - 32) * 128);
}

namespace {
// One lane per line, `bytes` bytes each, lines `step` bytes apart from `base`.
CoalescedAccess scattered(uint64_t base, uint64_t step, uint32_t bytes, uint32_t mask = ~0u) {
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = base + step * l;
  CoalescedAccess c;
  coalesce(a, mask, bytes, 128, 32, c);
  return c;
}
}  // namespace

TEST_CASE("404 the coalescer marks whole sectors and the line's covered 4-byte words") {
  const auto full = warp_line(0x1000);
  REQUIRE(full.line_count == 1);
  CHECK(full.lines[0].full_mask == 0xfu);
  CHECK(full.lines[0].word_mask == 0xffffffffu);
  const auto one = scattered(0x1000, 128, 4);
  CHECK(one.lines[0].sector_mask == 1u);
  CHECK(one.lines[0].full_mask == 0u);
  CHECK(one.lines[0].word_mask == 1u);
  // Bytes: 32 lanes writing 1 byte each cover one whole sector.
  const auto bytes = scattered(0x2000, 1, 1);
  CHECK(bytes.lines[0].full_mask == 1u);
  CHECK(bytes.lines[0].word_mask == 0xffu);
}

TEST_CASE("404 a partial-sector store holds an L2 slice for partial_write_sectors sector times") {
  GpuConfig cfg;
  cfg.l2.partial_write_sectors = 3;
  L2 l2(cfg);
  // Two whole-sector writes to one line back to back: the second waits 1 cycle per sector.
  const uint64_t a = l2.write(10, 0x1u, 0x1u, 0xffu, 0);
  CHECK(l2.write(10, 0x1u, 0x1u, 0xffu, 0) == a + 1);
  // A partial write (one word) then a whole one: the partial one holds the slice 3 cycles
  // (partial_write_sectors set to 3 here).
  L2 l2b(cfg);
  const uint64_t p = l2b.write(10, 0x1u, 0x0u, 0x1u, 0);
  CHECK(l2b.write(10, 0x1u, 0x1u, 0xffu, 0) == p + 3);
}

TEST_CASE("404 a partly written sector is read from DRAM on a read and read-modify-written back") {
  GpuConfig cfg;
  cfg.l2.size_bytes = 128 * 16 * 2;  // 2 slices x 1 set x 16 ways
  cfg.l2.slices = 2;
  cfg.l2.slice_bytes = 128;
  cfg.l2.fetch_bytes = 32;
  {
    L2 l2(cfg);
    l2.write(7, 0x1u, 0x0u, 0x1u, 0);  // one word of sector 0: the rest is in DRAM
    int dram = 0;
    l2.read(7, 0x1u, 100, &dram);
    CHECK(dram == 1);  // fetched, not served from the partial sector
    CHECK(l2.dram().bytes_read() == 32);
  }
  {
    // Eight partial writes that together cover the sector make it whole: no DRAM read on a read.
    L2 l2(cfg);
    for (int w = 0; w < 8; ++w) l2.write(9, 0x1u, 0x0u, 1u << w, w);
    int dram = 0;
    l2.read(9, 0x1u, 100, &dram);
    CHECK(dram == 0);
  }
  {
    // Evicting partial dirty sectors: DRAM reads each before writing it (read-modify-write).
    L2 l2(cfg);
    for (int i = 0; i < 64; ++i) l2.write(i, 0x1u, 0x0u, 0x1u, i);  // 32 lines per slice, 16 ways
    CHECK(l2.counters().partial_writebacks == 32);
    CHECK(l2.dram().bytes_read() == 32 * 32);
    CHECK(l2.dram().bytes_written() == 32 * 32);
  }
}

TEST_CASE("404 L2 atomics: a slice works through sectors, and same-address lanes one by one") {
  GpuConfig cfg;  // atomic_sector_cycles 1.2, atomic_lane_cycles 1.45
  {
    L2 l2(cfg);
    l2.read(1, 0xfu, 0);  // the line is in the L2 by cycle 10000
    // A full-line request of 32 distinct addresses (4 sectors): 4.8 cycles of the slice, so the
    // next request to that slice starts 4 cycles later.
    const uint64_t first = l2.atomic(1, 0xfu, 0, 10000);
    const uint64_t second = l2.atomic(1, 0xfu, 0, 10000);
    CHECK(second - first == 4);
  }
  {
    L2 l2(cfg);
    l2.read(1, 0x1u, 0);
    // 32 lanes on one address: 1.2 + 31 x 1.45 = 46.15 cycles.
    const uint64_t first = l2.atomic(1, 0x1u, 31, 10000);
    const uint64_t second = l2.atomic(1, 0x1u, 31, 10000);
    CHECK(second - first == 46);
  }
}

TEST_CASE("404 L2 atomics: float adds wait for the adder per lane and between updates of a word") {
  GpuConfig cfg;  // atomic_sector_cycles 1.2, atomic_lane_cycles 1.45, float lanes 3.6
  {
    L2 l2(cfg);
    l2.read(1, 0x1u, 0);
    // 32 lanes on one word: 1.2 + 31 x 3.6 = 112.8, at least 32 x 3.6 = 115.2 after a request on
    // the same word.
    const uint64_t first = l2.atomic(1, 0x1u, 31, 10000, 128, true);
    const uint64_t second = l2.atomic(1, 0x1u, 31, 10000, 128, true);
    CHECK(second - first == 115);
  }
  {
    // Whole cycles: sectors 1, integer lanes 2, float lanes 4.
    cfg.l2.atomic_sector_cycles = 1;
    cfg.l2.atomic_lane_cycles = 2;
    cfg.l2.atomic_float_lane_cycles = 4;
    auto third_minus_first = [&](bool float_add, uint64_t step) {
      L2 l2(cfg);
      l2.read(1, 0x1u, 0);
      const uint64_t a = l2.atomic(1, 0x1u, 0, 10000, 128, float_add);
      l2.atomic(1, 0x1u, 0, 10000, 128 + step, float_add);
      return l2.atomic(1, 0x1u, 0, 10000, 128 + 2 * step, float_add) - a;
    };
    CHECK(third_minus_first(true, 0) == 8);   // one lane each on one word: 4 cycles apart
    CHECK(third_minus_first(false, 0) == 4);  // integers: 2
    CHECK(third_minus_first(true, 4) == 2);   // distinct words: a sector time each
  }
}

TEST_CASE("404 L2 atomics: the float adder chains updates per word, other words go on meanwhile") {
  GpuConfig cfg;  // atomic_sector_cycles 1.2, atomic_lane_cycles 1.45, float lanes 3.6
  L2 l2(cfg);
  l2.read(1, 0x1u, 0);
  // 32 lanes on word 128: the unit is held 1.2 + 31 x 1.45 = 46.15 cycles, the word 32 x 3.6 =
  // 115.2. The same on word 132 (same sector): it starts when the unit is free, not the word.
  const uint64_t a = l2.atomic(1, 0x1u, 31, 10000, 128, true);
  const uint64_t b = l2.atomic(1, 0x1u, 31, 10000, 132, true);
  CHECK(b - a == 46);
  // Word 128 again: its lanes follow the first request's last update (115.2 + 115.2 = 230.4).
  const uint64_t c = l2.atomic(1, 0x1u, 31, 10000, 128, true);
  CHECK(c - a == 230 - 115);
  // A new launch forgets the words' chains.
  l2.begin_launch();
  const uint64_t d = l2.atomic(1, 0x1u, 31, 10000, 128, true);
  CHECK(d == a);
}

TEST_CASE(
    "404 lines of one 512-byte chunk share an L2 slice: their atomics queue behind each other") {
  GpuConfig cfg;
  L2 l2(cfg);
  for (uint64_t line : {0, 3, 4}) l2.read(line, 0x1u, 0);
  const uint64_t a = l2.atomic(0, 0x1u, 31, 10000);  // line 0
  const uint64_t b = l2.atomic(3, 0x1u, 31, 10000);  // line 3: same 512-byte chunk, same slice
  CHECK(b - a == 46);
  const uint64_t c = l2.atomic(4, 0x1u, 31, 20000);
  const uint64_t d = l2.atomic(0, 0x1u, 31, 20000);  // another chunk, another slice: no wait
  CHECK(d == c);
}

TEST_CASE("404 slices that share an atomic unit (l2.atomic_units) queue their atomics, not reads") {
  GpuConfig cfg;  // 96 slices; chunks below 64 go to the slice of their number
  cfg.l2.atomic_units = 32;
  L2 l2(cfg);
  // Slices 0 and 47 share unit 0 ((47 * 47) mod 96 = 1, runs of 3); slice 1 is in unit 15.
  for (uint64_t line : {0, 188, 4}) l2.read(line, 0x1u, 0);
  const uint64_t a = l2.atomic(0, 0x1u, 31, 10000);    // slice 0: the unit busy 46.4 cycles
  const uint64_t b = l2.atomic(188, 0x1u, 31, 10000);  // slice 47, the same unit: waits
  CHECK(b - a == 46);
  const uint64_t c = l2.atomic(4, 0x1u, 31, 20000);  // slice 1: another unit
  const uint64_t d = l2.atomic(0, 0x1u, 31, 20000);  // unit 0 is free again: no wait
  CHECK(d == c);
  // While unit 0 works, slice 47 itself serves a read at once: only its sector time is held.
  L2 fresh(cfg);
  for (uint64_t line : {0, 188}) fresh.read(line, 0x1u, 0);
  const uint64_t hit = fresh.read(188, 0x1u, 30000);
  fresh.atomic(0, 0x1u, 31, 40000);
  CHECK(fresh.read(188, 0x1u, 40000) - 40000 == hit - 30000);
}

TEST_CASE(
    "404 a pool of atomic units (l2.atomic_pool): any slice takes a free one, one at a time") {
  GpuConfig cfg;  // 96 slices, hit latency 270, atomic latency 12; chunks below 64: slice = chunk
  cfg.l2.atomic_units = 2;
  cfg.l2.atomic_pool = 1;
  L2 l2(cfg);
  for (uint64_t line : {0, 1, 4, 8}) l2.read(line, 0x1u, 0);
  // 32 lanes on one word: the unit and the slice busy 1.2 + 31 * 1.45 = 46.15 cycles.
  const uint64_t a = l2.atomic(0, 0x1u, 31, 10000);  // slice 0 takes unit 0
  const uint64_t b = l2.atomic(4, 0x1u, 31, 10000);  // slice 1 takes unit 1: no wait
  const uint64_t c = l2.atomic(8, 0x1u, 31, 10000);  // slice 2: both units busy until 10046.15
  CHECK(a == 10000 + 270 + 12 + 46);
  CHECK(b == a);
  CHECK(c == 10046 + 270 + 12 + 46);
  // A slice runs one atomic at a time even with a unit free: line 1 is slice 0's too.
  const uint64_t d = l2.atomic(0, 0x1u, 31, 20000);
  // Meanwhile the slice's tags serve a read at once (held for the atomic's one sector only).
  CHECK(l2.read(0, 0x1u, 20002) == 20002 + 270);
  const uint64_t e = l2.atomic(1, 0x1u, 31, 20000);
  CHECK(d == 20000 + 328);
  CHECK(e == 20046 + 328);
}

TEST_CASE("404 shared bank conflicts count loads and stores, not an atomic's passes on one word") {
  GpuConfig cfg;
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  std::array<uint64_t, 32> same{}, stride2{};
  for (int l = 0; l < 32; ++l) stride2[l] = 8u * static_cast<uint64_t>(l);  // 2-way conflict
  const SharedAccessCost atom = shared_access_cost(same, 0xffffffffu, 4, 32, 4, true);
  const SharedAccessCost load = shared_access_cost(stride2, 0xffffffffu, 4, 32, 4, false);
  REQUIRE(atom.wavefronts == 32);
  REQUIRE(load.bank_conflicts() == 1);
  // One wavefront per cycle from cycle 0: the atomic's 32 passes, then the load's 2.
  CHECK(l1.shared(atom, false, true, 0) == uint64_t(cfg.shared.latency) + 31);
  CHECK(l1.counters().shared_bank_conflicts == 0);
  CHECK(l1.shared(load, false, false, 0) == uint64_t(32 + cfg.shared.latency) + 1);
  CHECK(l1.counters().shared_bank_conflicts == 1);
  CHECK(l1.counters().shared_ld_wavefronts == 34);
}

TEST_CASE("404 an atomic's sectors each take a pass, plus one per further lane on a word") {
  GpuConfig cfg;  // atomic_sector_cycles 1.2, atomic_lane_cycles 1.45, one unit per slice
  cfg.l2.atomic_units = 0;
  L2 l2(cfg);
  L1Tex l1(cfg, l2);
  l2.read(0x10000 / 128, 0xfu, 0);
  // Lanes 0-15 on words 0-3 of sector 0, lanes 16-31 on words 8-11 of sector 1, 4 lanes a word:
  // 2 x 1.2 + (3 + 3) x 1.45 = 11.1 cycles of the slice.
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = 0x10000 + 4 * (l < 16 ? l / 4 : 8 + (l - 16) / 4);
  CoalescedAccess c;
  coalesce(a, 0xffffffffu, 4, 128, 32, c);
  REQUIRE(c.line_count == 1);
  const uint64_t first = l1.atomic(c, a, 0xffffffffu, 10000);
  const uint64_t second = l1.atomic(c, a, 0xffffffffu, 10000);
  CHECK(second - first == 11);
}

TEST_CASE("404 every L2 request costs its slice request_sectors on top of its sectors") {
  GpuConfig cfg;
  cfg.l2.request_sectors = 0.5;
  L2 l2(cfg);
  l2.read(0, 0x1u, 0);  // the sector is in the L2 by cycle 10000
  // Line 0 three times at cycle 10000, one sector each: the slice starts them 1.5 cycles apart.
  const uint64_t a = l2.read(0, 0x1u, 10000), b = l2.read(0, 0x1u, 10000),
                 c = l2.read(0, 0x1u, 10000);
  CHECK(b - a == 1);  // starts 10000, 10001.5, 10003
  CHECK(c - a == 3);
  // A partial-sector store is a read-modify-write: its sector and its request cost twice.
  L2 w(cfg);
  const uint64_t s0 = w.write(0, 0x1u, 0x0u, 0x1u, 200);  // starts 200, holds the slice 3 cycles
  const uint64_t s1 = w.write(0, 0x1u, 0x1u, 0xffu, 200);  // full sector: starts 203
  CHECK(s1 - s0 == 3);
}

TEST_CASE("404 an L2 slice reads and writes on separate paths: a store does not wait for reads") {
  GpuConfig cfg;
  L2 l2(cfg);
  l2.read(0, 0xfu, 0);  // line 0 in the L2 by cycle 10000
  const uint64_t r0 = l2.read(0, 0xfu, 10000);
  const uint64_t r1 = l2.read(0, 0xfu, 10000);  // waits for the first read's 4 sectors
  CHECK(r1 - r0 == 4);
  const uint64_t w = l2.write(0, 0xfu, 0xfu, 0xffffffffu, 10000);  // starts at once
  CHECK(w == 10000 + uint64_t(cfg.l2.hit_latency / 2));
}

TEST_CASE("404 l2.rw_share: a store holds the slice's read path for that share of its time") {
  // The H100's loads and stores share the slices' tag lookups (scripts/microbench/l2_rw.cu):
  // with rw_share 0.5 a 4-sector store holds the write path 4 cycles and the read path 2, a
  // 4-sector read the read path 4 and the write path 2.
  GpuConfig cfg;
  cfg.l2.rw_share = 0.5;
  L2 l2(cfg);
  l2.read(0, 0xfu, 0);  // line 0 in the L2 by cycle 10000
  const uint64_t half = uint64_t(cfg.l2.hit_latency / 2);
  // Store at 10000: starts at once; read path held to 10002, write path to 10004.
  CHECK(l2.write(0, 0xfu, 0xfu, 0xffffffffu, 10000) == 10000 + half);
  // Read at 10000: starts 10002 (read path held to 10006, write path to 10004 + 2 = 10006).
  CHECK(l2.read(0, 0xfu, 10000) == 10002 + uint64_t(cfg.l2.hit_latency));
  // Store at 10000: starts 10006 (read path to 10006 + 2, write path to 10010).
  CHECK(l2.write(0, 0xfu, 0xfu, 0xffffffffu, 10000) == 10006 + half);
  // A read at 10009 finds its path free from 10008: it starts at once.
  CHECK(l2.read(0, 0xfu, 10009) == 10009 + uint64_t(cfg.l2.hit_latency));
  // The share is held from the request's arrival (its tag lookup), not from its own path's
  // start: ten stores arriving at 20000 hold the write path to 20040 and the read path 2 cycles
  // each from 20000 on (to 20020), so a read arriving at 20000 starts at 20020, not behind the
  // stores' backlog (20038 if each share began with its store).
  L2 queue(cfg);
  queue.read(0, 0xfu, 0);
  for (int i = 0; i < 10; ++i) queue.write(0, 0xfu, 0xfu, 0xffffffffu, 20000);
  CHECK(queue.read(0, 0xfu, 20000) == 20020 + uint64_t(cfg.l2.hit_latency));
  // rw_share 1: one queue. A store after a read of 4 sectors waits for it.
  cfg.l2.rw_share = 1.0;
  L2 one(cfg);
  one.read(0, 0xfu, 0);
  CHECK(one.read(0, 0xfu, 10000) == 10000 + uint64_t(cfg.l2.hit_latency));
  CHECK(one.write(0, 0xfu, 0xfu, 0xffffffffu, 10000) == 10004 + half);
  CHECK(one.read(0, 0xfu, 10000) == 10008 + uint64_t(cfg.l2.hit_latency));
}

TEST_CASE("404 l2.full_write_sectors: a whole-sector store holds the write path that long") {
  GpuConfig cfg;
  cfg.l2.full_write_sectors = 1.5;
  L2 l2(cfg);
  // Two 4-sector whole stores at cycle 0: the first holds the write path 6 cycles.
  const uint64_t a = l2.write(10, 0xfu, 0xfu, 0xffffffffu, 0);
  CHECK(l2.write(10, 0xfu, 0xfu, 0xffffffffu, 0) == a + 6);
  // The memory-flow panel's store cost is the same function: 4 x 1.5, and 4 x 1.5 + 2 x 2 + 2
  // (request_sectors 1 paid twice once a sector is partial).
  cfg.l2.request_sectors = 1;
  CHECK(store_slice_sectors(cfg.l2, 4, 0) == doctest::Approx(7));
  CHECK(store_slice_sectors(cfg.l2, 4, 2) == doctest::Approx(12));
  // l2.partial_request_sectors in place of that: 4 x 1.5 + 2 x 2 + 1.75.
  cfg.l2.partial_request_sectors = 1.75;
  CHECK(store_slice_sectors(cfg.l2, 4, 2) == doctest::Approx(11.75));
  CHECK(store_slice_sectors(cfg.l2, 4, 0) == doctest::Approx(7));
  // In the slice: one partial sector (1.5) and its request (1.5) hold the write path 3 cycles.
  cfg.l2.partial_write_sectors = 1.5;
  cfg.l2.partial_request_sectors = 1.5;
  L2 p(cfg);
  const uint64_t s0 = p.write(10, 0x1u, 0x0u, 0x1u, 0);
  CHECK(p.write(10, 0x1u, 0x1u, 0xffu, 0) == s0 + 3);
}

TEST_CASE("404 l2.dirty_ways: a set past its dirty ways writes its oldest dirty line back") {
  GpuConfig cfg;
  cfg.l2.slices = 1;
  cfg.l2.size_bytes = 8 * 128;  // 8 lines, 4 ways: 2 sets (even lines in set 0)
  cfg.l2.assoc = 4;
  cfg.l2.dirty_ways = 2;
  L2 l2(cfg);
  l2.write(0, 0xfu, 0xfu, 0xffffffffu, 0);
  l2.write(2, 0x3u, 0x3u, 0xffffu, 10);
  l2.write(1, 0xfu, 0xfu, 0xffffffffu, 20);  // set 1: no effect on set 0
  CHECK(l2.counters().writebacks == 0);
  l2.write(4, 0xfu, 0xfu, 0xffffffffu, 30);  // 3 dirty in set 0: line 0 (dirty first) goes
  CHECK(l2.counters().writebacks == 4);
  CHECK(l2.dram().bytes_written() == 4 * 32);
  // Line 0 stayed (clean): reading it is a hit, writing it again makes line 2 the oldest.
  int dram = -1;
  l2.read(0, 0xfu, 40, &dram);
  CHECK(dram == 0);
  l2.write(0, 0x1u, 0x1u, 0xffu, 50);
  CHECK(l2.counters().writebacks == 6);  // line 2's two sectors
  CHECK(l2.dram().bytes_written() == 6 * 32);
}

TEST_CASE("404 the L2 fabric: each direction of the link between the partitions is one queue") {
  // 64 bytes a cycle each way: a 4-sector crossing (128 B) holds its direction 2 cycles.
  L2Fabric link(64);
  CHECK(link.cross(0, 128, 100) == 102);
  CHECK(link.cross(0, 128, 100) == 104);  // behind the first
  CHECK(link.cross(1, 128, 100) == 102);  // the other direction is free
  CHECK(link.cross(0, 32, 110) == 111);   // the queue emptied at 104: starts at once (0.5 cycle)
  link.begin_launch();
  CHECK(link.cross(0, 128, 0) == 2);
  L2Fabric none;  // 0: no link, nothing waits
  CHECK(!none.enabled());
  CHECK(none.cross(0, 4096, 7) == 7);
  // Half of the lines are far, for consecutive lines and for strides.
  for (uint64_t stride : {1ull, 4ull, 32ull, 125ull, 4096ull}) {
    int far = 0;
    for (uint64_t i = 0; i < 4096; ++i) far += L2Fabric::far(i * stride);
    CHECK(far > 4096 * 45 / 100);
    CHECK(far < 4096 * 55 / 100);
  }
}

TEST_CASE("404 l2.fabric_bytes_per_cycle: a far line's stores and read misses wait for the link") {
  GpuConfig cfg;
  cfg.l2.sectors_per_cycle_per_slice = 1000;  // the slice takes no time: only the link queues
  uint64_t far = 0, near = 0;
  while (!L2Fabric::far(far)) ++far;
  while (L2Fabric::far(near)) ++near;
  const uint64_t half = uint64_t(cfg.l2.hit_latency / 2);
  // Stores: 64 B a cycle; two whole-line stores of a far line at 1000 cross at 1000-1002 and
  // 1002-1004, then start in the slice. A near line's store (first: it may share their slice)
  // does not cross.
  cfg.l2.fabric_bytes_per_cycle = 64;
  {
    L2 l2(cfg);
    CHECK(l2.write(near, 0xfu, 0xfu, 0xffffffffu, 1000) == 1000 + half);
    CHECK(l2.write(far, 0xfu, 0xfu, 0xffffffffu, 1000) == 1002 + half);
    CHECK(l2.write(far, 0xfu, 0xfu, 0xffffffffu, 1000) == 1004 + half);
  }
  // Read misses: the link and DRAM work at once; the data is back when both are done. With the
  // link as fast as above a cold far read takes what it takes without a link; at 0.25 B a cycle
  // its 128 bytes cross in 512 cycles, longer than DRAM: back at 512 + hit_latency. A hit on
  // the far line later does not cross (the near partition holds it), nor does a near miss.
  GpuConfig off = cfg;
  off.l2.fabric_bytes_per_cycle = 0;
  L2 plain(off);
  const uint64_t dram_far = plain.read(far, 0xfu, 0), dram_near = plain.read(near, 0xfu, 0);
  CHECK(dram_far < 512 + uint64_t(cfg.l2.hit_latency));
  {
    L2 fast(cfg);
    CHECK(fast.read(far, 0xfu, 0) == dram_far);
  }
  cfg.l2.fabric_bytes_per_cycle = 0.25;
  L2 slow(cfg);
  CHECK(slow.read(far, 0xfu, 0) == 512 + uint64_t(cfg.l2.hit_latency));
  CHECK(slow.read(near, 0xfu, 0) == dram_near);
  CHECK(slow.read(far, 0xfu, 5000) == 5000 + uint64_t(cfg.l2.hit_latency));
}

namespace {
// A parallel cycle's turn as an SM sees it (parallel_loop.h): before its turn, or after.
struct FakeTurn final : TurnGate {
  bool before = true;
  int waits = 0;
  std::function<void()> on_turn;  // what taking the turn hands over (ParallelTicks: flush_l2)
  void wait_turn() override {
    ++waits;
    const bool first = before;
    before = false;
    if (first && on_turn) on_turn();
  }
  bool before_turn() const override { return before; }
  // Functional device touches (touch_log.h) are not logged here: they take the turn.
  bool before_touch() override {
    wait_turn();
    return false;
  }
  void touched(const warplab::func::StepInfo&) override {}
};
}  // namespace

TEST_CASE("404 stores held back before the SM's turn: the same answers and L2 state as at once") {
  GpuConfig cfg;
  // At once: two SMs' stores to the same lines, the second SM's after the first's (the loop's
  // order), waiting behind them at the slices.
  L2 now_l2(cfg);
  L1Tex a0(cfg, now_l2), a1(cfg, now_l2);
  uint64_t now_drain[2] = {0, 0};
  for (int i = 0; i < 8; ++i)
    a0.store(warp_line(0x400000 + 128 * i), false, 100, nullptr, &now_drain[0]);
  for (int i = 0; i < 8; ++i)
    a1.store(warp_line(0x400000 + 128 * i), false, 100, nullptr, &now_drain[1]);
  // Held: SM 0 stores before its turn (nothing reaches the L2, its drain stays), SM 1 takes
  // the turn first (the loop hands SM 0's stores over then), then stores at once.
  L2 held_l2(cfg);
  FakeTurn turn;
  held_l2.set_gate(&turn);
  L1Tex b0(cfg, held_l2), b1(cfg, held_l2);
  uint64_t held_drain[2] = {0, 0};
  // Each returns, and raises the drain to, the answer's floor: its t-stage cycle (a line a
  // cycle) plus half the L2 hit latency (L2::write_floor).
  const uint64_t floor = uint64_t(cfg.l2.hit_latency / 2);
  for (int i = 0; i < 8; ++i)
    CHECK(b0.store(warp_line(0x400000 + 128 * i), false, 100, nullptr, &held_drain[0]) ==
          100 + i + floor);
  CHECK(held_drain[0] == 107 + floor);
  CHECK(held_l2.counters().write_sectors == 0);
  CHECK(turn.waits == 0);
  turn.before = false;
  b0.flush_l2();
  for (int i = 0; i < 8; ++i)
    b1.store(warp_line(0x400000 + 128 * i), false, 100, nullptr, &held_drain[1]);
  CHECK(held_drain[0] == now_drain[0]);
  CHECK(held_drain[1] == now_drain[1]);
  CHECK(held_drain[1] > held_drain[0]);
  CHECK(held_l2.counters().write_sectors == now_l2.counters().write_sectors);
  CHECK(held_l2.dram().bytes_written() == now_l2.dram().bytes_written());
}

namespace {
// A warp's load of 4 bytes a lane: lanes 0-15 from line `a`, lanes 16-31 from line `b`.
CoalescedAccess two_lines(uint64_t a, uint64_t b) {
  std::array<uint64_t, 32> addr{};
  for (int l = 0; l < 32; ++l) addr[l] = (l < 16 ? a : b) + 4 * (l % 16);
  CoalescedAccess c;
  coalesce(addr, 0xffffffffu, 4, 128, 32, c);
  return c;
}
}  // namespace

TEST_CASE("404 loads held back before the SM's turn: the same answers and L1/L2 state as at once") {
  GpuConfig cfg;
  // One SM's loads in one cycle (100): a cold miss, a load of the same sectors (merged with the
  // fill on its way), a strong load (served by the L2 whatever the L1 holds), and a load of the
  // first line and a new one; then another SM's load of the new line (the loop's order: after).
  auto loads = [](L1Tex& l1, bool hold, uint64_t* out) {
    out[0] = l1.load(warp_line(0x500000), false, 100, nullptr, false, hold);
    out[1] = l1.load(warp_line(0x500000), false, 100, nullptr, false, hold);
    out[2] = l1.load(warp_line(0x500080), false, 100, nullptr, true, hold);
    out[3] = l1.load(two_lines(0x500000, 0x600000), false, 100, nullptr, false, hold);
  };
  L2 now_l2(cfg);
  L1Tex a0(cfg, now_l2), a1(cfg, now_l2);
  uint64_t at_once[4];
  loads(a0, true, at_once);  // no gate: asked at once whatever may_hold says
  const uint64_t other_at_once = a1.load(warp_line(0x600000), false, 100);
  CHECK(at_once[1] == at_once[0]);  // the merged load waits for the same fill
  CHECK(at_once[0] > 100 + uint64_t(cfg.l2.hit_latency));  // cold: from DRAM
  // Held: SM 0's misses wait for its turn; SM 1 takes the turn first (handing SM 0's misses to
  // the L2), then asks at once.
  L2 held_l2(cfg);
  FakeTurn turn;
  held_l2.set_gate(&turn);
  L1Tex b0(cfg, held_l2), b1(cfg, held_l2);
  uint64_t held[4];
  loads(b0, true, held);
  for (const uint64_t h : held) CHECK(L2Queue::is_held(h));  // each waits for a held miss
  CHECK(held_l2.counters().read_sector_misses + held_l2.counters().read_sector_hits == 0);
  CHECK(b0.queue_counts().held_reads == 3);  // lines 0x500000, 0x500080 (strong), 0x600000
  CHECK(turn.waits == 0);
  turn.before = false;
  b0.flush_l2();
  for (int i = 0; i < 4; ++i) CHECK(b0.held_answer(held[i]) == at_once[i]);
  CHECK(b1.load(warp_line(0x600000), false, 100) == other_at_once);
  CHECK(held_l2.counters().read_sector_hits == now_l2.counters().read_sector_hits);
  CHECK(held_l2.counters().read_sector_misses == now_l2.counters().read_sector_misses);
  CHECK(held_l2.dram().bytes_read() == now_l2.dram().bytes_read());
  // The L1's fills are the answers: once back, a load hits at exactly the L1 latency.
  const uint64_t later = std::max(at_once[3], other_at_once) + 10;
  CHECK(b0.load(warp_line(0x500000), false, later) == later + uint64_t(cfg.l1.hit_latency));
  CHECK(b0.load(two_lines(0x500000, 0x600000), false, later + 100) ==
        a0.load(two_lines(0x500000, 0x600000), false, later + 100));
  CHECK(b0.counters().global_ld_sector_hits == a0.counters().global_ld_sector_hits + 4);
}

TEST_CASE("404 a full MSHR queue with held misses: its earliest return exact, at once or in turn") {
  GpuConfig cfg;
  cfg.l1.miss_lines_in_flight = 4;
  // Only held misses in flight: the earliest return is one of theirs, so the SM takes its turn
  // (which hands them over) before it answers.
  L2 now_l2(cfg), held_l2(cfg);
  L1Tex c(cfg, now_l2), d(cfg, held_l2);
  FakeTurn turn;
  held_l2.set_gate(&turn);
  turn.on_turn = [&d] { d.flush_l2(); };
  uint64_t now_wake = 0, held_wake = 0;
  for (int i = 0; i < 4; ++i) {
    c.load(warp_line(0x800000 + 4096 * i), false, 100);
    const uint64_t held = d.load(warp_line(0x800000 + 4096 * i), false, 100, nullptr, false, true);
    CHECK(L2Queue::is_held(held));
  }
  CHECK(!c.can_accept_global(100, now_wake));
  CHECK(turn.waits == 0);
  CHECK(!d.can_accept_global(100, held_wake));
  CHECK(!turn.before);  // it took the turn
  CHECK(held_wake == now_wake);
  // Misses known to come back before any held one can (L2 hits asked at 2000, a held miss at
  // 2100: back at 2100 + the L2 hit latency at the earliest): answered at once, no turn.
  L2 now2(cfg), held2(cfg);
  FakeTurn turn2;
  turn2.before = false;
  held2.set_gate(&turn2);
  L1Tex warm_now(cfg, now2), warm_held(cfg, held2), e(cfg, now2), f(cfg, held2);
  turn2.on_turn = [&f] { f.flush_l2(); };
  for (int i = 0; i < 3; ++i) {
    warm_now.load(warp_line(0x900000 + 4096 * i), false, 0);  // the lines into the L2
    warm_held.load(warp_line(0x900000 + 4096 * i), false, 0);
  }
  for (int i = 0; i < 3; ++i) {
    e.load(warp_line(0x900000 + 4096 * i), false, 2000);
    f.load(warp_line(0x900000 + 4096 * i), false, 2000, nullptr, false, true);
  }
  turn2.before = true;
  e.load(warp_line(0xA00000), false, 2100);
  CHECK(L2Queue::is_held(f.load(warp_line(0xA00000), false, 2100, nullptr, false, true)));
  CHECK(!e.can_accept_global(2100, now_wake));
  CHECK(!f.can_accept_global(2100, held_wake));
  CHECK(turn2.before);  // no turn taken
  CHECK(now_wake == 2000 + uint64_t(cfg.l2.hit_latency));  // the first L2 hit's return
  CHECK(held_wake == now_wake);
}
