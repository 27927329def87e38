#include "ui/app/model/memory_flow.h"

#include <algorithm>
#include <bit>

namespace warplab::app {
namespace {

using Kind = timing::AccessRecord::Kind;

bool through_l1(Kind k) { return k != Kind::SharedLoad && k != Kind::SharedStore; }

// Bytes one access delivers on each link. Loads: every sector from the L1 to the LSU, the L1's
// misses from the L2, the L2's misses from DRAM. Stores and atomics: every sector to the L2 (the
// L1 does not keep written data); a store's later DRAM write-back is not an access's own.
std::array<uint64_t, kFlowLinks> link_bytes(const timing::AccessRecord& a) {
  const uint64_t s = FlowIndex::kSectorBytes;
  const bool load = a.kind == Kind::GlobalLoad || a.kind == Kind::LocalLoad;
  return {uint64_t(a.sectors) * s, uint64_t(load ? a.l1_miss_sectors : a.sectors) * s,
          uint64_t(load ? a.dram_sectors : 0) * s};
}

}  // namespace

double flow_gbps(uint64_t bytes, uint64_t cycles, double clock_mhz) {
  if (cycles == 0) return 0;
  return double(bytes) / double(cycles) * clock_mhz * 1e6 / 1e9;
}

FlowIndex build_flow_index(const timing::Trace& t) {
  FlowIndex ix;
  std::vector<uint32_t> by_done;
  for (uint32_t i = 0; i < t.accesses.size(); ++i) {
    const timing::AccessRecord& a = t.accesses[i];
    if (!through_l1(a.kind) || a.sectors == 0) continue;
    ix.by_issue.push_back(i);
    by_done.push_back(i);
    ix.longest = std::max(ix.longest, a.ready > a.issue ? a.ready - a.issue : 0);
  }
  auto issue_order = [&](uint32_t x, uint32_t y) {
    return t.accesses[x].issue < t.accesses[y].issue;
  };
  auto done_order = [&](uint32_t x, uint32_t y) {
    return t.accesses[x].ready < t.accesses[y].ready;
  };
  std::stable_sort(ix.by_issue.begin(), ix.by_issue.end(), issue_order);
  std::stable_sort(by_done.begin(), by_done.end(), done_order);
  ix.cum_bytes.assign(1, {});
  ix.cum_useful.assign(1, 0);
  ix.cum_moved.assign(1, 0);
  for (uint32_t i : by_done) {
    const timing::AccessRecord& a = t.accesses[i];
    ix.done_cycle.push_back(a.ready);
    auto next = ix.cum_bytes.back();
    const auto b = link_bytes(a);
    for (int k = 0; k < kFlowLinks; ++k) next[k] += b[k];
    ix.cum_bytes.push_back(next);
    ix.cum_useful.push_back(ix.cum_useful.back() +
                            uint64_t(std::popcount(a.exec_mask)) * a.access_bytes);
    ix.cum_moved.push_back(ix.cum_moved.back() + b[0]);
  }
  if (!ix.by_issue.empty()) {
    ix.first_cycle = t.accesses[ix.by_issue.front()].issue;
    ix.last_cycle = ix.done_cycle.back();
  }
  return ix;
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
    item.from_dram = item.store ? 0 : a.dram_sectors;
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
        st.sectors[2] += item.from_dram;
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
  // Accesses whose data was back in [begin, end).
  const size_t lo =
      std::lower_bound(done_cycle.begin(), done_cycle.end(), begin) - done_cycle.begin();
  const size_t hi =
      std::lower_bound(done_cycle.begin(), done_cycle.end(), end) - done_cycle.begin();
  if (hi > lo) {
    for (int k = 0; k < kFlowLinks; ++k) r.bytes[k] = cum_bytes[hi][k] - cum_bytes[lo][k];
    r.useful_bytes = cum_useful[hi] - cum_useful[lo];
    r.moved_bytes = cum_moved[hi] - cum_moved[lo];
  }
  // Whole GPU: counter samples cover [cycle - interval, cycle); those wholly inside the window.
  for (size_t i = 0; i < t.counters.size(); ++i) {
    const uint64_t c_end = t.counters[i].cycle;
    const uint64_t c_begin = i > 0 ? t.counters[i - 1].cycle : 0;
    if (c_begin >= begin && c_end <= end && c_end > c_begin) {
      if (r.gpu_end == 0) r.gpu_begin = c_begin;
      r.gpu_end = c_end;
      r.gpu_dram_bytes += t.counters[i].dram_bytes;
    }
  }
  return r;
}

}  // namespace warplab::app
