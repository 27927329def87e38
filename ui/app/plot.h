// One plot widget for every chart of the app (counters over time, sweep curves): axes with ticks
// at round numbers and units (ui/app/model/axis.h), linear or log scales, a legend, a hover
// read-out with the x and y values of the nearest point of each series, an optional limit line
// (a physical peak, drawn dashed) and a cursor. Drawn with ImGui's draw lists (ImPlot is not
// packaged in Debian).
#pragma once

#include <imgui.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warplab::app {

struct PlotSeries {
  std::string name;
  ImU32 color = IM_COL32(220, 220, 220, 255);
  std::vector<double> x, y;  // same length, x ascending
  bool markers = false;      // draw each point (sweeps); else a line only (time series)
  // Optional, same length as y: each point's range (min and max of repeated measurements),
  // drawn as a whisker and given in the hover read-out.
  std::vector<double> y_lo, y_hi;
};

struct PlotSpec {
  std::string title;
  std::string x_unit, y_unit;  // "cycles", "B/s", "us", ... (axis.h formats them)
  bool log_x = false, log_y = false;
  double x_interval = 0;          // > 0: each point covers [x - interval, x) (counter samples)
  std::optional<double> y_limit;  // a physical limit drawn as a dashed line (e.g. DRAM peak)
  std::string y_limit_label;
  std::optional<double> x_cursor;  // the timeline cursor
  bool y_from_zero = true;         // linear y axis starts at 0
  // Ticks at these x values (a sweep's swept values) instead of round numbers; empty: round.
  std::vector<double> x_ticks_at;
  std::optional<double> x_highlight;  // the points at this x are ringed (the open sweep point)
  // An extra line for the hover read-out at x (the nearest point of series 0); "" for none.
  std::function<std::string(double x)> hover_note;
};

// Draws the plot into a child region of `size`. Returns the index of the point of series 0 that
// was clicked (for opening a sweep point), or -1.
int draw_plot(const char* id, const PlotSpec& spec, const std::vector<PlotSeries>& series,
              ImVec2 size);

}  // namespace warplab::app
