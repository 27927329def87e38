// Axes for the app's plots: "nice" tick positions and labels with units, linear or logarithmic.
//
// Every plot the app draws (counters over time, sweep curves) has ticks at round numbers
// (1, 2, 5 times a power of ten) with the unit on the label, so a value can be read off the
// axis; hover read-outs use the same formatting. No ImGui here: the draw code maps values to
// pixels with AxisScale and paints.
#pragma once

#include <string>
#include <vector>

namespace warplab::app {

struct AxisTick {
  double value = 0;
  std::string label;
};

// Engineering notation with an SI prefix: 3.35e12 "B/s" -> "3.35 TB/s", 0.000012 "s" -> "12 us"
// (units B, B/s, s and Hz take the prefix); counts keep it on the number: 1530 "cycles" ->
// "1.53K cycles". Three significant digits; "" unit allowed.
std::string format_si(double v, const std::string& unit);

// Ticks at 1, 2 or 5 x 10^k inside [lo, hi], about `target` of them (at least two when the
// range is not empty).
std::vector<AxisTick> linear_ticks(double lo, double hi, int target, const std::string& unit);
// Ticks at the powers of ten in [lo, hi] (lo > 0), and at 2 and 5 times them when the range
// spans fewer than three decades.
std::vector<AxisTick> log_ticks(double lo, double hi, const std::string& unit);

// Maps values in [lo, hi] to [0, 1], linearly or by log10 (lo, hi > 0).
struct AxisScale {
  double lo = 0, hi = 1;
  bool log = false;
  double to_unit(double v) const;
  double from_unit(double u) const;
};

}  // namespace warplab::app
