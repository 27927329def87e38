#include "ui/app/model/gpu_waves.h"

#include <algorithm>

namespace warplab::app {

GpuWaves build_gpu_waves(const timing::Trace& t, int blocks_per_sm, int warps_per_block,
                         int max_warps_per_sm) {
  GpuWaves g;
  g.sm_count = t.sm_count;
  g.blocks_per_sm = blocks_per_sm;
  g.warps_per_block = warps_per_block;
  g.max_warps_per_sm = max_warps_per_sm;
  g.truncated = t.blocks_truncated;
  g.sms.resize(std::max(0, t.sm_count));
  bool any = false;
  for (const timing::BlockRecord& b : t.blocks) {
    if (b.sm < 0 || b.sm >= g.sm_count) continue;
    GpuBlock x;
    x.block = b.block;
    x.begin = b.begin;
    x.end = b.end;
    x.warps = b.warps;
    const uint64_t per_wave = uint64_t(std::max(1, g.sm_count * std::max(1, blocks_per_sm)));
    x.wave = int(b.block / per_wave);
    g.sms[b.sm].push_back(x);
    g.first_cycle = any ? std::min(g.first_cycle, b.begin) : b.begin;
    g.last_cycle = std::max(g.last_cycle, b.end);
    g.last_dispatch = std::max(g.last_dispatch, b.begin);
    any = true;
    ++g.blocks;
  }
  // The GPU-wide step function: +warps at each begin, -warps at each end.
  std::vector<std::pair<uint64_t, int>> events;
  for (const auto& blocks : g.sms)
    for (const GpuBlock& b : blocks) {
      events.emplace_back(b.begin, b.warps);
      events.emplace_back(b.end, -b.warps);
    }
  std::sort(events.begin(), events.end());
  int level = 0;
  for (const auto& [cycle, d] : events) {
    level += d;
    if (!g.step_cycle.empty() && g.step_cycle.back() == cycle) {
      g.step_warps.back() = level;
    } else {
      g.step_cycle.push_back(cycle);
      g.step_warps.push_back(level);
    }
  }
  // Block slots: in arrival order, each block takes the lowest slot free at its begin.
  for (auto& blocks : g.sms) {
    std::stable_sort(blocks.begin(), blocks.end(), [](const GpuBlock& a, const GpuBlock& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.block < b.block;
    });
    std::vector<uint64_t> free_at;  // per slot: when its block leaves
    for (GpuBlock& b : blocks) {
      size_t s = 0;
      while (s < free_at.size() && free_at[s] > b.begin) ++s;
      if (s == free_at.size()) free_at.push_back(0);
      free_at[s] = b.end;
      b.slot = int(s);
    }
  }
  return g;
}

int GpuWaves::resident_warps(int sm, double cycle) const {
  if (sm < 0 || sm >= int(sms.size())) return 0;
  int w = 0;
  for (const GpuBlock& b : sms[sm]) {
    if (double(b.begin) > cycle) break;
    if (cycle < double(b.end)) w += b.warps;
  }
  return w;
}

int GpuWaves::total_resident_warps(double cycle) const {
  const auto it = std::upper_bound(step_cycle.begin(), step_cycle.end(), cycle,
                                   [](double c, uint64_t s) { return c < double(s); });
  return it == step_cycle.begin() ? 0 : step_warps[it - step_cycle.begin() - 1];
}

double GpuWaves::idle_fraction(uint64_t begin, uint64_t end) const {
  if (end <= begin || sms.empty()) return 0;
  uint64_t busy = 0;
  for (const auto& blocks : sms) {
    // Union of the SM's block intervals clipped to [begin, end) (blocks are sorted by begin).
    uint64_t cur_b = 0, cur_e = 0;
    bool open = false;
    for (const GpuBlock& b : blocks) {
      const uint64_t lo = std::max(b.begin, begin), hi = std::min(b.end, end);
      if (lo >= hi) continue;
      if (open && lo <= cur_e) {
        cur_e = std::max(cur_e, hi);
      } else {
        if (open) busy += cur_e - cur_b;
        cur_b = lo;
        cur_e = hi;
        open = true;
      }
    }
    if (open) busy += cur_e - cur_b;
  }
  const double total = double(end - begin) * double(sms.size());
  return 1.0 - double(busy) / total;
}

}  // namespace warplab::app
