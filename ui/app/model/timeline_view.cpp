#include "ui/app/model/timeline_view.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

namespace warplab::app {

void TimelineView::fit(uint64_t begin, uint64_t end, double width) {
  width_px = std::max(1.0, width);
  first_cycle = static_cast<double>(begin);
  cycles_per_px = std::max(1e-3, static_cast<double>(end > begin ? end - begin : 1) / width_px);
}

void TimelineView::zoom_at(double x, double factor, double min_cpp, double max_cpp) {
  const double anchor = cycle_at(x);
  cycles_per_px = std::clamp(cycles_per_px * factor, min_cpp, max_cpp);
  first_cycle = anchor - x * cycles_per_px;
}

void TimelineView::pan_px(double dx) { first_cycle -= dx * cycles_per_px; }

void TimelineView::clamp_to(uint64_t begin, uint64_t end) {
  const double span = width_px * cycles_per_px;
  const double lo = static_cast<double>(begin) - 0.9 * span;
  const double hi = static_cast<double>(end) - 0.1 * span;
  first_cycle = std::clamp(first_cycle, lo, std::max(lo, hi));
}

std::pair<size_t, size_t> visible_range(const std::vector<timing::WarpSpan>& row, double c0,
                                        double c1) {
  // Spans are sorted and disjoint, so both begin and end increase along the row.
  auto first = std::partition_point(row.begin(), row.end(), [&](const timing::WarpSpan& s) {
    return static_cast<double>(s.end) <= c0;
  });
  auto last = std::partition_point(first, row.end(), [&](const timing::WarpSpan& s) {
    return static_cast<double>(s.begin) < c1;
  });
  return {static_cast<size_t>(first - row.begin()), static_cast<size_t>(last - row.begin())};
}

std::vector<SpanBox> prepare_row(const std::vector<timing::WarpSpan>& row, const TimelineView& view,
                                 float min_px) {
  std::vector<SpanBox> boxes;
  auto [first, last] = visible_range(row, view.first_cycle, view.last_cycle());
  std::array<double, timing::kWarpStateCount> weight{};
  auto dominant = [&] {
    int best = 0;
    for (int s = 1; s < timing::kWarpStateCount; ++s)
      if (weight[s] > weight[best]) best = s;
    return static_cast<timing::WarpState>(best);
  };
  for (size_t i = first; i < last; ++i) {
    const timing::WarpSpan& s = row[i];
    const float x0 = static_cast<float>(std::max(view.x_of(double(s.begin)), -1.0));
    const float x1 = static_cast<float>(std::min(view.x_of(double(s.end)), view.width_px + 1.0));
    const bool thin = x1 - x0 < min_px;
    if (!boxes.empty()) {
      SpanBox& b = boxes.back();
      // A thin span joins a box that is itself made of thin spans (or is thin), when no visible
      // gap separates them; a wide span always gets a box of its own.
      if (thin && x0 - b.x1 <= 1.0f && (b.merged() || b.x1 - b.x0 < min_px)) {
        b.x1 = std::max(b.x1, x1);
        weight[static_cast<int>(s.state)] += double(s.end - s.begin);
        ++b.count;
        b.state = dominant();
        continue;
      }
    }
    weight.fill(0);
    weight[static_cast<int>(s.state)] = double(s.end - s.begin);
    boxes.push_back(SpanBox{x0, x1, s.state, static_cast<uint32_t>(i), 1});
  }
  return boxes;
}

std::string format_cycles(double c) {
  char buf[32];
  const double a = std::fabs(c);
  if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3gM", c / 1e6);
  else if (a >= 1e4)
    std::snprintf(buf, sizeof buf, "%.4gk", c / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", c);
  return buf;
}

double tick_step(double cycles_per_px, double min_px) {
  const double raw = std::max(1.0, cycles_per_px * min_px);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

}  // namespace warplab::app
