#include "sim/timing/sm_subset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warplab::timing {

GpuConfig subset_config(const GpuConfig& config, int sms) {
  GpuConfig c = config;
  const double share = double(sms) / double(std::max<int64_t>(config.core.sm_count, 1));
  c.core.sm_count = sms;
  // The DRAM: fewer channels, each as wide as the GPU's (a transfer takes the GPU's time), the
  // bus's bits the subset's share (the rounding of the channels made up in their width).
  c.dram.channels = std::max<int64_t>(1, std::llround(double(config.dram.channels) * share));
  c.dram.bus_bits = std::max<int64_t>(1, std::llround(double(config.dram.bus_bits) * share));
  c.core.block_dispatch_interval /= share;  // the distributor's blocks per cycle, per SM, kept
  return c;
}

uint64_t subset_blocks(uint64_t total, int sms, int64_t sm_count) {
  const double n = double(total) * double(sms) / double(std::max<int64_t>(sm_count, 1));
  return std::clamp<uint64_t>(static_cast<uint64_t>(std::llround(n)), 1, total);
}

namespace {
uint64_t scaled(uint64_t v, double k) { return static_cast<uint64_t>(std::llround(double(v) * k)); }
void scale(WarpStateCycles& w, double k) {
  for (auto& v : w) v = scaled(v, k);
}
}  // namespace

void scale_subset(TimingResult& r, double k, int sms, uint64_t blocks,
                  const func::LaunchStats& stats, const GpuConfig& config) {
  const double share = double(sms) / double(std::max<int64_t>(config.core.sm_count, 1));
  const uint64_t subset_cycles = r.cycles;
  // Time: the subset's share of the work on its share of the GPU.
  r.cycles = scaled(r.cycles, k * share);
  r.config = config.name;
  // Counters: the subset's times the work ratio.
  scale(r.warp_states, k);
  for (auto& [line, w] : r.warp_states_by_ptx_line) scale(w, k);
  for (auto& [line, w] : r.warp_states_by_src_line) scale(w, k);
  MemoryCounters& l1 = r.memory.l1;
  for (uint64_t* v :
       {&l1.global_ld_requests, &l1.global_ld_sectors, &l1.global_ld_sector_hits,
        &l1.global_st_requests, &l1.global_st_sectors, &l1.local_requests, &l1.local_sectors,
        &l1.atomic_requests, &l1.line_lookups, &l1.shared_ld_requests, &l1.shared_st_requests,
        &l1.shared_ld_wavefronts, &l1.shared_st_wavefronts, &l1.shared_bank_conflicts})
    *v = scaled(*v, k);
  MemoryTable& m = r.memory;
  for (uint64_t* v : {&m.l2_read_sector_hits, &m.l2_read_sector_misses, &m.l2_write_sectors,
                      &m.l2_atomic_requests, &m.dram_bytes_read, &m.dram_bytes_written,
                      &m.dram_row_hits, &m.dram_activations})
    *v = scaled(*v, k);
  // Exact counts (functional); the times and rates derived from them. IPC per active SM and the
  // achieved occupancy are the subset's (its SMs are the GPU's, on their share).
  r.stats = stats;
  set_sampled_times(r, config.peak_dram_bytes_per_second(), config.core.launch_overhead_us);
  SamplingReport& s = r.sampling;
  s.requested = s.applied = s.within_wave = true;
  s.why_full.clear();
  s.subset_sms = sms;
  s.work_fraction = k > 0 ? std::min(1.0, 1 / k) : 1;
  s.blocks = stats.blocks;
  s.detailed_blocks = blocks;
  s.detailed_waves = 0;
  s.skipped_cycles = r.cycles > subset_cycles ? r.cycles - subset_cycles : 0;
  char line[512];
  std::snprintf(line, sizeof line,
                "SM sampling: %d of %lld SMs in detail, with the grid's first %llu blocks (their "
                "share) and the DRAM's bandwidth cut to that share, every wave, %llu "
                "cycles; the launch's cycles are those x %.3f (its work over theirs) x %d/%lld; "
                "%.2f%% of the warp instructions in detail; instruction counts and stores exact "
                "(functional), other counters scaled by the work ratio",
                sms, static_cast<long long>(config.core.sm_count),
                static_cast<unsigned long long>(blocks),
                static_cast<unsigned long long>(subset_cycles), k, sms,
                static_cast<long long>(config.core.sm_count), 100 * s.work_fraction);
  s.rate_method = line;
}

}  // namespace warplab::timing
