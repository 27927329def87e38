// Measured reference curves for the sweep chart: the times a real GPU took for the same sweep, read
// from the committed measurement files (validation/data/<gpu>.json, written on a GPU machine by
// scripts/validate-gpu.sh; lab/validate.h). Lessons 2, 3 and 8 quote the H100's figures; this
// draws them beside the simulator's curve and the student's own GPU, labelled with the device and
// the date they were measured. Nothing is interpolated or scaled: a point of the curve is a
// corpus point whose experiment, parameter values and sweep row equal the sweep being shown.
// No ImGui (tests/711).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lab/experiment.h"
#include "lab/validate.h"

namespace warplab::app {

struct ReferenceCurve {
  std::string name;          // "NVIDIA H100 80GB HBM3, measured 2026-11-23: vec_add"
  std::string device, date;  // date: YYYY-MM-DD ("" when the file leaves it unknown)
  size_t launch = 0;         // launch index within the experiment
  std::vector<double> x;     // the swept parameter's value, ascending
  std::vector<double> y;     // median of the timed launches, microseconds
  std::vector<double> y_min, y_max;
  std::vector<std::string> ids;  // corpus point ids
};

struct ReferenceResult {
  std::vector<ReferenceCurve> curves;
  // Why a measured sweep of this experiment is not drawn ("measured at N=16777216; set N to
  // that value to compare"), "" when every measured point is drawn or there are none.
  std::string note;
};

// The measured curves of `file_exp`'s sweep (the experiment as loaded from its file: its
// parameters' defaults, launches and [sweep]). `current` holds the values of its other
// parameters that the sweep on screen used; a measured point belongs to the curve when each of
// them equals the point's value (its `set`, else the default). `base_dir` is the directory the
// data file's experiment paths are relative to (validation/, the manifest's). Only single-axis
// sweeps; a point timed over several launches is left out (the chart plots one launch a curve).
ReferenceResult reference_curves(const lab::MeasuredData& data, const std::string& base_dir,
                                 const lab::Experiment& file_exp,
                                 const std::map<std::string, double>& current);

// A group of launches (an experiment's `group` key, e.g. lesson 6's "nine kernels" and "fused")
// as the committed data measured it: the corpus point whose launches are exactly the group's
// kernels, at the parameter values on screen. Times are the sum of the launches' medians.
struct MeasuredGroup {
  std::string group, id, device, date;  // date: YYYY-MM-DD
  double time_us = 0;
  double dram_read_bytes = 0, dram_written_bytes = 0;
  // Bytes the kernels stored (global store sectors x 32): what they wrote into the L2, on its way
  // to DRAM; the model's "written" column counts the same (run_snapshot.h GroupTotals).
  double stored_bytes = 0;
};
// The measured groups of `file_exp` (as reference_curves reads points), in the order of the
// experiment's launches; groups without a matching point are left out.
std::vector<MeasuredGroup> measured_groups(const lab::MeasuredData& data,
                                           const std::string& base_dir,
                                           const lab::Experiment& file_exp,
                                           const std::map<std::string, double>& current);

// The data file for a preset ("h100-sxm" -> DIR/h100.json); the H100's when the preset has none
// (the lessons quote the H100). "" when neither exists.
std::string reference_data_path(const std::string& data_dir, const std::string& config);

}  // namespace warplab::app
