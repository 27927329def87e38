// The warp timeline's geometry: which cycles are on screen, and where each span lands in pixels.
//
// Like Tracy's timeline, drawing is two-phase. prepare_row() turns one row's spans (one warp slot
// of one SM) into boxes in pixels for the current view: spans outside the view are culled by
// binary search, and runs of spans narrower than a pixel are merged into one box coloured by the
// state that covers most of it, so a 10-million-cycle trace draws as fast as a short one. The
// panel then paints the boxes. Nothing here knows about ImGui, so tests/701 checks it headless.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/timing/trace.h"

namespace warplab::app {

struct TimelineView {
  double first_cycle = 0;    // cycle at the left edge of the track area
  double cycles_per_px = 1;  // zoom: > 0
  double width_px = 1;       // track area width

  double x_of(double cycle) const { return (cycle - first_cycle) / cycles_per_px; }
  double cycle_at(double x) const { return first_cycle + x * cycles_per_px; }
  double last_cycle() const { return cycle_at(width_px); }

  // Shows [begin, end) across `width` pixels.
  void fit(uint64_t begin, uint64_t end, double width);
  // Zooms by `factor` (< 1 zooms in) keeping the cycle under pixel `x` where it is; the zoom is
  // clamped to [min_cycles_per_px, max_cycles_per_px].
  void zoom_at(double x, double factor, double min_cycles_per_px, double max_cycles_per_px);
  // Moves the view by `dx` pixels (drag right = earlier cycles come into view).
  void pan_px(double dx);
  // Keeps at least part of [begin, end) on screen.
  void clamp_to(uint64_t begin, uint64_t end);
};

// One painted box of a row.
struct SpanBox {
  float x0 = 0, x1 = 0;                                   // pixels from the track's left edge
  timing::WarpState state = timing::WarpState::Selected;  // the state covering most of the box
  uint32_t first = 0, count = 1;                          // the spans it stands for (row indices)
  bool merged() const { return count > 1; }
};

// Indices [first, last) into `row` (sorted by begin, non-overlapping) that overlap [c0, c1).
std::pair<size_t, size_t> visible_range(const std::vector<timing::WarpSpan>& row, double c0,
                                        double c1);

// Culls and merges one row for `view`. Boxes narrower than `min_px` are merged with neighbours
// until the merged box is at least `min_px` wide or a gap of more than a pixel interrupts it.
std::vector<SpanBox> prepare_row(const std::vector<timing::WarpSpan>& row, const TimelineView& view,
                                 float min_px = 1.0f);

// "1,234" / "12.3k" / "4.56M" cycles: tick labels.
std::string format_cycles(double cycles);
// A "nice" tick step (1, 2, 5 x 10^k cycles) so that ticks are at least `min_px` apart.
double tick_step(double cycles_per_px, double min_px);

}  // namespace warplab::app
