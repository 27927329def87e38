// A/B: a pinned run against the run shown (say stride 1 against stride 32), reduced to the few
// figures that tell them apart, and the one line the app prints between them:
//   "4 -> 32 sectors/request; L1<->L2 31% -> 96% busy; 3.2x time"
// The link named is the busiest of the run shown (B) over its whole launch, by the memory flow's
// measure (memory_flow.h link_use). No ImGui (tests/718).
#pragma once

#include <array>
#include <string>

#include "ui/app/model/memory_flow.h"
#include "ui/app/model/run_snapshot.h"

namespace warplab::app {

struct RunFigures {
  double time_us = 0;              // the model's, summed over the run's launches
  double sectors_per_request = 0;  // global loads and stores together, every SM
  // Traced SM, first launch, over its steady state (memory_flow.h steady_window; the whole launch
  // for a grid of one wave).
  std::array<double, kFlowLinks> link_busy{};
  int busiest = 0;
  bool ok = false;
  // The kernels' own time (cycles / clock), without the launch overhead time_us adds (which
  // compares to CUDA events); 0 where unknown.
  double kernel_time_us = 0;
};

RunFigures run_figures(const RunSnapshot& run);

// "A -> B" for the figures that differ, B's busiest link named; the time ratio is the kernels'
// own where both have it, with the ratio including the launch overhead beside it ("2.4x kernel
// time (1.2x with launch overhead)": a short kernel's 4 us of launch hides its change);
// with_time = false leaves it out (the memory flow, where the line must fit on one row at 1280 px;
// the timeline's A/B heading gives the cycles). Examples (doctest below):
/// ```
/// RunFigures a{10, 4, {0.1, 0.31, 0.2}, 1, true}, b{32, 32, {0.9, 0.96, 0.3}, 1, true};
/// difference_line(a, b) == "4 -> 32 sectors/request; L1<->L2 31% -> 96% busy; 3.2x time"
/// ```
std::string difference_line(const RunFigures& a, const RunFigures& b, bool with_time = true);

const char* flow_link_name(int link);
// A link's use as the views print it: "95%"; "100%+" where requests arrived faster than the link
// serves them over the window (its queue grew: the model books a request when it is made, and a
// saturated L2 slice serves it later).
std::string link_use_text(double fraction);  // "lanes->L1", "L1<->L2", "L2<->DRAM"

}  // namespace warplab::app
