// One finished run of an experiment, as the app shows it: an immutable snapshot built on the
// worker thread and handed to the UI whole (run_worker.h). The UI never sees the simulator's live
// state, only this.
//
// run_traced() is one call to lab::Runner, the same path as `warplab run --trace`: the current
// parameter values, the timing model with the trace captured for every launch, and the real GPU
// beside it (backend "both") when one opens; otherwise the simulator alone, with the reason kept
// in gpu_note. The snapshot only reshapes the runner's result for drawing.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/check.h"
#include "lab/experiment.h"
#include "lab/metrics_json.h"
#include "sim/func/launch.h"
#include "sim/timing/gpu_model.h"
#include "ui/app/model/code_listing.h"
#include "ui/app/model/memory_flow.h"
#include "ui/app/model/tensor_activity.h"

namespace warplab::app {

struct RunRequest {
  lab::Experiment experiment;  // with the parameter values to use
  std::string config;          // timing-model preset ("" = the default, h100-sxm)
  int trace_sm = 0;            // the SM traced in full detail
  uint64_t max_trace_events = 400'000;
  bool use_gpu = true;  // run on a real GPU too (backend both) when one opens
  // The run control beside Run, as `warplab run` spells it (run_control.h): the real GPU alone
  // (`--backend gpu`, with use_gpu; no model, no trace), sampled simulation (`--sampled`) and the
  // warp scheduling policy (`--sched`, "" = the preset's).
  bool gpu_only = false;
  bool sampled = false;
  std::string warp_scheduler;
  // Every launch starts with an empty L2, on the simulator and the GPU alike (false: a launch
  // finds what the previous ones left, as back-to-back launches do on a GPU).
  bool cold_l2 = true;
  // Set while the run should stop (the worker's Cancel): the timing loop polls it and the run
  // ends within a few simulated cycles with the error "cancelled" (lab::RunOptions::cancel).
  const std::atomic<bool>* cancel = nullptr;
};

// The real GPU's figures for one launch (backend both), from the runner's `gpu` record.
struct GpuLaunchView {
  std::optional<double> time_us, min_us, max_us;  // median of the timed launches, and the range
  int repeats = 0;
  // Hardware counters under the simulator's names (gpu/counters.h), when they were read.
  std::optional<double> cycles, warp_instructions, achieved_occupancy_pct;
  std::string counters_note;  // why hardware counters are missing ("" when read)
  std::string problem;        // the GPU failed or skipped this launch, or buffers differ
  std::string compare;        // "all 3 buffers equal (bit-exact)" ...
  // Each figure beside the simulator's (lab/metrics_json.h): time, cycles, instructions, memory.
  std::vector<lab::SideBySideRow> rows;
};

struct LaunchView {
  std::string kernel, entry;  // as written; PTX entry
  std::string group;          // the experiment's `group` for this launch ("" = none)
  func::Dim3 grid, block;
  int registers = 0;                                   // from nvJitLink (0 = unknown)
  std::shared_ptr<const timing::TimingResult> timing;  // the runner's, with its trace
  double sim_wall_s = 0;
  std::optional<GpuLaunchView> gpu;  // when the run used a real GPU
};

// A buffer's contents after the run, for the buffers view (numbers or a heat map).
struct BufferView {
  std::string name, type;      // "warp_id", "i32"
  uint64_t count = 0;          // elements in the buffer
  std::vector<double> values;  // the first kMaxBufferValues of them
  bool is_integer = false;
};
inline constexpr uint64_t kMaxBufferValues = 1u << 22;

struct RunSnapshot {
  std::string experiment_path, experiment_name, config;
  bool cold_l2 = true;     // the request's L2 convention (shown next to the numbers)
  std::string error;       // the whole run failed before or between launches
  bool cancelled = false;  // it failed because Cancel was pressed (the app keeps the run shown)
  std::vector<std::pair<std::string, std::string>> params;  // name, value used
  std::vector<LaunchView> launches;
  std::vector<lab::CheckResult> checks;
  std::vector<BufferView> buffers;  // final contents (the simulator's)
  std::string backend;              // the runner's backend: "both" or "sim"
  std::string gpu_device;           // the real GPU's name ("" without one)
  std::string gpu_note;             // why there is no real GPU column ("" with one)
  bool sampled = false;             // the request's --sampled
  std::string warp_scheduler;       // the request's --sched ("" = the preset's)
  // mma.sync lines of the PTX: their tensor-pipe issue interval and latency in the preset
  // (tensor_pipe.h) and shape, for the timeline's tensor-pipe rows and the lanes view's fragments.
  std::map<int32_t, MmaLine> mma_lines;
  std::vector<std::string> notes;   // sweeps, resource usage, compile warnings
  std::string source_path;          // the kernel's CUDA (or PTX) file
  std::vector<std::string> source_lines;
  int32_t source_file_index = -1;           // its index in the PTX module's .file table
  std::map<int32_t, std::string> ptx_text;  // PTX line -> instruction as written
  std::map<int32_t, int32_t> ptx_to_src;    // PTX line -> line in source_path (kernel's own)
  // The code view's derived listings (code_listing.h): the model's schedule and ptxas's SASS.
  std::vector<ListingLine> schedule;
  SassListing sass;
  // The preset's per-SM capacities of the memory flow's links, bytes per SM cycle (the flow
  // view's % busy; memory_flow.h link_capacities).
  LinkCapacities links;
  double wall_s = 0;
  double threads = 0;  // over every launch (run_estimate.h), for estimating the next run

  bool ok() const { return error.empty(); }
  // Per source line: warp instructions issued and stall warp-cycles (every state but selected),
  // summed over the run's launches.
  struct SourceLineStat {
    uint64_t warp_instructions = 0, thread_instructions = 0, stall_cycles = 0, warp_cycles = 0;
  };
  std::map<int32_t, SourceLineStat> source_line_stats() const;
};

RunSnapshot run_traced(const RunRequest& request);

// Totals of one `group` of launches (lessons/FORMAT.md), for side-by-side comparisons such as
// nine elementwise kernels against one fused kernel.
struct GroupTotals {
  std::string name;
  int launches = 0;
  double sim_time_us = 0;     // sum of the model's launch times (overhead included)
  double sim_dram_bytes = 0;  // read + written
  // What the kernels read from DRAM and wrote to memory: writes count the sectors stored to the
  // L2 (the model's L2 keeps written data until evicted, so a short run writes little to DRAM
  // itself; every written sector must reach DRAM eventually, which fusion saves).
  double sim_read_bytes = 0, sim_written_bytes = 0;
  double sim_warp_instructions = 0;
  std::optional<double> gpu_time_us;  // sum of the GPU's medians, when it timed every launch
  std::optional<double> gpu_warp_instructions;  // when the GPU's counters were read for all
};
// The groups of a run in order of first appearance (empty when no launch has a group).
std::vector<GroupTotals> group_totals(const RunSnapshot& run);

}  // namespace warplab::app
