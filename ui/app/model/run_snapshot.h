// One finished run of an experiment, as the app shows it: an immutable snapshot built on the
// worker thread and handed to the UI whole (run_worker.h). The UI never sees the simulator's live
// state, only this.
//
// run_traced() runs the experiment's launches in the timing model with trace capture on, using
// the lab's public pieces in the same order as lab::Runner::run_once (compile, buffers, bind each
// launch, run, read back, check). It exists because lab::RunOptions has no way to ask for the
// trace yet; when it does, this should become a call to the runner.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/check.h"
#include "lab/experiment.h"
#include "sim/func/launch.h"
#include "sim/timing/gpu_model.h"

namespace warplab::app {

struct RunRequest {
  lab::Experiment experiment;      // with the parameter values to use
  std::string config;              // timing-model preset ("" = the default, h100-sxm)
  int trace_sm = 0;                // the SM traced in full detail
  uint64_t max_trace_events = 400'000;
  bool probe_gpu = true;           // ask the GPU backend whether a real GPU is there
};

struct LaunchView {
  std::string kernel, entry;       // as written; PTX entry
  func::Dim3 grid, block;
  int registers = 0;               // from nvJitLink (0 = unknown)
  std::optional<timing::TimingResult> timing;  // with its trace
  std::string error;               // the launch could not run (bad input / model error)
  double sim_wall_s = 0;
  std::optional<double> gpu_time_us;  // a real GPU's time, when one was measured
};

struct RunSnapshot {
  std::string experiment_path, experiment_name, config;
  std::string error;               // the whole run failed before or between launches
  std::vector<std::pair<std::string, std::string>> params;  // name, value used
  std::vector<LaunchView> launches;
  std::vector<lab::CheckResult> checks;
  std::string gpu_note;            // why real-GPU times are missing ("" when present)
  std::vector<std::string> notes;  // sweeps, resource usage, compile warnings
  std::string source_path;         // the kernel's CUDA (or PTX) file
  std::vector<std::string> source_lines;
  int32_t source_file_index = -1;  // its index in the PTX module's .file table
  std::map<int32_t, std::string> ptx_text;  // PTX line -> instruction as written
  std::map<int32_t, int32_t> ptx_to_src;    // PTX line -> line in source_path (kernel's own)
  double wall_s = 0;

  bool ok() const { return error.empty(); }
  // Per source line: warp instructions issued and stall warp-cycles (every state but selected),
  // summed over the run's launches.
  struct SourceLineStat {
    uint64_t warp_instructions = 0, thread_instructions = 0, stall_cycles = 0, warp_cycles = 0;
  };
  std::map<int32_t, SourceLineStat> source_line_stats() const;
};

RunSnapshot run_traced(const RunRequest& request);

}  // namespace warplab::app
