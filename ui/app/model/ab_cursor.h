// A/B in the trace views: the pinned run (A) drawn beside the run shown (B) on one relative
// cursor. The two launches take different numbers of cycles (stride 1 against stride 32: about
// 3x), so "the same moment" means the same fraction of each launch: the cursor at 40% of B's
// launch puts A's cursor at 40% of A's. The timelines share one scale (cycles per pixel) with both
// launches starting at the same x, so the shorter one ends visibly earlier. No ImGui (tests/719).
#pragma once

#include <cstdint>

#include "ui/app/model/timeline_view.h"

namespace warplab::app {

// The fraction of [first, last] that `cycle` is at, clamped to [0, 1] (0 for an empty launch).
double launch_fraction(double cycle, uint64_t first, uint64_t last);

// A's cycle at the same fraction of its launch [a_first, a_last] as `b_cycle` is of B's.
double relative_cycle(double b_cycle, uint64_t b_first, uint64_t b_last, uint64_t a_first,
                      uint64_t a_last);

// A's view for B's `shown` view: the same zoom and width, shifted so that each launch's first
// cycle lands at the same x (cycle n of A's launch under cycle n of B's).
TimelineView aligned_view(const TimelineView& shown, uint64_t b_first, uint64_t a_first);

}  // namespace warplab::app
