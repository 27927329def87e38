// Within-wave rate sampling: see rate_sampler.h.
#include "sim/timing/rate_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "sim/timing/gpu_model.h"
#include "sim/timing/touch_log.h"

namespace warplab::timing {

RateWatch::RateWatch(const SamplingOptions& options)
    : window_(std::max(options.rate_window, 1)),
      need_(std::max(options.rate_windows, 2)),
      tolerance_(options.rate_tolerance),
      next_(static_cast<uint64_t>(window_)) {}

bool RateWatch::look(const WaveCounters& at, const std::vector<uint64_t>& issued,
                     const std::vector<int>& resident, bool placed, bool finished,
                     const std::vector<uint64_t>* lines, const WarpProgress* blocks) {
  next_ = (at.cycle / window_ + 1) * window_;
  if (!armed_) return false;
  if (finished) {  // blocks shorter than the watch: not a launch for it
    armed_ = false;
    return false;
  }
  if (!placed) {  // the steady windows start once every block of the wave is resident
    looks_.clear();
    issued_.clear();
    lines_.clear();
    blocks_.clear();
  }
  looks_.push_back(at);
  issued_.push_back(issued);
  // Only the last need_ + 1 looks' lines can start or end the steady windows.
  if (lines_.size() > static_cast<size_t>(need_)) lines_.erase(lines_.begin());
  lines_.push_back(lines ? *lines : std::vector<uint64_t>{});
  if (blocks_.size() > static_cast<size_t>(need_)) blocks_.erase(blocks_.begin());
  blocks_.push_back(blocks ? *blocks : WarpProgress{});
  const size_t k = looks_.size();
  if (k < static_cast<size_t>(need_) + 1) return false;
  const size_t first = k - 1 - static_cast<size_t>(need_);
  const size_t w = work_counter();
  double lo = 0, hi = 0, sum = 0;
  for (size_t i = first; i + 1 < k; ++i) {
    const double rate = double(looks_[i + 1].values[w] - looks_[i].values[w]) /
                        double(std::max<uint64_t>(looks_[i + 1].cycle - looks_[i].cycle, 1));
    lo = i == first ? rate : std::min(lo, rate);
    hi = i == first ? rate : std::max(hi, rate);
    sum += rate;
  }
  const double mean = sum / need_;
  if (mean <= 0 || hi - lo > tolerance_ * mean) return false;
  steady_ = true;
  armed_ = false;
  first_ = first;
  resident_ = resident;
  return true;
}

std::vector<double> RateWatch::rates() const {
  const WaveCounters& a = looks_[first_];
  const WaveCounters& b = looks_.back();
  const double cycles = double(std::max<uint64_t>(b.cycle - a.cycle, 1));
  std::vector<double> r(b.values.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = double(b.values[i] - a.values[i]) / cycles;
  return r;
}

double RateWatch::work_rate() const { return rates()[work_counter()]; }

std::vector<uint64_t> RateWatch::steady_lines() const {
  // The steady windows are the last need_ of the looks at the stop: lines_.front() is their
  // start (looks_[first_]) and lines_.back() their end.
  if (!steady_ || lines_.size() != static_cast<size_t>(need_) + 1) return {};
  const std::vector<uint64_t>& a = lines_.front();
  const std::vector<uint64_t>& b = lines_.back();
  std::vector<uint64_t> d(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) d[i] = b[i] - (i < a.size() ? a[i] : 0);
  return d;
}

double mix_distance(const std::vector<uint64_t>& window,
                    const std::map<int32_t, func::LineCounts>& launch) {
  double w = 0, l = 0;
  for (uint64_t v : window) w += double(v);
  for (const auto& [line, c] : launch) l += double(c.warp_instructions);
  if (w <= 0 || l <= 0) return 1;
  double d = 0, seen = 0;  // seen: the window's share on the lines the launch ran
  for (const auto& [line, c] : launch) {
    const double q = double(c.warp_instructions) / l;
    const double p =
        line >= 0 && size_t(line) < window.size() ? double(window[size_t(line)]) / w : 0;
    d += std::abs(p - q);
    seen += p;
  }
  d += std::max(0.0, 1 - seen);  // the window's share on lines the launch never ran
  return d / 2;
}

bool block_work_exact(const ptx::Function& kernel) { return touches_loggable(kernel); }

namespace {
constexpr uint64_t kExited = uint64_t{1} << 63;
// One SM's warps (Sm::warp_progress) summed per block: (linear index, issued), in slot order.
std::vector<std::pair<uint64_t, uint64_t>> block_sums(
    const std::vector<std::pair<uint64_t, uint64_t>>& warps) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [key, issued] : warps) {
    const uint64_t linear = (key & ~kExited) >> 6;
    if (out.empty() || out.back().first != linear) out.emplace_back(linear, 0);
    out.back().second += issued;
  }
  return out;
}
}  // namespace

double RateWatch::warp_spread() const {
  if (!steady_ || blocks_.size() < 2) return 0;
  const double cycles = double(std::max<uint64_t>(looks_.back().cycle - looks_[first_].cycle, 1));
  double sum = 0;
  int n = 0;
  for (size_t s = 0; s < blocks_.back().size() && s < blocks_.front().size(); ++s) {
    const auto& end = blocks_.back()[s];
    const auto& start = blocks_.front()[s];
    std::map<uint64_t, std::pair<double, double>> range;  // block -> (min, max) warp rate
    std::map<uint64_t, std::pair<double, int>> mean;      // block -> (sum, warps)
    for (const auto& [key, done] : end) {
      if (key & kExited) continue;
      uint64_t from = done;
      for (const auto& [k0, d0] : start)
        if ((k0 & ~kExited) == key) from = d0 <= done ? d0 : done;
      const double r = double(done - from) / cycles;
      const uint64_t b = key >> 6;
      auto [it, fresh] = range.try_emplace(b, r, r);
      if (!fresh) it->second = {std::min(it->second.first, r), std::max(it->second.second, r)};
      mean[b].first += r, ++mean[b].second;
    }
    for (const auto& [b, mm] : range)
      if (mean[b].second > 1 && mean[b].first > 0) {
        sum += (mm.second - mm.first) / (mean[b].first / mean[b].second);
        ++n;
      }
  }
  return n ? sum / n : 0;
}

double RateWatch::drain_cycles(const std::vector<uint64_t>& block_work, bool exact,
                               uint64_t first, uint64_t count) const {
  double mean = 0;
  for (uint64_t b = first; b < first + count && b < block_work.size(); ++b)
    mean += double(block_work[b]);
  mean /= double(std::max<uint64_t>(count, 1));
  const std::vector<uint64_t>& now = issued_.back();
  const std::vector<uint64_t>& then = issued_[first_];
  const double cycles = double(std::max<uint64_t>(looks_.back().cycle - looks_[first_].cycle, 1));
  // Issued (compiled code's count) per functional warp instruction, over the steady windows:
  // what is left is the loop's work, and the prologue's ratio may differ (lesson 17's SIMT
  // matmul at 1024^3, one wave: the whole stage's ratio made the launch 8.3% fast).
  double issued = 0;
  for (size_t s = 0; s < now.size(); ++s) issued += double(now[s] - then[s]);
  const double functional =
      double(looks_.back().values[work_counter()] - looks_[first_].values[work_counter()]);
  const double per = functional > 0 && issued > 0 ? issued / functional : 1;
  // An SM's rate with n resident blocks, R(n): the mean of the SMs with n over the windows (one
  // SM's rate over the windows is noisy, and the slowest of a hundred noisy rates is biased
  // slow: lesson 12's matmul at 512^3 came out 4.4% slow with each SM's own). A count no SM had
  // at the stop (the SM's blocks end one by one) is interpolated between the counts some SMs
  // had, and below the fewest the SM keeps the fewest's rate (the blocks left take up what the
  // ended ones issued: lesson 12's matmul, 7 and 8 blocks an SM, came out 9-13% slow when the
  // blocks left kept their own rates instead). Where the SMs held 1 and 2 blocks (lesson 17's
  // SIMT matmul at 1024^3), R(1) is measured: 1.54 against 2.25 warp instructions a cycle.
  std::map<int, double> rate_of;  // resident blocks -> mean SM rate over the windows
  {
    std::map<int, std::pair<double, int>> group;  // resident blocks -> (issued, SMs)
    for (size_t s = 0; s < now.size() && s < resident_.size(); ++s)
      if (resident_[s] > 0) {
        group[resident_[s]].first += double(now[s] - then[s]);
        ++group[resident_[s]].second;
      }
    for (const auto& [n, g] : group) rate_of[n] = g.first / g.second / cycles;
  }
  auto sm_rate = [&](int n) {
    const auto hi = rate_of.lower_bound(n);
    if (hi == rate_of.end()) return rate_of.empty() ? 0.0 : rate_of.rbegin()->second;
    if (hi->first == n || hi == rate_of.begin()) return hi->second;
    const auto lo = std::prev(hi);
    const double f = double(n - lo->first) / double(hi->first - lo->first);
    return lo->second + f * (hi->second - lo->second);
  };
  const bool per_block = blocks_.size() == issued_.size() - first_ && !blocks_.empty();
  // Each SM drains its blocks: each block at its share of the SM's rate (its own rate over the
  // windows against its SM-mates': a scheduler that favours older warps runs one block ahead of
  // the other, lesson 17's SIMT matmul at 1024^3 two blocks an SM), the SM's rate R(n) for
  // the n blocks still running, until the last ends. E is the slowest SM's.
  double e = 0;
  struct Left {
    double work, share;
  };
  std::vector<Left> left;
  for (size_t s = 0; s < now.size() && s < resident_.size(); ++s) {
    if (resident_[s] <= 0) continue;
    left.clear();
    const bool have = per_block && s < blocks_.back().size() && s < blocks_.front().size();
    std::vector<std::pair<uint64_t, uint64_t>> end;  // this SM's blocks at the stop
    if (have) end = block_sums(blocks_.back()[s]);
    if (have && end.size() == size_t(resident_[s])) {
      const auto start = block_sums(blocks_.front()[s]);
      for (const auto& [linear, done] : end) {
        uint64_t from = done;  // a block placed inside the windows: from its start
        for (const auto& [l0, d0] : start)
          if (l0 == linear) from = d0 <= done ? d0 : done;
        const double work =
            (exact && linear < block_work.size() ? double(block_work[linear]) : mean) * per;
        left.push_back({std::max(0.0, work - double(done)), double(done - from)});
      }
    } else {  // the SM's work shared evenly by its blocks
      const double done = double(now[s]) / resident_[s];
      for (int k = 0; k < resident_[s]; ++k) left.push_back({std::max(0.0, mean * per - done), 1});
    }
    double shares = 0;
    for (const Left& l : left) shares += l.share;
    if (shares <= 0)
      for (Left& l : left) l.share = 1;
    double t = 0;
    for (;;) {
      int n = 0;
      double sum = 0;
      for (const Left& l : left)
        if (l.work > 0) ++n, sum += l.share;
      if (n == 0) break;
      const double r = sm_rate(n);
      if (r <= 0 || sum <= 0) break;
      double step = -1;  // to the next block's end
      for (const Left& l : left)
        if (l.work > 0 && l.share > 0) {
          const double d = l.work / (r * l.share / sum);
          step = step < 0 ? d : std::min(step, d);
        }
      if (step < 0) break;  // blocks without a share left: they issued nothing in the windows
      for (Left& l : left)
        if (l.work > 0) l.work = std::max(0.0, l.work - step * r * l.share / sum);
      for (Left& l : left)  // the one that ended (rounding: within a part in 1e9)
        if (l.work <= 1e-9 * (1 + step * r)) l.work = 0;
      t += step;
    }
    e = std::max(e, t);
  }
  return e;
}

void combine_rate_stages(TimingResult& a, const RateStage& sa, const RateStage& sb,
                         const std::vector<uint64_t>& block_work, bool exact,
                         const func::LaunchStats& stats,
                         int max_warps_per_sm, const func::Program& program,
                         double peak_dram_bytes_per_second, double launch_overhead_us) {
  const size_t w = work_counter();
  const bool one_wave = sb.watch == sa.watch;  // no stage B: the grid is one wave
  const WaveCounters& ea = sa.watch->at_end();
  const WaveCounters& eb = sb.watch->at_end();
  // 1. Cycles: stage A's, the work before the last wave at A's steady rate, stage B's, and the
  //    drain of B's slowest SM (rate_sampler.h, step 4); one wave: stage A's and its drain.
  double before = 0;
  for (uint64_t b = 0; b < sb.first_block && b < block_work.size(); ++b)
    before += double(block_work[b]);
  const double middle =
      one_wave ? 0 : std::max(0.0, before - double(ea.values[w])) / sa.watch->work_rate();
  const double drain = sb.watch->steady() ? sb.watch->drain_cycles(block_work, exact,
                                                                   sb.first_block, sb.blocks)
                                          : 0;
  const double cycles = double(ea.cycle) + middle + (one_wave ? 0 : double(eb.cycle)) + drain;
  // 2. Counters: the detailed totals of both stages, plus their steady rates over the
  //    extrapolated cycles (stage A's counters are a's already).
  std::vector<double> extra(ea.values.size(), 0);
  const std::vector<double> ra = sa.watch->rates();
  const std::vector<double> rb =
      sb.watch->steady() ? sb.watch->rates() : std::vector<double>(extra.size(), 0);
  for (size_t i = 0; i < extra.size(); ++i)
    extra[i] = ra[i] * middle + (one_wave ? 0 : double(eb.values[i])) + rb[i] * drain;
  uint64_t active = ea.values[active_counter()], resident = ea.values[resident_counter()];
  int32_t max_line = 0;
  for (const auto& [line, c] : a.warp_states_by_ptx_line) max_line = std::max(max_line, line);
  std::vector<WarpStateCycles> by_line(static_cast<size_t>(max_line) + 1, WarpStateCycles{});
  for (const auto& [line, c] : a.warp_states_by_ptx_line) by_line[line] = c;
  add_counters(a, extra, active, resident, by_line);
  a.warp_states_by_ptx_line.clear();
  for (size_t line = 0; line < by_line.size(); ++line) {
    bool any = false;
    for (auto v : by_line[line]) any = any || v;
    if (any) a.warp_states_by_ptx_line[static_cast<int32_t>(line)] = by_line[line];
  }
  a.warp_states_by_src_line.clear();
  for (const auto& f : program.module().functions)
    for (const auto& i : f.instructions) {
      auto it = a.warp_states_by_ptx_line.find(i.ptx_line);
      if (it == a.warp_states_by_ptx_line.end() || i.user_loc.line <= 0) continue;
      auto& dst = a.warp_states_by_src_line[{i.user_loc.file, i.user_loc.line}];
      for (int s = 0; s < kWarpStateCount; ++s) dst[s] += it->second[s];
    }
  // 3. Exact counts from the functional run; the rates derived from the cycles.
  a.stats = stats;
  a.cycles = static_cast<uint64_t>(std::llround(cycles));
  set_sampled_times(a, peak_dram_bytes_per_second, launch_overhead_us);
  const double instructions = double(stats.warp_instructions);
  a.ipc = active ? instructions / double(active) : 0;
  a.achieved_occupancy =
      active && max_warps_per_sm > 0 ? double(resident) / double(active) / max_warps_per_sm : 0;
  // 4. The label: what ran in detail, what was extrapolated.
  SamplingReport& s = a.sampling;
  s.requested = s.applied = s.within_wave = true;
  s.why_full.clear();
  const double detailed = double(ea.values[w]) + (one_wave ? 0 : double(eb.values[w]));
  s.work_fraction = instructions > 0 ? std::min(1.0, detailed / instructions) : 1;
  s.blocks = block_work.size();
  s.detailed_blocks = static_cast<uint64_t>(std::llround(s.work_fraction * double(s.blocks)));
  s.detailed_waves = 0;
  s.skipped_cycles = static_cast<uint64_t>(std::llround(middle + drain));
  char line[512];
  if (one_wave)
    std::snprintf(line, sizeof line,
                  "within-wave rates: the grid's one wave in detail to cycle %llu (steady %.2f "
                  "warp instructions/cycle); %.0f cycles extrapolated from its slowest SM's "
                  "remaining work at that SM's rate; %.2f%% of the warp instructions in detail; "
                  "instruction counts and stores exact (functional), other counters "
                  "extrapolated",
                  static_cast<unsigned long long>(ea.cycle), sa.watch->work_rate(), drain,
                  100 * s.work_fraction);
  else
  std::snprintf(line, sizeof line,
                "within-wave rates: the first wave in detail to cycle %llu (steady %.2f warp "
                "instructions/cycle), the last wave's %llu blocks in detail %s%llu%s; "
                "%.0f cycles extrapolated from the first wave's rate and %.0f from the last "
                "one's slowest SM; %.2f%% of the warp instructions in detail; instruction counts "
                "and stores exact (functional), other counters extrapolated",
                static_cast<unsigned long long>(ea.cycle), sa.watch->work_rate(),
                static_cast<unsigned long long>(sb.blocks),
                sb.watch->steady() ? "to cycle " : "to its end, ",
                static_cast<unsigned long long>(eb.cycle), sb.watch->steady() ? "" : " cycles",
                middle, drain, 100 * s.work_fraction);
  s.rate_method = line;
}

}  // namespace warplab::timing
