// Before a run: how big it is (threads, buffer bytes) and, from the experiment's last run, about
// how long the simulator will take, so the app can warn before a run that takes minutes or a size
// that will not fit in memory. The timing model's speed is roughly proportional to the threads it
// simulates (warp instructions per thread stay the same when only the size changes), so the
// estimate scales the last run's wall time by the ratio of threads. Without a previous run there
// is no estimate: the instruction count per thread is not known before the kernel runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "lab/experiment.h"

namespace warplab::app {

struct RunSize {
  double threads = 0;       // over every launch (repeats counted)
  double buffer_bytes = 0;  // every buffer's elements x element size
  std::string error;        // an expression failed ("" when the figures are complete)
};

RunSize run_size(const lab::Experiment& exp);

// Seconds the simulator will take for `now`, from a previous run of `before` that took
// `before_wall_s`; nullopt without a usable previous run.
std::optional<double> estimate_wall_s(const RunSize& now, const RunSize& before,
                                      double before_wall_s);

// Physical memory of this machine in bytes (0 when unknown).
double host_memory_bytes();

}  // namespace warplab::app
