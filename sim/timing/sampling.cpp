// Sampled simulation: see sampling.h.
#include "sim/timing/sampling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/timing/gpu_model.h"
#include "sim/timing/l2.h"
#include "sim/timing/sm.h"

namespace warplab::timing {

namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// Where snapshot() puts each counter in WaveCounters::values.
constexpr size_t kStates = 0;                      // kWarpStateCount warp states
constexpr size_t kL1 = kStates + kWarpStateCount;  // MemoryCounters, field order
constexpr size_t kL1Count = 14;
constexpr size_t kL2 = kL1 + kL1Count;  // read hits, misses, writes, atomics
constexpr size_t kDram = kL2 + 4;       // read, written, row hits, activations
constexpr size_t kSm = kDram + 4;       // active cycles, resident warp-cycles
constexpr size_t kWork = kSm + 2;       // warp instructions (compared, never extrapolated: exact)
constexpr size_t kValues = kWork + 1;

// The L1 counters in a fixed order, to read and to add back.
std::array<uint64_t*, kL1Count> l1_fields(MemoryCounters& c) {
  return {&c.global_ld_requests,   &c.global_ld_sectors,    &c.global_ld_sector_hits,
          &c.global_st_requests,   &c.global_st_sectors,    &c.local_requests,
          &c.local_sectors,        &c.atomic_requests,      &c.line_lookups,
          &c.shared_ld_requests,   &c.shared_st_requests,   &c.shared_ld_wavefronts,
          &c.shared_st_wavefronts, &c.shared_bank_conflicts};
}

WaveCounters minus(const WaveCounters& a, const WaveCounters& b) {
  WaveCounters d;
  d.cycle = a.cycle - b.cycle;
  d.values.resize(kValues);
  for (size_t i = 0; i < kValues; ++i) d.values[i] = a.values[i] - b.values[i];
  return d;
}

}  // namespace

std::string SamplingReport::method() const {
  if (!requested) return "full";
  if (within_wave) return rate_method;
  const std::string refused =
      rate_refused.empty() ? std::string() : "; within-wave rates not used: " + rate_refused;
  if (!applied) return "full (" + why_full + refused + ")";
  char tol[32], tight[32];
  std::snprintf(tol, sizeof tol, "%g%%", 100 * tolerance);
  std::snprintf(tight, sizeof tight, "%g%%", 100 * tight_tolerance);
  return "waves of " + std::to_string(wave_blocks) + " blocks; detailed: wave 0 (warm-up), then " +
         "waves until " + std::to_string(stable_waves) + " agree within " + tol + " (within " +
         tight + ": skip to the tail), then " + std::to_string(settle_waves) +
         " settling and 1 check in " + std::to_string(period) + " (the check within " + tol +
         " or measure again" + (confirmed_to_tail ? "; a passing check skips to the tail" : "") +
         "), and the last " + std::to_string(tail_waves) + "; skips of " +
         std::to_string(min_skip_waves) + " waves or more" +
         "; the others fast-forwarded (functional; a skipped "
         "wave whose work or L2 write-backs differ from the stable waves' ends the skip), their "
         "cycles and counters interpolated from the detailed waves on either side" +
         (stopped_wave ? "; stopped at wave " + std::to_string(stopped_wave) +
                             " (its check failed with the stable waves' work: the skip upset the "
                             "run, the rest in detail)"
                       : std::string()) +
         refused;
}

WaveCounters snapshot(std::vector<Sm>& sms, const L2& l2, uint64_t now,
                      uint64_t warp_instructions) {
  WaveCounters w;
  w.cycle = now;
  w.values.assign(kValues, 0);
  MemoryCounters l1;
  for (Sm& sm : sms) {
    sm.flush(now);
    for (int s = 0; s < kWarpStateCount; ++s) w.values[kStates + s] += sm.state_cycles()[s];
    l1.add(sm.l1tex().counters());
    w.values[kSm] += sm.active_cycles();
    w.values[kSm + 1] += sm.resident_warp_cycles();
  }
  w.values[kWork] = warp_instructions;
  const auto f = l1_fields(l1);
  for (size_t i = 0; i < kL1Count; ++i) w.values[kL1 + i] = *f[i];
  w.values[kL2] = l2.counters().read_sector_hits;
  w.values[kL2 + 1] = l2.counters().read_sector_misses;
  w.values[kL2 + 2] = l2.counters().write_sectors;
  w.values[kL2 + 3] = l2.counters().atomic_requests;
  w.values[kDram] = l2.dram().bytes_read();
  w.values[kDram + 1] = l2.dram().bytes_written();
  w.values[kDram + 2] = l2.dram().counters().row_hits;
  w.values[kDram + 3] = l2.dram().counters().activations();
  return w;
}

WaveCounters wave_counters(uint64_t cycle, uint64_t warp_instructions) {
  WaveCounters w;
  w.cycle = cycle;
  w.values.assign(kValues, 0);
  w.values[kWork] = warp_instructions;
  return w;
}

WaveSampler::WaveSampler(const SamplingOptions& options, uint64_t total_blocks,
                         uint64_t wave_blocks, const std::string& not_here)
    : opt_(options),
      total_blocks_(total_blocks),
      wave_blocks_(std::max<uint64_t>(wave_blocks, 1)),
      waves_((total_blocks + wave_blocks_ - 1) / wave_blocks_) {
  opt_.stable_waves = std::max(opt_.stable_waves, 2);
  opt_.period = std::max(opt_.period, 2);
  opt_.tail_waves = std::max(opt_.tail_waves, 1);
  opt_.min_skip_waves = std::max(opt_.min_skip_waves, 1);
  const uint64_t need = waves_needed(opt_);
  if (!opt_.enabled) return;
  if (!not_here.empty()) {
    why_full_ = not_here;
    return;
  }
  eligible_ = true;
  if (waves_ < need) {
    why_full_ = std::to_string(waves_) + " wave" + (waves_ == 1 ? "" : "s") + ", fewer than " +
                std::to_string(need);
    return;
  }
  active_ = true;
  last_.values.assign(kValues, 0);
  window_begin_ = 1;  // wave 0 is the warm-up
}

uint64_t WaveSampler::waves_needed(const SamplingOptions& options) {
  // Warm-up, a stable window, the shortest skip and the tail waves at the least.
  return std::max<uint64_t>(static_cast<uint64_t>(std::max(options.min_waves, 0)),
                            1 + static_cast<uint64_t>(std::max(options.stable_waves, 2)) +
                                static_cast<uint64_t>(std::max(options.min_skip_waves, 1)) +
                                static_cast<uint64_t>(std::max(options.tail_waves, 1)));
}

uint64_t WaveSampler::at_boundary(uint64_t next, const WaveCounters& at) {
  const uint64_t wave = next / wave_blocks_;
  // 1. The wave simulated in detail ends here: its cost. A skip waiting for the wave after it
  //    gets it.
  costs_.push_back({current_wave_, minus(at, last_)});
  const size_t idx = costs_.size() - 1;
  last_ = at;
  current_wave_ = wave;
  // The waves just after a skip settle: the SMs still run the blocks of the wave before the
  // skip, now beside blocks far from them in the grid (other DRAM rows; for a grid that wraps
  // over its data, lines those blocks just wrote), so their cost is not the steady state's.
  if (settling_ > 0) {
    --settling_;
    return next;
  }
  if (!skips_.empty() && skips_.back().after == kNone) skips_.back().after = idx;
  if (costs_[idx].wave == 0) return next;  // the warm-up wave
  // 2. A check wave that agrees with the stable waves, or a measuring window that is stable.
  const double cycles = double(costs_[idx].delta.cycle);
  bool skip = false, to_tail = false;
  if (phase_ == Phase::Skipping) {
    if (std::abs(cycles - reference_) <= opt_.tolerance * reference_) {
      skip = true;
      // The steady state held across a whole skip: the next one runs to the tail.
      to_tail = opt_.confirmed_to_tail && !skips_.empty() && !skips_.back().cut;
    } else {
      phase_ = Phase::Measure;
      window_begin_ = idx;
      // When the skipped waves did the stable waves' work with their write-backs (else the
      // skip was cut) and so does the check wave, what the check wave sees is the skip itself:
      // blocks from before it, still in flight, beside blocks after it that share their data (a
      // grid that wraps over its data: the stride-8 copy's blocks 8192 apart; 2026-11-27, 2^24
      // floats: the waves after a skip hit lines the blocks in flight had just written, 25%
      // fast, and settled only 5 waves later). Such a launch is not sampled further, and that
      // skip costs the waves before it.
      const double work = double(costs_[idx].delta.values[kWork]);
      const bool same_work = std::abs(work - reference_work_) <= opt_.tolerance * reference_work_;
      if (!skips_.empty() && !skips_.back().cut && same_work) {
        skips_.back().upset = true;
        stopped_ = true;
        stopped_wave_ = costs_[idx].wave;
      }
    }
  }
  // 3. A measuring window whose last stable_waves agree within tolerance skips period - 1
  //    waves; within tight_tolerance, to the tail.
  const size_t stable = static_cast<size_t>(opt_.stable_waves);
  if (phase_ == Phase::Measure && idx + 1 >= window_begin_ + stable &&
      stable_window(idx, stable, opt_.tolerance)) {
    phase_ = Phase::Skipping;
    skip = true;
    to_tail = opt_.tight_tolerance > 0 && spread(idx, stable) <= opt_.tight_tolerance * reference_;
  }
  // 4. Skip up to period - 1 waves (to the tail after a tight window), never into the tail,
  //    and never fewer than min_skip_waves.
  const uint64_t tail = static_cast<uint64_t>(opt_.tail_waves);
  const uint64_t shortest = static_cast<uint64_t>(opt_.min_skip_waves);
  if (!skip || stopped_ || wave + tail + shortest > waves_) return next;
  const uint64_t room = waves_ - tail - wave;
  const uint64_t n =
      to_tail ? room
              : std::min<uint64_t>(std::max<uint64_t>(uint64_t(opt_.period - 1), shortest), room);
  skips_.push_back({n, idx, kNone, false, false});
  settling_ = opt_.settle_waves;
  skipped_blocks_ += n * wave_blocks_;
  current_wave_ = wave + n;
  return next + n * wave_blocks_;
}

double WaveSampler::spread(size_t idx, size_t count) const {
  double lo = double(costs_[idx].delta.cycle), hi = lo;
  for (size_t i = idx + 1 - count; i <= idx; ++i) {
    lo = std::min(lo, double(costs_[i].delta.cycle));
    hi = std::max(hi, double(costs_[i].delta.cycle));
  }
  return hi - lo;
}

bool WaveSampler::stable_window(size_t idx, size_t count, double tolerance) {
  double sum = 0;
  for (size_t i = idx + 1 - count; i <= idx; ++i) sum += double(costs_[i].delta.cycle);
  const double mean = sum / double(count);
  if (spread(idx, count) > tolerance * mean) return false;
  reference_ = mean;
  // The window's DRAM traffic per wave: what a skipped wave's L2 write-backs are held to; its
  // work: what a skipped wave's is.
  double read = 0, written = 0, work = 0;
  for (size_t i = idx + 1 - count; i <= idx; ++i) {
    read += double(costs_[i].delta.values[kDram]);
    written += double(costs_[i].delta.values[kDram + 1]);
    work += double(costs_[i].delta.values[kWork]);
  }
  reference_written_ = written / double(count);
  reference_traffic_ = (read + written) / double(count);
  reference_work_ = work / double(count);
  return true;
}

bool WaveSampler::skipped_wave(uint64_t written_back_bytes, uint64_t warp_instructions,
                               double dram_bytes_per_cycle) const {
  const double d = std::abs(double(written_back_bytes) - reference_written_);
  const double w = std::abs(double(warp_instructions) - reference_work_);
  // The write-backs are alike when they differ by at most `tolerance` of the DRAM traffic, or
  // when the DRAM, at its peak, would move the stable waves' traffic and the difference in at
  // most half of `tolerance` of a stable wave's cycles (a wave that does not wait for the DRAM).
  const bool written_alike =
      d <= opt_.tolerance * std::max(reference_traffic_, 1.0) ||
      (dram_bytes_per_cycle > 0 &&
       (reference_traffic_ + d) / dram_bytes_per_cycle <= 0.5 * opt_.tolerance * reference_);
  return written_alike && w <= opt_.tolerance * std::max(reference_work_, 1.0);
}

void WaveSampler::cut_skip(uint64_t next) {
  Skip& k = skips_.back();
  const uint64_t first = current_wave_ - k.waves;  // the skip's first wave
  const uint64_t waves = next / wave_blocks_ - first;
  skipped_blocks_ -= (k.waves - waves) * wave_blocks_;
  k.waves = waves;
  k.cut = true;
  current_wave_ = next / wave_blocks_;
}

void WaveSampler::finish(TimingResult& r, uint64_t& active, uint64_t& resident,
                         std::vector<WarpStateCycles>& by_line) const {
  SamplingReport& s = r.sampling;
  s.requested = opt_.enabled;
  s.applied = active_ && !skips_.empty();
  s.why_full = active_ ? (skips_.empty() ? "no stable waves" : "") : why_full_;
  s.wave_blocks = wave_blocks_;
  s.stable_waves = opt_.stable_waves;
  s.period = opt_.period;
  s.settle_waves = opt_.settle_waves;
  s.confirmed_to_tail = opt_.confirmed_to_tail;
  s.tight_tolerance = opt_.tight_tolerance;
  s.tail_waves = opt_.tail_waves;
  s.min_skip_waves = opt_.min_skip_waves;
  s.stopped_wave = stopped_wave_;
  s.fast_forward_wall_s = fast_forward_wall_s_;
  s.tolerance = opt_.tolerance;
  s.waves = waves_;
  s.blocks = total_blocks_;
  s.detailed_blocks = total_blocks_ - skipped_blocks_;
  s.detailed_waves = waves_ - skipped_blocks_ / wave_blocks_;
  if (skips_.empty()) return;
  // 1. Each skipped stretch: its waves x the mean cost of the detailed waves around it.
  double cycles = 0;
  std::vector<double> extra(kValues, 0);
  //    A skip that was cut: its waves but the last were still the stable waves' (same work,
  //    same write-backs), so they cost the wave before it; the last, where the change came,
  //    costs the mean.
  for (const Skip& k : skips_) {
    const Cost& b = costs_[k.before];
    const Cost& a = costs_[k.after == kNone ? k.before : k.after];
    const double wb = k.upset ? double(k.waves)
                      : k.cut ? double(k.waves) - 0.5
                              : 0.5 * double(k.waves);
    const double wa = double(k.waves) - wb;
    cycles += wb * double(b.delta.cycle) + wa * double(a.delta.cycle);
    for (size_t i = 0; i < kValues; ++i)
      extra[i] += wb * double(b.delta.values[i]) + wa * double(a.delta.values[i]);
  }
  s.skipped_cycles = static_cast<uint64_t>(std::llround(cycles));
  r.cycles += s.skipped_cycles;
  add_counters(r, extra, active, resident, by_line);
}

size_t state_counter(int state) { return kStates + static_cast<size_t>(state); }
size_t work_counter() { return kWork; }
size_t l2_counter() { return kL2; }
size_t active_counter() { return kSm; }
size_t resident_counter() { return kSm + 1; }

void set_sampled_times(TimingResult& r, double peak_dram_bytes_per_second,
                       double launch_overhead_us) {
  r.kernel_time_us = double(r.cycles) / r.clock_mhz;
  r.time_us = r.kernel_time_us + launch_overhead_us;
  r.gpu_ipc = r.cycles ? double(r.stats.warp_instructions) / double(r.cycles) : 0;
  r.peak_dram_bytes_per_second = peak_dram_bytes_per_second;
  r.dram_bytes_per_second = r.kernel_time_us > 0
                                ? double(r.memory.dram_bytes_read + r.memory.dram_bytes_written) /
                                      (r.kernel_time_us * 1e-6)
                                : 0;
}

void add_counters(TimingResult& r, const std::vector<double>& extra, uint64_t& active,
                  uint64_t& resident, std::vector<WarpStateCycles>& by_line) {
  auto add = [&](size_t i) { return static_cast<uint64_t>(std::llround(extra[i])); };
  // 2. Warp states, with the per-line ones scaled by their state's total ratio.
  for (int st = 0; st < kWarpStateCount; ++st) {
    const uint64_t before = r.warp_states[st];
    r.warp_states[st] += add(kStates + st);
    if (before == 0) continue;
    const double scale = double(r.warp_states[st]) / double(before);
    for (WarpStateCycles& line : by_line)
      line[st] = static_cast<uint64_t>(std::llround(double(line[st]) * scale));
  }
  // 3. The memory table and the SM activity.
  const auto f = l1_fields(r.memory.l1);
  for (size_t i = 0; i < kL1Count; ++i) *f[i] += add(kL1 + i);
  r.memory.l2_read_sector_hits += add(kL2);
  r.memory.l2_read_sector_misses += add(kL2 + 1);
  r.memory.l2_write_sectors += add(kL2 + 2);
  r.memory.l2_atomic_requests += add(kL2 + 3);
  r.memory.dram_bytes_read += add(kDram);
  r.memory.dram_bytes_written += add(kDram + 1);
  r.memory.dram_row_hits += add(kDram + 2);
  r.memory.dram_activations += add(kDram + 3);
  active += add(kSm);
  resident += add(kSm + 1);
}

}  // namespace warplab::timing
