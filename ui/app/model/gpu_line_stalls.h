// The GPU's per-line stall reasons beside the model's in the code view: CUPTI PC samples of an
// H100 (gpu/pc_sampling, branch pcsamp), mapped to PTX and CUDA lines and committed as data files
// under validation/data/stalls/ (lab/line_stalls.h, schema warplab.line-stalls/1), read here for
// the run shown. Samples and warp-cycles are different units, so only each line's mix (shares of
// its stalls) and each line's share of all stalls compare; the view shows both sides that way.
// No ImGui (tests/718).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "lab/line_stalls.h"
#include "ui/app/model/run_snapshot.h"

namespace warplab::app {

struct GpuLineStalls {
  std::map<int32_t, lab::StallMix> by_ptx, by_src;  // PTX line; line of the run's source file
  uint64_t total = 0;                               // samples over every line (and none)
  uint64_t max_line_ptx = 0, max_line_src = 0;      // the largest line's samples (bars)
  std::string device, driver, date, file;           // where the samples come from
  std::string gpu;    // the device's short name for labels ("H100", "H200"; "GPU" otherwise)
  std::string point;  // the sweep point measured ("stride=32"), "" outside a sweep
  std::string note;   // why there are none ("" when found)
};

// The GPU-side (source "gpu") data in the *.json files of `stalls_dir` for the run's experiment
// (by file name) measured with the run's parameter values and its launches' kernels, summed over
// launches; samples on the CUDA lines of the run's own source file (by file name).
//
// A measurement's values are the experiment's defaults (read from run.experiment_path when it
// opens), then its --set values, then its sweep point's ("stride=32": a data file of a sweep holds
// one kernel per point); each must equal the run's (numbers compared as numbers). So a stride-1
// measurement is never shown beside a stride-32 run, nor one of N = 2^20 beside N = 65536. When
// the experiment was measured only at other values, `note` names them. An H100's measurement is
// preferred to another GPU's (an H200's) at the same values.
GpuLineStalls find_gpu_line_stalls(const std::string& stalls_dir, const RunSnapshot& run);

// The stall mix without "selected" (issuing is not a stall), largest first, at most `top`,
// as (reason, share of the line's stall samples).
std::vector<std::pair<std::string, double>> gpu_stall_shares(const lab::StallMix& m, int top = 3);

// "NVIDIA H100 80GB HBM3" -> "H100", "NVIDIA H200" -> "H200"; "GPU" for a device not known here.
std::string gpu_short_name(const std::string& device);

// A reason key as the view shows it: the model's state names as they are; a CUPTI reason the model
// has no state for without CUPTI's counter prefix, marked as such ("dispatch_stall (GPU only)").
std::string gpu_reason_label(const std::string& reason);

}  // namespace warplab::app
