// `warplab run --stalls`: the model's warp states and the GPU's sampled stall reasons, per line.
//
// The data is lab/line_stalls.h's; this unit gathers it from a finished run (the model's from
// each launch's timing result, the GPU's from what the GPU backend sampled into gpu["line_stalls"])
// and prints it as a table, one row per CUDA source line (PTX lines for PTX experiments):
//
//   strided_copy  (stride=32)           model: warp-cycles       H100: 91,204 samples
//   line                                share  top reasons        share  top reasons
//   coalescing.cu:16                     97%   long_sb 95% ...     96%   long_sb 93% ...
//
// "share" is the line's part of all the kernel's warp-cycles (model) or samples (GPU); the top
// reasons are that line's own mix. Reason names drop "stall_" and shorten scoreboard to "sb"; GPU
// reasons the model has no state for keep their CUPTI tail ("tex_throttle").
#pragma once

#include <string>
#include <vector>

#include "lab/experiment.h"
#include "lab/line_stalls.h"
#include "lab/runner.h"

namespace warplab::lab {

// One LineStalls per side with data: "sim" (timing mode) and "gpu" (--backend gpu/both with
// stalls). `set` is the run's --set list (recorded as given). GPU sampling failures (no ptxas,
// profiling not permitted, ...) are appended to `notes`, one line per distinct reason.
std::vector<LineStalls> collect_line_stalls(const Experiment& exp, const ExperimentResult& result,
                                            const std::vector<std::string>& set,
                                            std::vector<std::string>* notes = nullptr);

// The table above, for every kernel launch of the run(s); lines with less than `min_share` of
// their kernel's total on both sides are left out (their count is said).
std::string format_line_stalls(const std::vector<LineStalls>& runs, double min_share = 0.01);

// "long_sb" for "stall_long_scoreboard", "tex_throttle" for a CUPTI name.
std::string short_reason(const std::string& reason);

// A measured run's sweep point as LineStalls records it: "stride=32,block=256" ->
// {"stride=32", "block=256"}.
std::vector<std::string> split_point(const std::string& point);

}  // namespace warplab::lab
