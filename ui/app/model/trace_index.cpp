#include "ui/app/model/trace_index.h"

#include <algorithm>
#include <map>

namespace warplab::app {

TraceIndex build_trace_index(const timing::Trace& t) {
  TraceIndex ix;
  std::map<std::pair<int32_t, int32_t>, size_t> row_of;
  auto row = [&](int32_t sm, int32_t slot) -> TraceRow& {
    auto [it, fresh] = row_of.try_emplace({sm, slot}, ix.rows.size());
    if (fresh) ix.rows.push_back(TraceRow{sm, slot, {}, {}, {}});
    return ix.rows[it->second];
  };
  bool any = false;
  for (const timing::WarpSpan& s : t.spans) {
    row(s.sm, s.slot).spans.push_back(s);
    ix.first_cycle = any ? std::min(ix.first_cycle, s.begin) : s.begin;
    ix.last_cycle = any ? std::max(ix.last_cycle, s.end) : s.end;
    any = true;
  }
  for (uint32_t i = 0; i < t.issues.size(); ++i)
    row(t.issues[i].sm, t.issues[i].slot).issues.push_back(i);
  for (uint32_t i = 0; i < t.accesses.size(); ++i)
    row(t.accesses[i].sm, t.accesses[i].slot).accesses.push_back(i);
  for (TraceRow& r : ix.rows) {
    std::sort(
        r.spans.begin(), r.spans.end(),
        [](const timing::WarpSpan& a, const timing::WarpSpan& b) { return a.begin < b.begin; });
    std::stable_sort(r.issues.begin(), r.issues.end(),
                     [&](uint32_t a, uint32_t b) { return t.issues[a].cycle < t.issues[b].cycle; });
    std::stable_sort(r.accesses.begin(), r.accesses.end(), [&](uint32_t a, uint32_t b) {
      return t.accesses[a].issue < t.accesses[b].issue;
    });
  }
  // Rows were created in first-seen order; present them by SM, then slot.
  std::sort(ix.rows.begin(), ix.rows.end(), [](const TraceRow& a, const TraceRow& b) {
    return a.sm != b.sm ? a.sm < b.sm : a.slot < b.slot;
  });
  return ix;
}

const timing::WarpSpan* TraceIndex::span_at(size_t r, double cycle) const {
  if (r >= rows.size()) return nullptr;
  const auto& spans = rows[r].spans;
  auto it = std::partition_point(spans.begin(), spans.end(), [&](const timing::WarpSpan& s) {
    return static_cast<double>(s.end) <= cycle;
  });
  if (it == spans.end() || static_cast<double>(it->begin) > cycle) return nullptr;
  return &*it;
}

std::optional<uint32_t> TraceIndex::issue_at_or_before(const timing::Trace& t, size_t r,
                                                       double cycle) const {
  if (r >= rows.size()) return std::nullopt;
  const auto& is = rows[r].issues;
  auto it = std::partition_point(is.begin(), is.end(), [&](uint32_t i) {
    return static_cast<double>(t.issues[i].cycle) <= cycle;
  });
  if (it == is.begin()) return std::nullopt;
  return *(it - 1);
}

std::optional<uint32_t> TraceIndex::access_near(const timing::Trace& t, size_t r,
                                                double cycle) const {
  if (r >= rows.size()) return std::nullopt;
  const auto& as = rows[r].accesses;
  auto it = std::partition_point(as.begin(), as.end(), [&](uint32_t i) {
    return static_cast<double>(t.accesses[i].issue) <= cycle;
  });
  // Among the accesses issued by `cycle`, prefer the latest one still in flight.
  for (auto k = it; k != as.begin();) {
    --k;
    if (static_cast<double>(t.accesses[*k].ready) > cycle) return *k;
    if (it - k > 64) break;
  }
  if (it != as.begin()) return *(it - 1);
  if (it != as.end()) return *it;
  return std::nullopt;
}

int TraceIndex::row_of(int32_t sm, int32_t slot) const {
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].sm == sm && rows[i].slot == slot) return static_cast<int>(i);
  return -1;
}

}  // namespace warplab::app
