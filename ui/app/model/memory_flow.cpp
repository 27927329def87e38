#include "ui/app/model/memory_flow.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "sim/timing/l2.h"

namespace warplab::app {
namespace {

using Kind = timing::AccessRecord::Kind;

bool through_l1(Kind k) { return k != Kind::SharedLoad && k != Kind::SharedStore; }

// Bytes one access moves: on each link (loads: every sector from the L1 to the LSU, the L1's
// misses from the L2, the L2's misses from DRAM; stores and atomics: every sector to the L2, as
// the L1 does not keep written data, and a store's later DRAM write-back is not an access's own),
// then the bytes its lanes asked for and the bytes the L1 handed over for them, then its L2 slice
// time on the read and write paths, and the sectors it sent to the L2 as the L2's counters count
// them (loads' L1 misses and stores' sectors; atomics not).
FlowIndex::Sums quantities(const timing::Trace& t, const timing::AccessRecord& a,
                           const L2Costs& costs) {
  const double sb = double(FlowIndex::kSectorBytes);
  const bool load = a.kind == Kind::GlobalLoad || a.kind == Kind::LocalLoad;
  const double all = double(a.sectors) * sb;
  const std::array<double, 2> slice = l2_slice_time(t, a, costs);
  return {all,
          double(load ? a.l1_miss_sectors : a.sectors) * sb,
          double(load ? a.dram_sectors : 0) * sb,
          double(std::popcount(a.exec_mask)) * double(a.access_bytes),
          all,
          double(a.lines),
          1.0,
          slice[0],
          slice[1],
          double(load ? a.l1_miss_sectors : a.kind == Kind::Atomic ? 0 : a.sectors)};
}

// Prefix sums of `values` in the order of `order`, one entry more than it.
std::vector<FlowIndex::Sums> prefix(const std::vector<FlowIndex::Sums>& values,
                                    const std::vector<size_t>& order) {
  std::vector<FlowIndex::Sums> out(1, FlowIndex::Sums{});
  for (size_t i : order) {
    FlowIndex::Sums next = out.back();
    for (int k = 0; k < FlowIndex::kQuantities; ++k) next[k] += values[i][k];
    out.push_back(next);
  }
  return out;
}

}  // namespace

std::array<double, 2> l2_slice_time(const timing::Trace& t, const timing::AccessRecord& a,
                                    const L2Costs& costs) {
  std::array<double, 2> out{};
  if (a.line_begin + a.line_count > t.access_lines.size()) return out;
  const bool load = a.kind == Kind::GlobalLoad || a.kind == Kind::LocalLoad;
  const bool store = a.kind == Kind::GlobalStore || a.kind == Kind::LocalStore;
  timing::L2Config l2;  // l2.cpp's store cost (store_slice_sectors) with the trace's preset values
  l2.request_sectors = costs.request_sectors;
  l2.partial_write_sectors = costs.partial_write_sectors;
  l2.full_write_sectors = costs.full_write_sectors;
  l2.partial_request_sectors = costs.partial_request_sectors;
  for (uint32_t k = 0; k < a.line_count; ++k) {
    const timing::AccessLine& l = t.access_lines[a.line_begin + k];
    if (load) {  // the sectors the L1 did not serve: one request to the L2 for the line
      int sent = 0;
      for (int s = 0; s < 4; ++s)
        sent += (l.sector_mask >> s & 1) && (l.source(s) == timing::SectorSource::L2 ||
                                             l.source(s) == timing::SectorSource::Dram);
      if (sent > 0) out[0] += sent + costs.request_sectors;
    } else if (store) {  // every stored sector, whole or a read-modify-write
      int bytes[4] = {0, 0, 0, 0};
      for (int lane = 0; lane < 32; ++lane)
        if (l.lane_mask >> lane & 1) bytes[(a.lane_sectors >> (2 * lane)) & 3] += a.access_bytes;
      int full = 0, part = 0;
      for (int s = 0; s < 4; ++s)
        if (l.sector_mask >> s & 1) (bytes[s] >= int(FlowIndex::kSectorBytes) ? full : part) += 1;
      if (full + part > 0) out[1] += timing::store_slice_sectors(l2, full, part);
    } else {  // atomics: their sectors on the read path (the atomic unit holds the rest)
      out[0] += std::popcount(unsigned(l.sector_mask));
    }
  }
  return out;
}

SteadyWindow steady_window(const timing::Trace& t, const FlowIndex& ix) {
  SteadyWindow w{ix.first_cycle, ix.last_cycle + 1, false};
  if (t.blocks.empty()) return w;
  uint64_t first_end = ~uint64_t{0}, last_begin = 0;
  for (const timing::BlockRecord& b : t.blocks) {
    first_end = std::min(first_end, b.end);
    last_begin = std::max(last_begin, b.begin);
  }
  if (last_begin > first_end) w = {first_end, last_begin, true};
  return w;
}

double flow_gbps(double bytes, uint64_t cycles, double clock_mhz) {
  if (cycles == 0) return 0;
  return bytes / double(cycles) * clock_mhz * 1e6 / 1e9;
}

FlowIndex build_flow_index(const timing::Trace& t, const L2Costs& costs) {
  FlowIndex ix;
  // 1. Accesses on the path, by issue.
  for (uint32_t i = 0; i < t.accesses.size(); ++i) {
    const timing::AccessRecord& a = t.accesses[i];
    if (!through_l1(a.kind) || a.sectors == 0) continue;
    ix.by_issue.push_back(i);
    ix.longest = std::max(ix.longest, a.ready > a.issue ? a.ready - a.issue : 0);
  }
  std::stable_sort(ix.by_issue.begin(), ix.by_issue.end(), [&](uint32_t x, uint32_t y) {
    return t.accesses[x].issue < t.accesses[y].issue;
  });
  // 2. Each access's bytes spread over [tag stage, data back): bytes, rates, rate x start.
  const size_t n = ix.by_issue.size();
  std::vector<uint64_t> start(n), end(n);
  std::vector<FlowIndex::Sums> bytes(n), rate(n), rate_x(n);
  for (size_t j = 0; j < n; ++j) {
    const timing::AccessRecord& a = t.accesses[ix.by_issue[j]];
    start[j] = a.tag_stage;
    end[j] = std::max(a.ready, a.tag_stage);
    bytes[j] = quantities(t, a, costs);
    const double d = double(end[j] - start[j]);
    for (int k = 0; k < FlowIndex::kQuantities; ++k) {
      rate[j][k] = d > 0 ? bytes[j][k] / d : 0;  // none: all of it at the end
      rate_x[j][k] = rate[j][k] * double(start[j]);
    }
    ix.last_cycle = std::max(ix.last_cycle, end[j]);
  }
  std::vector<size_t> by_start(n), by_end(n);
  for (size_t j = 0; j < n; ++j) by_start[j] = by_end[j] = j;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t x, size_t y) { return start[x] < start[y]; });
  std::stable_sort(by_end.begin(), by_end.end(),
                   [&](size_t x, size_t y) { return end[x] < end[y]; });
  for (size_t j : by_start) ix.start_cycle.push_back(start[j]);
  for (size_t j : by_end) ix.end_cycle.push_back(end[j]);
  ix.start_rate = prefix(rate, by_start);
  ix.start_rate_x = prefix(rate_x, by_start);
  ix.end_bytes = prefix(bytes, by_end);
  ix.end_rate = prefix(rate, by_end);
  ix.end_rate_x = prefix(rate_x, by_end);
  if (n > 0) ix.first_cycle = t.accesses[ix.by_issue.front()].issue;
  return ix;
}

FlowIndex::Sums FlowIndex::delivered(double cycle) const {
  // Bytes moved before `cycle`: finished accesses (end < cycle) count whole, those started and
  // not finished count r x (cycle - start); an access with end == start counts from its end on.
  auto before = [&](const std::vector<uint64_t>& v) {
    return size_t(std::lower_bound(v.begin(), v.end(), cycle,
                                   [](uint64_t x, double c) { return double(x) < c; }) -
                  v.begin());
  };
  const size_t s = before(start_cycle), e = before(end_cycle);
  Sums out{};
  if (start_rate.empty()) return out;
  for (int k = 0; k < kQuantities; ++k) {
    const double r = start_rate[s][k] - end_rate[e][k];
    const double rx = start_rate_x[s][k] - end_rate_x[e][k];
    out[k] = end_bytes[e][k] + std::max(0.0, cycle * r - rx);
  }
  return out;
}

FlowState FlowIndex::at(const timing::Trace& t, double cycle, size_t max_items) const {
  FlowState st;
  // Accesses issued in (cycle - longest, cycle] are the only ones that can be in flight.
  const double from = cycle - double(longest);
  auto it = std::lower_bound(by_issue.begin(), by_issue.end(), from,
                             [&](uint32_t i, double c) { return double(t.accesses[i].issue) < c; });
  for (; it != by_issue.end() && double(t.accesses[*it].issue) <= cycle; ++it) {
    const timing::AccessRecord& a = t.accesses[*it];
    if (cycle >= double(a.ready)) continue;  // its data is back
    FlowItem item;
    item.access = *it;
    item.store = a.kind != Kind::GlobalLoad && a.kind != Kind::LocalLoad;
    const int miss = item.store ? a.sectors : a.l1_miss_sectors;
    item.l1_hit = item.store ? 0 : a.l1_hit_sectors;
    // DRAM may fetch more sectors than missed (the L2 fetches sector groups, the preset's
    // fetch_bytes): the DRAM link carries all of them, the requested ones are at most the misses.
    item.dram_fetched = item.store ? 0 : a.dram_sectors;
    item.from_dram = std::min(item.dram_fetched, miss);
    item.from_l2 = miss - item.from_dram;
    if (cycle < double(a.tag_stage)) {
      item.stage = FlowItem::Stage::ToL1;
      const double span = double(a.tag_stage - a.issue);
      item.progress = span > 0 ? (cycle - double(a.issue)) / span : 1;
      ++st.accesses[0];
      st.sectors[0] += a.sectors;
    } else {
      item.stage = FlowItem::Stage::BelowL1;
      const double span = double(a.ready - a.tag_stage);
      item.progress = span > 0 ? (cycle - double(a.tag_stage)) / span : 1;
      st.l1_hit_sectors += item.l1_hit;
      if (item.from_l2 > 0) {
        ++st.accesses[1];
        st.sectors[1] += item.from_l2;
      }
      if (item.from_dram > 0) {
        ++st.accesses[2];
        st.sectors[2] += item.dram_fetched;
      }
    }
    if (st.items.size() < max_items) st.items.push_back(item);
  }
  return st;
}

std::array<std::vector<int>, kFlowLinks> FlowIndex::occupancy(const timing::Trace& t,
                                                              int samples) const {
  std::array<std::vector<int>, kFlowLinks> out;
  if (samples < 2 || by_issue.empty()) return out;
  for (int i = 0; i < samples; ++i) {
    const double c =
        double(first_cycle) + double(last_cycle - first_cycle) * double(i) / double(samples - 1);
    const FlowState st = at(t, c, 0);
    for (int k = 0; k < kFlowLinks; ++k) out[k].push_back(st.sectors[k]);
  }
  return out;
}

FlowRates FlowIndex::rates(const timing::Trace& t, uint64_t begin, uint64_t end) const {
  FlowRates r;
  r.begin = begin;
  r.end = end;
  const Sums a = delivered(double(begin)), b = delivered(double(end));
  for (int k = 0; k < kFlowLinks; ++k) r.bytes[k] = std::max(0.0, b[k] - a[k]);
  r.useful_bytes = std::max(0.0, b[kFlowLinks] - a[kFlowLinks]);
  r.moved_bytes = std::max(0.0, b[kFlowLinks + 1] - a[kFlowLinks + 1]);
  r.tag_lines = std::max(0.0, b[kFlowLinks + 2] - a[kFlowLinks + 2]);
  r.requests = std::max(0.0, b[kFlowLinks + 3] - a[kFlowLinks + 3]);
  r.l2_read_time = std::max(0.0, b[kFlowLinks + 4] - a[kFlowLinks + 4]);
  r.l2_write_time = std::max(0.0, b[kFlowLinks + 5] - a[kFlowLinks + 5]);
  r.l2_sectors = std::max(0.0, b[kFlowLinks + 6] - a[kFlowLinks + 6]);
  // Whole GPU: counter samples cover [cycle - interval, cycle); those wholly inside the window.
  for (size_t i = 0; i < t.counters.size(); ++i) {
    const uint64_t c_end = t.counters[i].cycle;
    const uint64_t c_begin = i > 0 ? t.counters[i - 1].cycle : 0;
    if (c_begin >= begin && c_end <= end && c_end > c_begin) {
      if (r.gpu_end == 0) r.gpu_begin = c_begin;
      r.gpu_end = c_end;
      r.gpu_dram_bytes += t.counters[i].dram_bytes;
      r.gpu_l2_sectors += t.counters[i].l2_sectors;
    }
  }
  return r;
}

LinkCapacities link_capacities(const timing::GpuConfig& c) {
  LinkCapacities k;
  k.sm_count = static_cast<int>(c.core.sm_count);
  k.tag_lines_per_cycle = double(c.l1.tag_lookups_per_cycle);
  k.bytes_per_cycle[0] = double(c.l1.tag_lookups_per_cycle * c.l1.line_bytes);
  k.basis[0] = "the L1 tag stage: " + std::to_string(c.l1.tag_lookups_per_cycle) + " line of " +
               std::to_string(c.l1.line_bytes) + " B per cycle per SM";
  k.bytes_per_cycle[1] = double(c.l2.slices) * c.l2.sectors_per_cycle_per_slice *
                         double(c.l1.sector_bytes);
  k.l2_sector_times_per_cycle = double(c.l2.slices) * c.l2.sectors_per_cycle_per_slice;
  k.l2_costs = {c.l2.request_sectors, c.l2.partial_write_sectors, c.l2.full_write_sectors,
                c.l2.partial_request_sectors};
  char b[240];
  std::snprintf(b, sizeof b,
                "the L2's %lld slices, each a sector (32 B) per cycle on its read path and one on "
                "its write path, a request costing %.2f sector more and a store to part of a "
                "sector %.1f sectors (read-modify-write); shared by the SMs with blocks resident",
                static_cast<long long>(c.l2.slices), c.l2.request_sectors,
                c.l2.partial_write_sectors);
  k.basis[1] = b;
  k.bytes_per_cycle[2] = c.peak_dram_bytes_per_cycle();
  k.basis[2] = "DRAM peak, shared by the SMs with blocks resident";
  return k;
}

int active_sms(const timing::Trace& t, uint64_t begin, uint64_t end) {
  std::vector<bool> seen(static_cast<size_t>(std::max(0, t.sm_count)), false);
  int n = 0;
  for (const timing::BlockRecord& b : t.blocks)
    if (b.begin < end && b.end > begin && b.sm >= 0 && b.sm < t.sm_count && !seen[b.sm]) {
      seen[b.sm] = true;
      ++n;
    }
  return n;
}

LinkUse link_use(const FlowRates& r, const LinkCapacities& c, int sms_sharing) {
  LinkUse u;
  const double cycles = double(r.end > r.begin ? r.end - r.begin : 0);
  const double share = double(std::max(1, sms_sharing));
  // lanes->L1 in tag-stage lines (its limit), the links below in bytes against the SM's share.
  double cap[kFlowLinks] = {cycles * c.tag_lines_per_cycle,
                                  cycles * c.bytes_per_cycle[1] / share,
                                  cycles * c.bytes_per_cycle[2] / share};
  double used[kFlowLinks] = {r.tag_lines, r.bytes[1], r.bytes[2]};
  if (c.l2_sector_times_per_cycle > 0) {  // the slices' busier path, in sector times
    cap[1] = cycles * c.l2_sector_times_per_cycle / share;
    used[1] = std::max(r.l2_read_time, r.l2_write_time);
    u.l2_write_path = r.l2_write_time > r.l2_read_time;
  }
  // Every SM's volume from the counter samples inside the window, where there are some.
  const double gpu_cycles = double(r.gpu_end > r.gpu_begin ? r.gpu_end - r.gpu_begin : 0);
  if (gpu_cycles > 0 && c.l2_sector_times_per_cycle > 0 && r.l2_sectors > 0) {
    const double per_sector = std::max(r.l2_read_time, r.l2_write_time) / r.l2_sectors;
    cap[1] = gpu_cycles * c.l2_sector_times_per_cycle;
    used[1] = double(r.gpu_l2_sectors) * per_sector;
    cap[2] = gpu_cycles * c.bytes_per_cycle[2];
    used[2] = double(r.gpu_dram_bytes);
    u.gpu_wide = true;
  }
  for (int k = 0; k < kFlowLinks; ++k) {
    u.fraction[k] = cap[k] > 0 ? used[k] / cap[k] : 0;
    if (u.fraction[k] > u.fraction[u.busiest]) u.busiest = k;
  }
  return u;
}

}  // namespace warplab::app
