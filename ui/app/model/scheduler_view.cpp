#include "ui/app/model/scheduler_view.h"

#include <algorithm>

namespace warplab::app {

using timing::WarpState;

WarpState SchedulerColumn::main_stall() const {
  WarpState best = WarpState::Selected;
  double most = 0;
  for (int i = 0; i < timing::kWarpStateCount; ++i)
    if (stalled[size_t(i)] > most) {
      most = stalled[size_t(i)];
      best = static_cast<WarpState>(i);
    }
  return best;
}

SchedulerView build_scheduler_view(const timing::Trace& t, const TraceIndex& index, int sm) {
  SchedulerView v;
  const int nsp = t.sub_partitions;
  bool traced = false;
  for (const TraceRow& r : index.rows) traced = traced || r.sm == sm;
  if (nsp <= 0 || !traced) return v;
  v.sm = sm;
  v.schedulers = nsp;
  v.rows.assign(size_t(nsp), {});
  v.runs.assign(size_t(nsp), {});
  bool any = false;
  for (size_t i = 0; i < index.rows.size(); ++i) {
    const TraceRow& r = index.rows[i];
    if (r.sm != sm || r.spans.empty()) continue;
    v.rows[size_t(r.slot % nsp)].push_back(int(i));
    v.first_cycle = any ? std::min(v.first_cycle, r.spans.front().begin) : r.spans.front().begin;
    v.last_cycle = any ? std::max(v.last_cycle, r.spans.back().end) : r.spans.back().end;
    any = true;
  }
  for (int s = 0; s < nsp; ++s) {
    const std::vector<int>& rows = v.rows[size_t(s)];
    // 1. Every cycle where some warp of this scheduler changes state (or the view starts/ends).
    std::vector<uint64_t> edges = {v.first_cycle, v.last_cycle};
    for (int r : rows)
      for (const timing::WarpSpan& sp : index.rows[size_t(r)].spans) {
        edges.push_back(sp.begin);
        edges.push_back(sp.end);
      }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    // 2. Between two edges every warp keeps its state: one outcome for the whole stretch.
    std::vector<size_t> at(rows.size(), 0);  // per row, the first span not yet ended
    std::vector<SchedulerRun>& out = v.runs[size_t(s)];
    for (size_t e = 0; e + 1 < edges.size(); ++e) {
      const uint64_t c = edges[e];
      SchedulerRun run;
      run.begin = c;
      run.end = edges[e + 1];
      std::array<int, timing::kWarpStateCount> count{};
      for (size_t k = 0; k < rows.size(); ++k) {
        const auto& spans = index.rows[size_t(rows[k])].spans;
        while (at[k] < spans.size() && spans[at[k]].end <= c) ++at[k];
        if (at[k] == spans.size() || spans[at[k]].begin > c) continue;  // no warp in the slot
        const WarpState st = spans[at[k]].state;
        ++run.warps;
        ++count[size_t(st)];
        if (st == WarpState::Selected || st == WarpState::NotSelected) ++run.ready;
        if (st == WarpState::Selected && run.slot < 0) run.slot = index.rows[size_t(rows[k])].slot;
      }
      if (run.slot >= 0) {
        run.kind = SchedulerRun::Kind::Issued;
      } else if (run.warps > 0) {
        run.kind = SchedulerRun::Kind::Stalled;
        int most = 0;
        for (int i = 0; i < timing::kWarpStateCount; ++i)
          if (count[size_t(i)] > most) {
            most = count[size_t(i)];
            run.why = static_cast<WarpState>(i);
          }
      }
      if (!out.empty()) {
        SchedulerRun& p = out.back();
        if (p.kind == run.kind && p.slot == run.slot && p.why == run.why && p.warps == run.warps &&
            p.ready == run.ready) {
          p.end = run.end;
          continue;
        }
      }
      out.push_back(run);
    }
  }
  return v;
}

const SchedulerRun* SchedulerView::run_at(int s, uint64_t cycle) const {
  if (s < 0 || s >= schedulers) return nullptr;
  const auto& r = runs[size_t(s)];
  auto it = std::partition_point(r.begin(), r.end(),
                                 [&](const SchedulerRun& x) { return x.end <= cycle; });
  if (it == r.end() || it->begin > cycle) return nullptr;
  return &*it;
}

SchedulerColumn SchedulerView::totals(int s, double c0, double c1) const {
  SchedulerColumn col;
  if (s < 0 || s >= schedulers || c1 <= c0) return col;
  const auto& r = runs[size_t(s)];
  auto it = std::partition_point(r.begin(), r.end(),
                                 [&](const SchedulerRun& x) { return double(x.end) <= c0; });
  for (; it != r.end() && double(it->begin) < c1; ++it) {
    const double d = std::min(c1, double(it->end)) - std::max(c0, double(it->begin));
    if (d <= 0) continue;
    col.cycles += d;
    switch (it->kind) {
      case SchedulerRun::Kind::Issued:
        col.issued += d;
        break;
      case SchedulerRun::Kind::Empty:
        col.empty += d;
        break;
      case SchedulerRun::Kind::Stalled:
        col.stalled[size_t(it->why)] += d;
        break;
    }
  }
  return col;
}

std::vector<SchedulerColumn> SchedulerView::columns(int s, double first, double cycles_per_column,
                                                    int n) const {
  std::vector<SchedulerColumn> out(size_t(std::max(0, n)));
  for (int i = 0; i < n; ++i)
    out[size_t(i)] = totals(s, first + i * cycles_per_column, first + (i + 1) * cycles_per_column);
  return out;
}

}  // namespace warplab::app
