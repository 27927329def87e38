#include "ui/app/model/ab_cursor.h"

#include <algorithm>

namespace warplab::app {

double launch_fraction(double cycle, uint64_t first, uint64_t last) {
  if (last <= first) return 0;
  return std::clamp((cycle - double(first)) / double(last - first), 0.0, 1.0);
}

double relative_cycle(double b_cycle, uint64_t b_first, uint64_t b_last, uint64_t a_first,
                      uint64_t a_last) {
  return double(a_first) + launch_fraction(b_cycle, b_first, b_last) *
                               double(a_last > a_first ? a_last - a_first : 0);
}

TimelineView aligned_view(const TimelineView& shown, uint64_t b_first, uint64_t a_first) {
  TimelineView v = shown;
  v.first_cycle = shown.first_cycle - double(b_first) + double(a_first);
  return v;
}

}  // namespace warplab::app
