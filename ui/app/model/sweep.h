// Sweeps in the app: every point of an experiment's [sweep], run one after another on the worker
// thread, each point's run kept whole (so a click on the curve opens it in every panel), and the
// curves the sweep chart draws: time against the swept parameter, per launch, for the simulator
// and (when one ran) the real GPU.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/experiment.h"
#include "ui/app/model/run_snapshot.h"

namespace warplab::app {

// The parameter values of every point of exp's sweep, in the runner's order (first axis slowest).
std::vector<std::vector<std::pair<std::string, lab::Value>>> sweep_points(
    const lab::Experiment& exp);

struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> values;  // swept parameters at this point
  double x = 0;                                             // the first axis' value
  std::shared_ptr<const RunSnapshot> run;
};

struct SweepSnapshot {
  std::string experiment_path;
  std::vector<std::string> axes;   // swept parameter names
  size_t total = 0;                // points in the whole sweep
  std::vector<SweepPoint> points;  // finished so far, in order
  bool done = false, cancelled = false;
};

// One curve of the sweep chart.
struct SweepCurve {
  std::string name;        // "sim: histogram_global", "H100: histogram_global"
  bool gpu = false;        // the real GPU's times (else the simulator's)
  size_t launch = 0;       // launch index within a point's run
  std::vector<double> x;   // the first axis' values
  std::vector<double> y;   // microseconds (launch time, as CUDA events would time it)
  std::vector<int> point;  // index into SweepSnapshot::points for each (x, y)
};

// What the sweep chart plots per launch (the metric selector): the model's time (and the GPU's),
// global sectors per request, useful GB/s (the bytes the lanes asked for over the launch time:
// the traced SM's, scaled by all SMs' requests over its own) and achieved occupancy (the GPU's too
// where its counters were read).
enum class SweepMetric : int { Time = 0, SectorsPerRequest, UsefulGbps, Occupancy };
inline constexpr int kSweepMetrics = 4;
int sweep_metric_index(const std::string& name);  // "time", "sectors", "gbps", "occupancy"; -1
const char* sweep_metric_label(SweepMetric m);    // "time", "sectors/request", ...
const char* sweep_metric_unit(SweepMetric m);     // "us", "", "GB/s", "%"
// One launch's figure (nullopt: the run lacks it).
std::optional<double> launch_metric(const LaunchView& l, SweepMetric m, bool gpu);

// Time per launch against the first swept parameter, for every launch index of the runs: one
// curve for the simulator and one for the real GPU where it timed the launch. Points whose run
// failed or lacks the launch are left out of that curve.
std::vector<SweepCurve> sweep_curves(const SweepSnapshot& s,
                                     SweepMetric metric = SweepMetric::Time);

}  // namespace warplab::app
