// L2 cache: see l2.h.
#include "sim/timing/l2.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "sim/common/bits.h"

namespace warplab::timing {

L2::L2(const GpuConfig& c)
    : config_(c),
      slice_free_(c.l2.slices, 0.0),
      write_free_(c.l2.slices, 0.0),
      // One unit per slice unless atomic_units is between 1 and slices - 1 (unit_of_ below).
      unit_free_(c.l2.atomic_units <= 0 || c.l2.atomic_units >= c.l2.slices
                     ? std::max<int64_t>(c.l2.slices, 1)
                     : c.l2.atomic_units,
                 0.0),
      unit_word_(unit_free_.size(), ~uint64_t{0}),
      atomic_free_(c.l2.slices, 0.0),
      slice_word_(c.l2.slices, ~uint64_t{0}),
      dram_(c),
      fabric_(c.l2.fabric_bytes_per_cycle),
      line_bytes_(static_cast<uint32_t>(c.l1.line_bytes)),
      sector_bytes_(static_cast<uint32_t>(c.l1.sector_bytes)),
      lines_per_chunk_log2_(
          std::countr_zero(static_cast<uint64_t>(c.l2.slice_bytes / c.l1.line_bytes))) {
  const uint64_t lines_per_slice = c.l2.size_bytes / c.l1.line_bytes / c.l2.slices;
  slices_.reserve(c.l2.slices);
  for (int64_t i = 0; i < c.l2.slices; ++i)
    slices_.emplace_back(lines_per_slice, static_cast<int>(c.l2.assoc),
                         static_cast<int>(c.l1.line_bytes / c.l1.sector_bytes), c.l2.replacement);
  // slices / units slices share a unit. Which ones: a fixed permutation of the slice numbers
  // (times the largest odd number below slices / 2 that is coprime with slices: 47 of 96),
  // then runs of slices / units. It stands for the GPU's unpublished address hash, and it gives
  // what the placement microbenchmark measured on the H100 for one hot line against 8 and 64
  // (scripts/microbench/h100-placement-2026-11-24.tsv, k=32): 8 lines 128 B / 512 B / 4 KiB /
  // 64 KiB apart run 2.0 / 4.0 / 8.0 / 8.0x one line's rate (measured 1.9 / 4.1 / 7.7 / 7.8x),
  // 64 lines 8.0 / 21.3 / 21.3 / 21.3x (measured 11.4 / 21.6 / 30.9 / 18.9x); one warp per
  // address over 32768 consecutive words, 28x (measured about 27x).
  const int64_t slices = c.l2.slices, units = c.l2.atomic_units;
  int64_t m = (slices / 2) | 1;
  while (m > 1 && (m >= slices / 2 || std::gcd(m, slices) != 1)) m -= 2;
  for (int64_t i = 0; i < slices; ++i)
    unit_of_.push_back(units <= 0 || units >= slices
                           ? static_cast<int>(i)
                           : static_cast<int>(i * m % slices / (slices / units)));
}

void L2::begin_launch() {
  std::fill(slice_free_.begin(), slice_free_.end(), 0.0);
  std::fill(write_free_.begin(), write_free_.end(), 0.0);
  std::fill(unit_free_.begin(), unit_free_.end(), 0.0);
  std::fill(unit_word_.begin(), unit_word_.end(), ~uint64_t{0});
  std::fill(atomic_free_.begin(), atomic_free_.end(), 0.0);
  std::fill(slice_word_.begin(), slice_word_.end(), ~uint64_t{0});
  word_free_.clear();
  for (auto& s : slices_) s.clear_fill_times();
  dram_.begin_launch();
  fabric_.begin_launch();
  counters_ = L2Counters{};
}

uint32_t L2::fetch_groups(uint32_t sector_mask) const {
  const int sectors = static_cast<int>(line_bytes_ / sector_bytes_);
  const int g = static_cast<int>(config_.l2.fetch_bytes / sector_bytes_);
  if (g <= 1) return sector_mask;
  const uint32_t group = (1u << g) - 1;
  uint32_t m = sector_mask;
  for (int s = 0; s < sectors; s += g)
    if (sector_mask & (group << s)) m |= group << s;
  return m;
}

int L2::slice_of(uint64_t line) const {
  // Lines of one slice_bytes chunk share a slice; a hash of the chunk number spreads chunks.
  const uint64_t chunk = line >> lines_per_chunk_log2_;
  const uint64_t h = chunk ^ (chunk >> 6) ^ (chunk >> 12) ^ (chunk >> 18);
  return static_cast<int>(h % slices_.size());
}

double store_slice_sectors(const L2Config& l2, int full, int part) {
  const double partial_request = l2.partial_request_sectors >= 0
                                     ? l2.partial_request_sectors
                                     : l2.request_sectors * l2.partial_write_sectors;
  return full * l2.full_write_sectors + part * l2.partial_write_sectors +
         (part > 0 ? partial_request : l2.request_sectors);
}

uint64_t L2::occupy(int slice, double sectors, uint64_t now, bool write_path) {
  double& free = write_path ? write_free_[slice] : slice_free_[slice];
  double& other = write_path ? slice_free_[slice] : write_free_[slice];
  const double start = std::max(double(now), free);
  const double held = sectors / config_.l2.sectors_per_cycle_per_slice;
  free = start + held;
  // The tag stage both paths share: the other path is held for rw_share of this access's time,
  // from its arrival (the lookup precedes its own path's queue).
  if (config_.l2.rw_share > 0) other = std::max(other, double(now)) + config_.l2.rw_share * held;
  return static_cast<uint64_t>(start);
}

void L2::write_back(const CacheAccess& a, uint64_t now) {
  if (!a.evicted || !a.evicted_dirty) return;
  const int n = popc32(a.evicted_dirty);
  counters_.writebacks += n;
  // Sectors holding only part of their bytes: DRAM reads the rest first (read-modify-write).
  const int p = popc32(a.evicted_partial);
  counters_.partial_writebacks += p;
  dram_.write_merging(a.evicted_line * line_bytes_, n * sector_bytes_, p * sector_bytes_, now);
}

uint64_t L2::read(uint64_t line, uint32_t sector_mask, uint64_t now, int* dram_sectors,
                  uint32_t* from_dram) {
  if (gate_) gate_->wait_turn();
  const int slice = slice_of(line);
  // 1. Queue at the slice for its sector rate.
  const uint64_t start = occupy(slice, popc32(sector_mask) + config_.l2.request_sectors, now);
  // 2. Tag lookup of the requested sectors widened to whole fetch groups: hits (possibly waiting
  //    for an earlier fill), misses allocate.
  const uint32_t fetch = fetch_groups(sector_mask);
  CacheAccess a = slices_[slice].access(line, fetch, start, true);
  write_back(a, start);
  // Sectors a partial store left holding only its bytes: the rest comes from DRAM.
  if (const uint32_t part = a.way >= 0 ? slices_[slice].partial(a.way) & a.hit_mask & fetch : 0) {
    a.hit_mask &= ~part;
    a.pending_mask &= ~part;
    a.miss_mask |= part;
    slices_[slice].clear_partial(a.way, part);
  }
  // ncu's convention: a sector whose fill is still in flight is a hit (its tag is there); only
  // the request that sends a sector to DRAM misses (scripts/microbench/L2-JOIN-2026-11-27.md).
  counters_.read_sector_hits += popc32(a.hit_mask & sector_mask);
  counters_.read_sector_misses += popc32(a.miss_mask & sector_mask);
  uint64_t ready = read_floor(start);
  if (a.hit_mask)
    ready = std::max(ready, a.ready_at == SectoredCache::kPending ? ready : a.ready_at);
  // 3. Misses go to DRAM; the sectors' fill time is when DRAM data reaches the SM.
  if (a.miss_mask) {
    const int bytes = popc32(a.miss_mask) * static_cast<int>(sector_bytes_);
    uint64_t back = dram_.read(line * line_bytes_, bytes, start);
    // A far line's data crosses from its home partition to the near one (l2_fabric.h). Its
    // place in the link's queue is booked now, in arrival order; DRAM and the link work
    // meanwhile, so the data is back when both are done.
    if (fabric_.enabled() && L2Fabric::far(line))
      back = std::max(back, fabric_.cross(1 - slice % 2, bytes, start));
    const uint64_t fill = back + config_.l2.hit_latency;
    slices_[slice].set_fill(a.way, a.miss_mask, fill);
    ready = std::max(ready, fill);
  }
  if (dram_sectors) *dram_sectors = popc32(a.miss_mask);
  if (from_dram) *from_dram = (a.miss_mask | a.pending_mask) & sector_mask;
  return ready;
}

uint64_t L2::write(uint64_t line, uint32_t sector_mask, uint32_t full_mask, uint32_t word_mask,
                   uint64_t now) {
  if (gate_) gate_->wait_turn();
  const int slice = slice_of(line);
  const int full = popc32(sector_mask & full_mask);
  const int part = popc32(sector_mask & ~full_mask);
  // A far line's store crosses to its home partition first (l2_fabric.h).
  if (fabric_.enabled() && L2Fabric::far(line))
    now = fabric_.cross(slice % 2, popc32(sector_mask) * sector_bytes_, now);
  const uint64_t start = occupy(slice, store_slice_sectors(config_.l2, full, part), now, true);
  CacheAccess a = slices_[slice].access(line, sector_mask, start, true);
  write_back(a, start);
  // Write-allocate without fetch: the stored sectors are valid and dirty from now; a partly
  // written sector that missed holds only the new bytes.
  slices_[slice].set_fill(a.way, a.miss_mask, start);
  slices_[slice].mark_dirty(a.way, sector_mask);
  slices_[slice].clear_partial(a.way, sector_mask & full_mask);
  slices_[slice].mark_partial(a.way, a.miss_mask & ~full_mask);
  slices_[slice].add_written(a.way, word_mask);
  // A set past l2.dirty_ways dirty lines writes its oldest dirty line back now.
  if (config_.l2.dirty_ways > 0)
    write_back(slices_[slice].clean_oldest_dirty(a.way, static_cast<int>(config_.l2.dirty_ways)),
               start);
  counters_.write_sectors += popc32(sector_mask);
  return write_floor(start);  // a store is complete in the L2 half a hit latency after it starts
}

uint64_t L2::write_floor(uint64_t now) const {
  // write() answers write_floor(start) with start >= now: the earliest answer for a store at now.
  return now + static_cast<uint64_t>(config_.l2.hit_latency / 2);
}

uint64_t L2::read_floor(uint64_t now) const {
  // read() answers at least read_floor(start), start >= now (a hit: the slice's lookup, then the
  // hit latency; DRAM and the fabric only add).
  return now + static_cast<uint64_t>(config_.l2.hit_latency);
}

bool L2::pooled() const {
  return config_.l2.atomic_pool != 0 && config_.l2.atomic_units > 0 &&
         config_.l2.atomic_units < static_cast<int64_t>(slices_.size());
}

double L2::atomic_begin(int slice, int sectors, double busy, uint64_t now, int* chain) {
  const double spc = config_.l2.sectors_per_cycle_per_slice;
  // One unit per slice: the slice serves nothing else while its unit works.
  if (config_.l2.atomic_units <= 0 ||
      config_.l2.atomic_units >= static_cast<int64_t>(slices_.size())) {
    *chain = slice;
    return static_cast<double>(occupy(slice, busy * spc, now));
  }
  // A pool (atomic_pool): the slice's own atomic path takes one request at a time, in order, and
  // the request needs one of the GPU's atomic_units too. Of the units free by the time its slice
  // is ready, it takes the one freed last (the best fit: units free earlier stay for requests
  // that are ready earlier); if none is, the one that frees first (the lowest numbered of equals).
  // The slice's tags are held for its sectors only.
  if (pooled()) {
    *chain = slice;
    const double ready = std::max({double(now), slice_free_[slice], atomic_free_[slice]});
    auto unit = unit_free_.end();
    for (auto u = unit_free_.begin(); u != unit_free_.end(); ++u)
      if (*u <= ready && (unit == unit_free_.end() || *u > *unit)) unit = u;
    if (unit == unit_free_.end()) unit = std::min_element(unit_free_.begin(), unit_free_.end());
    const double begin = std::max(ready, *unit);
    slice_free_[slice] = begin + sectors / spc;
    atomic_free_[slice] = begin + busy;
    *unit = begin + busy;
    return begin;
  }
  // A unit shared by slices / atomic_units slices: it holds only itself, the slice its sectors.
  const int unit = unit_of_[slice];
  *chain = unit;
  const double begin = std::max({double(now), unit_free_[unit], slice_free_[slice]});
  slice_free_[slice] = begin + sectors / spc;
  unit_free_[unit] = begin + busy;
  return begin;
}

uint64_t L2::atomic(uint64_t line, uint32_t sector_mask, int repeats, uint64_t now,
                    uint64_t word, bool float_add) {
  if (gate_) gate_->wait_turn();
  const int slice = slice_of(line);
  ++counters_.atomic_requests;
  // The slice's atomic unit works through the request's sectors one after another, each sector
  // in one pass for all its words, plus one more pass for each further lane on one word (the
  // sector's busiest word sets its passes). With one unit per slice the slice serves nothing
  // else meanwhile; a unit shared by several slices holds only itself, and the slice its
  // sectors' time.
  // An integer request whose word the unit's previous request updated waits for that update
  // first. A floating-point add goes through the unit's adder one lane at a time on its word
  // (below); the unit itself is held as for integers.
  const double lane = config_.l2.atomic_lane_cycles;
  const int sectors = popc32(sector_mask);
  double busy = sectors * config_.l2.atomic_sector_cycles + repeats * lane;
  int chain = 0;
  // The word this unit (or slice) updated last: known before the start, so the wait for it is
  // part of the request's time.
  const bool pool = pooled();
  const int previous_chain = pool ? slice : unit_of_[slice];
  std::vector<uint64_t>& last_word = pool ? slice_word_ : unit_word_;
  if (!float_add && word != ~uint64_t{0} && word == last_word[previous_chain])
    busy = std::max(busy, (repeats + 1) * lane);
  const uint64_t start = static_cast<uint64_t>(atomic_begin(slice, sectors, busy, now, &chain));
  last_word[chain] = float_add ? ~uint64_t{0} : word;
  CacheAccess a = slices_[slice].access(line, sector_mask, start, true);
  write_back(a, start);
  uint64_t ready =
      start + config_.l2.hit_latency + config_.l2.atomic_latency + static_cast<uint64_t>(busy);
  if (a.hit_mask && a.ready_at != SectoredCache::kPending)
    ready = std::max(ready, a.ready_at + config_.l2.atomic_latency);
  if (a.miss_mask) {
    const uint64_t back =
        dram_.read(line * line_bytes_, popc32(a.miss_mask) * sector_bytes_, start);
    slices_[slice].set_fill(a.way, a.miss_mask, back);
    ready = std::max(ready, back + config_.l2.hit_latency + config_.l2.atomic_latency);
  }
  // A floating-point add: the adder updates one word one lane after another,
  // atomic_float_lane_cycles each, after the word's previous update; the adder is pipelined
  // over words, so other words' updates go on meanwhile.
  if (float_add && word != ~uint64_t{0}) {
    double& free = word_free_[word];
    free = std::max(double(start), free) + (repeats + 1) * config_.l2.atomic_float_lane_cycles;
    ready = std::max(
        ready, static_cast<uint64_t>(free) + config_.l2.hit_latency + config_.l2.atomic_latency);
  }
  slices_[slice].mark_dirty(a.way, sector_mask);
  return ready;
}

// Sampled simulation: the state changes of read/write/atomic above, without their time.
int L2::replay(uint64_t line, uint32_t sector_mask, uint32_t full_mask, uint32_t word_mask,
               Replay kind) {
  SectoredCache& slice = slices_[slice_of(line)];
  const uint32_t mask = kind == Replay::Read ? fetch_groups(sector_mask) : sector_mask;
  const CacheAccess a = slice.access(line, mask, 0, true);
  slice.set_fill(a.way, a.miss_mask, 0);  // present, long filled
  if (kind == Replay::Read) {
    // A partly written sector that is read is fetched and merged: whole again.
    if (const uint32_t part = slice.partial(a.way) & mask) slice.clear_partial(a.way, part);
  } else {
    slice.mark_dirty(a.way, sector_mask);
    if (kind == Replay::Store) {
      slice.clear_partial(a.way, sector_mask & full_mask);
      slice.mark_partial(a.way, a.miss_mask & ~full_mask);
      slice.add_written(a.way, word_mask);
    }
  }
  int written = a.evicted ? popc32(a.evicted_dirty) : 0;
  if (kind == Replay::Store && config_.l2.dirty_ways > 0) {
    const CacheAccess c = slice.clean_oldest_dirty(a.way, static_cast<int>(config_.l2.dirty_ways));
    if (c.evicted) written += popc32(c.evicted_dirty);
  }
  return written;
}

}  // namespace warplab::timing
