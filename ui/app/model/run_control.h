// The run control beside Run: where the kernel runs (the model, the model and the real GPU, the
// real GPU alone), how the model runs it (every block in detail, or sampled) and the warp
// scheduling policy: the same choices as `warplab run --backend sim|both|gpu --sampled --sched`,
// which the app prints under its buttons so a run can be repeated on the command line.
#pragma once

#include <string>

namespace warplab::app {

enum class RunWhere { Sim = 0, Both = 1, Gpu = 2 };

struct RunControl {
  RunWhere where = RunWhere::Sim;
  bool sampled = false;       // --sampled
  std::string scheduler;      // --sched ("" = the preset's policy)
};

// "--backend gpu --sampled --sched gto": the flags of `warplab run` that give the same run (""
// for the defaults: the model alone, in full, with the preset's policy). The model's choices are
// left out for the real GPU alone, where no model runs.
std::string cli_flags(const RunControl& c);

// One short line saying that only the simulator runs here and why, from the GPU backend's error
// (gpu::Backend::open, dlopen): no raw loader text; "simulator only: no NVIDIA driver here (no
// libcuda.so.1)". "" for an empty error.
std::string gpu_absent_line(const std::string& open_error);

}  // namespace warplab::app
