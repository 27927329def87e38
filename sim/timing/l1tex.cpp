// L1TEX: see l1tex.h.
#include "sim/timing/l1tex.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/common/bits.h"

namespace warplab::timing {

void MemoryCounters::add(const MemoryCounters& o) {
  global_ld_requests += o.global_ld_requests;
  global_ld_sectors += o.global_ld_sectors;
  global_ld_sector_hits += o.global_ld_sector_hits;
  global_st_requests += o.global_st_requests;
  global_st_sectors += o.global_st_sectors;
  local_requests += o.local_requests;
  local_sectors += o.local_sectors;
  atomic_requests += o.atomic_requests;
  line_lookups += o.line_lookups;
  shared_ld_requests += o.shared_ld_requests;
  shared_st_requests += o.shared_st_requests;
  shared_ld_wavefronts += o.shared_ld_wavefronts;
  shared_st_wavefronts += o.shared_st_wavefronts;
  shared_bank_conflicts += o.shared_bank_conflicts;
}

L1Tex::L1Tex(const GpuConfig& c, L2& l2)
    : config_(c),
      l2_(l2),
      l1_(c.l1.size_bytes / c.l1.line_bytes, static_cast<int>(c.l1.assoc),
          static_cast<int>(c.l1.line_bytes / c.l1.sector_bytes), c.l1.replacement) {}

bool L1Tex::can_accept_global(uint64_t now, uint64_t& wake) {
  // 1. Retire misses that have returned.
  while (!misses_.empty() && misses_.top() <= now) misses_.pop();
  // 2. LSU queue: lines waiting for the t-stage.
  const double backlog = (tag_free_ - double(now)) * config_.l1.tag_lookups_per_cycle;
  if (backlog > double(config_.l1.lsu_queue)) {
    wake = now + static_cast<uint64_t>(std::ceil((backlog - config_.l1.lsu_queue) /
                                                 config_.l1.tag_lookups_per_cycle));
    return false;
  }
  // 3. MSHRs (misses held to the cycle's end count: l2_queue.h). The earliest return is known
  //    unless a held miss may come back before every known one: the SM then takes its turn,
  //    whose flush brings the held answers in.
  if (static_cast<int64_t>(misses_.size() + held_misses_.size()) >=
      config_.l1.miss_lines_in_flight) {
    if (!held_misses_.empty() && (misses_.empty() || misses_.top() > held_floor_))
      l2_.gate()->wait_turn();
    wake = misses_.top();
    return false;
  }
  // 4. The store path's queue (one queue in order: a load waits behind the stores too).
  const double rate = config_.l1.store_sectors_per_cycle;
  if (rate > 0 && config_.l1.store_queue_sectors > 0) {
    const double queued = (store_free_ - double(now)) * rate;
    if (queued > double(config_.l1.store_queue_sectors)) {
      wake = now + static_cast<uint64_t>(
                       std::ceil((queued - double(config_.l1.store_queue_sectors)) / rate));
      return false;
    }
  }
  return true;
}

uint64_t L1Tex::fence_cycles(const L1Config& c, const ptx::Instruction& i) {
  using ptx::MemScope;
  const bool wide = i.mod.mem_scope == MemScope::Gpu || i.mod.mem_scope == MemScope::Sys;
  const bool sc = i.op == ptx::Opcode::Membar || i.mod.mem_sem == ptx::MemSem::Sc;
  const bool plain = !i.mod.proxy_async && !i.mod.mbarrier_init;
  return wide && sc && plain ? static_cast<uint64_t>(std::max<int64_t>(1, c.fence_sc_latency)) : 1;
}

uint64_t L1Tex::fence(const ptx::Instruction& i, uint64_t now) {
  const uint64_t cycles = fence_cycles(config_.l1, i);
  if (cycles <= 1) return now + cycles;
  // 1. The fence goes out behind the stores the SM has queued for the L2.
  uint64_t out = now;
  if (config_.l1.store_sectors_per_cycle > 0)
    out += static_cast<uint64_t>(std::ceil(std::max(0.0, store_free_ - double(now))));
  // 2. It ends fence_spacing after the SM's previous fence at the earliest, or with it when it
  // went out right behind it (out never decreases: time and store_free_ only grow).
  uint64_t end = out + cycles;
  if (config_.l1.fence_spacing > 0) {
    if (fenced_ && out < fence_out_ + static_cast<uint64_t>(config_.l1.fence_join_cycles)) {
      end = std::max(end, fence_end_);
    } else {
      if (fenced_)
        end = std::max(end, fence_end_ + static_cast<uint64_t>(config_.l1.fence_spacing));
      fence_out_ = out;
    }
    fenced_ = true;
    fence_end_ = std::max(fence_end_, end);
  }
  return end;
}

bool L1Tex::can_accept_shared(uint64_t now, uint64_t& wake) const {
  const double backlog = (shared_free_ - double(now)) * config_.shared.wavefronts_per_cycle;
  if (backlog > double(config_.shared.mio_queue)) {
    wake = now + static_cast<uint64_t>(std::ceil((backlog - config_.shared.mio_queue) /
                                                 config_.shared.wavefronts_per_cycle));
    return false;
  }
  return true;
}

uint64_t L1Tex::tag_stage(int lines, uint64_t now) {
  const double start = std::max(double(now), tag_free_);
  tag_free_ = start + double(lines) / config_.l1.tag_lookups_per_cycle;
  counters_.line_lookups += lines;
  return static_cast<uint64_t>(start);
}

namespace {
// Appends the trace's view of one line: every needed sector served from `source`, except those
// in `l1` (L1) and `dram` (DRAM).
void record_line(std::vector<AccessLine>* out, const LineRequest& r, uint64_t line_bytes,
                 SectorSource source, uint32_t l1 = 0, uint32_t dram = 0) {
  if (!out) return;
  AccessLine l;
  l.address = r.line * line_bytes;
  l.lane_mask = r.lane_mask;
  l.sector_mask = static_cast<uint8_t>(r.sector_mask);
  for (int s = 0; s < 4; ++s) {
    if (!(r.sector_mask >> s & 1u)) continue;
    const SectorSource src = (l1 >> s & 1u)     ? SectorSource::L1
                             : (dram >> s & 1u) ? SectorSource::Dram
                                                : source;
    l.sources |= static_cast<uint8_t>(static_cast<uint8_t>(src) << (2 * s));
  }
  out->push_back(l);
}
}  // namespace

uint64_t L1Tex::load(const CoalescedAccess& a, bool local, uint64_t now, AccessJourney* j,
                      bool strong, bool may_hold) {
  uint64_t ready = now;
  // Held (l2_queue.h): its misses wait for the flush. A load asked at once before the SM's turn
  // takes the turn first if misses are held (so no fill it hits is still a held answer).
  const bool hold = may_hold && L2Queue::holding(l2_) && l2_.read_floor(now) > now;
  if (!hold && !held_misses_.empty()) l2_.gate()->wait_turn();
  if (hold && loads_flushed_) loads_.clear(), loads_flushed_ = false;
  const uint32_t handle = static_cast<uint32_t>(loads_.size());
  bool waits = false;  // on a held miss
  if (local) {
    ++counters_.local_requests;
    counters_.local_sectors += a.sectors;
  } else {
    ++counters_.global_ld_requests;
    counters_.global_ld_sectors += a.sectors;
  }
  AccessJourney jr;
  jr.issue = now;
  std::vector<AccessLine>* lines_out = j ? j->lines_out : nullptr;
  for (int i = 0; i < a.line_count; ++i) {
    const LineRequest& r = a.lines[i];
    // 1. The t-stage resolves this line's tags (one line per cycle per lookup port).
    const uint64_t t = now + (tag_stage(1, now) - now);
    if (i == 0) jr.tag_stage = t;
    // 2. Hits return after the hit latency (or when a merged fill lands, if later).
    // A strong load asks the L2 for every sector and leaves the L1 as it is.
    CacheAccess c = strong ? CacheAccess{} : l1_.access(r.line, r.sector_mask, t, true);
    if (strong) c.miss_mask = r.sector_mask;
    const int hits = popc32(c.hit_mask);
    if (!local) counters_.global_ld_sector_hits += hits;
    jr.l1_hit_sectors += hits;
    uint64_t line_ready = t + config_.l1.hit_latency;
    if (c.hit_mask && L2Queue::is_held(c.ready_at)) {  // (only when holding: see above)
      for (uint32_t m = c.hit_mask; m; m &= m - 1) {   // a fill a held miss brings
        const uint64_t f = l1_.fill_at(c.way, std::countr_zero(m));
        if (L2Queue::is_held(f))
          held_waits_.push_back({handle, static_cast<uint32_t>(f - L2Queue::kHeld)}), waits = true;
        else
          line_ready = std::max(line_ready, f);
      }
    } else if (c.hit_mask && c.ready_at != SectoredCache::kPending) {
      line_ready = std::max(line_ready, c.ready_at);
    }
    // 3. Misses take an MSHR and go to the L2; the fill lands in the L1 when the data returns.
    //    Held: the fill time and the MSHR's return are its held answer till the flush.
    uint32_t from_dram = 0;
    if (c.miss_mask && hold) {
      const uint32_t miss = held_.hold_read(r.line, c.miss_mask, t);
      held_misses_.push_back({strong ? -1 : c.way, strong ? 0u : c.miss_mask});
      if (!strong) l1_.set_fill(c.way, c.miss_mask, L2Queue::kHeld + miss);
      held_floor_ = std::min(held_floor_, l2_.read_floor(t));
      held_waits_.push_back({handle, miss});
      waits = true;
      jr.l1_miss_sectors += popc32(c.miss_mask);  // (dram_sectors: the trace's alone)
    } else if (c.miss_mask) {
      int dram = 0;
      const uint64_t back = held_.read_now(l2_, r.line, c.miss_mask, t, &dram, &from_dram);
      if (!strong) l1_.set_fill(c.way, c.miss_mask, back);
      misses_.push(back);
      line_ready = std::max(line_ready, back);
      jr.l1_miss_sectors += popc32(c.miss_mask);
      jr.dram_sectors += dram;
    }
    record_line(lines_out, r, config_.l1.line_bytes, SectorSource::L2, c.hit_mask, from_dram);
    ready = std::max(ready, line_ready);
  }
  if (waits) {  // its answer: the known part and its misses' answers, at the flush
    loads_.push_back(ready);
    ready = L2Queue::kHeld + handle;
  }
  jr.lines = a.line_count;
  jr.sectors = a.sectors;
  jr.ready = ready;
  jr.lines_out = lines_out;
  if (j) *j = jr;
  return ready;
}

void L1Tex::fill_held() {
  for (uint32_t i = 0; i < held_misses_.size(); ++i) {
    const uint64_t back = held_.answer(i);
    misses_.push(back);
    l1_.resolve_fill(held_misses_[i].way, held_misses_[i].fill_mask, L2Queue::kHeld + i, back);
  }
  for (const auto& [load, miss] : held_waits_)
    loads_[load] = std::max(loads_[load], held_.answer(miss));
  held_misses_.clear();
  held_waits_.clear();
  held_floor_ = ~uint64_t{0};
  loads_flushed_ = true;
}

uint64_t L1Tex::store(const CoalescedAccess& a, bool local, uint64_t now, AccessJourney* j,
                      uint64_t* drain) {
  if (local) {
    ++counters_.local_requests;
    counters_.local_sectors += a.sectors;
  } else {
    ++counters_.global_st_requests;
    counters_.global_st_sectors += a.sectors;
  }
  uint64_t done = now;
  for (int i = 0; i < a.line_count; ++i) {
    const LineRequest& r = a.lines[i];
    // 1. t-stage; 2. write-through: drop stale L1 sectors; 3. the store path, one request after
    // another (l1.store_sectors_per_cycle); 4. write into the L2.
    uint64_t t = tag_stage(1, now);
    l1_.invalidate(r.line, r.sector_mask);
    if (const double rate = config_.l1.store_sectors_per_cycle; rate > 0) {
      const double start = std::max(double(t), store_free_);
      const int full = popc32(r.sector_mask & r.full_mask);
      const int part = popc32(r.sector_mask & ~r.full_mask);
      store_free_ = start + (full + part * config_.l1.store_partial_sectors) / rate;
      t = static_cast<uint64_t>(start);
    }
    done = std::max(done, drain ? held_.write(l2_, r.line, r.sector_mask, r.full_mask,
                                              r.word_mask, t, drain)
                                : l2_.write(r.line, r.sector_mask, r.full_mask, r.word_mask, t));
    if (j) record_line(j->lines_out, r, config_.l1.line_bytes, SectorSource::L2);
  }
  if (j) *j = AccessJourney{now, now, done, a.line_count, a.sectors, 0, 0, 0, j->lines_out};
  return done;
}

uint64_t L1Tex::atomic(const CoalescedAccess& a, const std::array<uint64_t, 32>& addr,
                       uint32_t exec_mask, uint64_t now, AccessJourney* j, bool float_add,
                       bool returns) {
  ++counters_.atomic_requests;
  uint64_t ready = now;
  for (int i = 0; i < a.line_count; ++i) {
    const LineRequest& r = a.lines[i];
    // Lanes on the same address are applied one after another by the L2 slice's ALU: per
    // sector, as many passes as its busiest word has lanes.
    std::array<int, 4> busiest{};
    uint64_t word = ~uint64_t{0};  // the line's busiest word
    int most = 0;
    for (uint32_t m = r.lane_mask & exec_mask; m; m &= m - 1) {
      const uint64_t x = addr[std::countr_zero(m)];
      int same = 0;
      for (uint32_t k = r.lane_mask & exec_mask; k; k &= k - 1)
        same += addr[std::countr_zero(k)] == x;
      int& b = busiest[(x / static_cast<uint64_t>(config_.l1.sector_bytes)) % busiest.size()];
      b = std::max(b, same);
      if (same > most) most = same, word = x;
    }
    int repeats = 0;
    for (int b : busiest) repeats += std::max(b - 1, 0);
    const uint64_t t = tag_stage(1, now);
    l1_.invalidate(r.line, r.sector_mask);
    ready = std::max(ready, l2_.atomic(r.line, r.sector_mask, repeats, t, word, float_add));
    if (j) record_line(j->lines_out, r, config_.l1.line_bytes, SectorSource::L2);
  }
  if (returns) ready += static_cast<uint64_t>(config_.l2.atomic_return_latency);
  if (j) *j = AccessJourney{now, now, ready, a.line_count, a.sectors, 0, 0, 0, j->lines_out};
  return ready;
}

uint64_t L1Tex::shared(const SharedAccessCost& cost, bool is_store, bool atomic, uint64_t now) {
  if (is_store) {
    ++counters_.shared_st_requests;
    counters_.shared_st_wavefronts += cost.wavefronts;
  } else {
    ++counters_.shared_ld_requests;
    counters_.shared_ld_wavefronts += cost.wavefronts;
  }
  if (!atomic) counters_.shared_bank_conflicts += cost.bank_conflicts();
  // One wavefront per cycle through the banks (ldmatrix: its pipe_cycles); the data is usable
  // after the last one.
  const double start = std::max(double(now), shared_free_);
  if (cost.pipe_cycles > 0) {
    shared_free_ = start + cost.pipe_cycles;
    return static_cast<uint64_t>(start) + config_.shared.latency +
           static_cast<uint64_t>(std::ceil(cost.pipe_cycles)) - 1;
  }
  shared_free_ = start + double(std::max(cost.wavefronts, 1)) / config_.shared.wavefronts_per_cycle;
  return static_cast<uint64_t>(start) + config_.shared.latency + std::max(cost.wavefronts, 1) - 1;
}

}  // namespace warplab::timing
