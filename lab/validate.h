// Validation of the timing model against a real GPU: the corpus, the measured data, running the
// corpus on the simulator, the error statistics and the correlation plot (`warplab validate`).
//
// The corpus (validation/corpus.toml) is a list of points: an experiment file, parameter
// overrides (`set`), for a sweep experiment the row (`row`), and which launches make up the
// point's time (`launch`: kernel names; their times are summed; default every launch). Points
// that share experiment, set and row are one simulator run.
//
// The measured data (validation/data/<device>.json, schema "warplab.validation-data/1") is what
// scripts/validate-gpu.sh writes on a GPU machine with WarpLab's own GPU backend: per point the
// CUDA-event time (median, min, max of the timed launches) and the CUPTI counters, with the
// device, driver, date and the L2 convention it was measured with. Both sides use the cold
// convention (L2 emptied before every timed launch on the GPU; every launch starts with an empty
// L2 in the simulator), as Triton's do_bench does.
//
// Errors: the time error of a point is |sim - gpu| / gpu; MAPE is its mean over the points that
// have GPU data, "worst" its maximum, "within20" how many are within 20%.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::lab {

struct CorpusPoint {
  std::string id;
  std::string experiment;           // as written in the manifest (relative to it)
  std::string experiment_path;      // resolved against the manifest's directory
  std::vector<std::string> set;     // NAME=VALUE overrides, as `warplab run --set` takes them
  std::vector<std::string> row;     // NAME=VALUE per swept parameter (sweep experiments)
  std::vector<std::string> launch;  // kernel names whose launches make up the time ({} = all)
  std::string mechanism;
  // Which set of kernels the point belongs to ("" = the corpus proper): a generalization set
  // ("gen1", "gen2") written before the model was changed for it, whose first simulated answers
  // validation/data/first-answers.json keeps (lab/first_answers.h).
  std::string group;
  bool quick = false;
  bool heavy = false;  // minutes to simulate: run only when asked (`warplab validate --heavy`)
  int line = 0;        // in the manifest
};

// Reads a manifest; every error names file:line (unknown keys, missing id/experiment/mechanism,
// duplicate ids, malformed NAME=VALUE).
Expected<std::vector<CorpusPoint>> parse_corpus(const std::string& toml_text,
                                                const std::string& path);
Expected<std::vector<CorpusPoint>> load_corpus(const std::string& path);

// A lesson comparison ([[comparison]] in the manifest): the ratio of two points' times (kernel A
// over kernel B, or a sweep point over its base), what a lesson teaches. Issue 10's target: the
// simulator's ratio in the GPU's direction and within 20% of it.
struct CorpusComparison {
  std::string id;
  std::string numerator, denominator;  // point ids
  int line = 0;                        // in the manifest
};
// Reads the manifest's [[comparison]] tables (none is fine); every error names file:line
// (unknown keys, a missing or unknown point id, a duplicate id).
Expected<std::vector<CorpusComparison>> parse_comparisons(const std::string& toml_text,
                                                          const std::string& path,
                                                          const std::vector<CorpusPoint>& points);
Expected<std::vector<CorpusComparison>> load_comparisons(const std::string& path,
                                                         const std::vector<CorpusPoint>& points);

// One comparison judged: the two ratios; the direction agrees when both lie on the same side of
// 1, or both within kEvenRatio of it (no difference to teach); within20: |sim / gpu - 1| <= 0.2.
inline constexpr double kEvenRatio = 0.05;
struct ComparisonJudgement {
  double sim_ratio = 0, gpu_ratio = 0;
  bool direction = false, within20 = false;
};
ComparisonJudgement judge_comparison(double sim_ratio, double gpu_ratio);

// Counters compared side by side, under the GPU backend's keys (gpu/counters.cpp), plus the
// derived "sectors" (global load + store sectors), "dram_bytes" (read + written) and
// "shared_bank_conflicts" (loads + stores).
using CounterMap = std::map<std::string, double>;

// One point as measured on the GPU.
struct MeasuredPoint {
  std::string id;
  bool ok = false;
  std::string error;  // why not, when !ok
  double time_us = 0, min_us = 0, max_us = 0;
  bool l2_flushed = false;
  CounterMap counters;
  // When it was measured (ISO 8601, as the file records it): the file's date, or for a point kept
  // from an earlier file by `validate-gpu.sh --merge`, that file's date ("" when a chain of
  // merges leaves it unknown).
  std::string date;
  // The point's definition when it was measured (a stale file is reported, not compared).
  std::string experiment;
  std::vector<std::string> set, row, launch;
};

struct MeasuredData {
  std::string path;
  std::string device, driver, cuda, date, l2_convention;
  std::map<std::string, MeasuredPoint> points;  // by id
};

Expected<MeasuredData> parse_measured(const std::string& json_text, const std::string& path);
Expected<MeasuredData> load_measured(const std::string& path);

// The data file's stem for a preset: "h100-sxm" -> "h100", "h200" -> "h200", else the name.
std::string measured_slug(const std::string& config);

// "" when the measured point was taken with the manifest's definition, else what differs.
std::string definition_mismatch(const CorpusPoint& p, const MeasuredPoint& m);

// A point's simulator result.
struct SimPoint {
  bool ok = false;
  bool skipped = false;  // a Triton kernel where Triton is not installed (error says why)
  std::string error;     // run error, fault or failed check
  double time_us = 0;
  double wall_s = 0;  // wall time of the run the point belongs to
  // The point's launches' blocks, and of those the ones simulated in detail (fewer only in a
  // sampled run, ValidateOptions::sampled).
  uint64_t blocks = 0, detailed_blocks = 0;
  uint64_t widest_launch_blocks = 0;  // the most blocks of any one of its launches
  double cycles = 0;  // the launches' simulated cycles
  double sim_s = 0;   // wall time of the point's launches in the timing model (no compile)
  CounterMap counters;
  std::string note;  // why ptxas's register counts are missing ("" when present)
};

struct ValidateOptions {
  std::string config;   // timing preset ("" = h100-sxm)
  bool cold_l2 = true;  // every launch starts with an empty L2 (the GPU data's convention)
  unsigned jobs = 1;    // runs simulated in parallel (results do not depend on it)
  // Host threads inside each run (timing::TimingOptions::threads; 0 = all cores), at least:
  // jobs x threads host threads in all, which a run measured to cost a large share of the whole
  // gets more of (validate_schedule.h; results do not depend on either).
  int threads = 1;
  // Measured seconds per point id on one thread (load_costs, validation/sim-cost.tsv; a run
  // costs its points' sum): only order the runs and size their threads (validate_schedule.h);
  // {} = none measured (heavy runs first, then the corpus's order, each on `threads`).
  std::map<std::string, double> cost_s;
  // Called once before the runs start with the plan: per run in start order, its first point's
  // id, its host threads and its expected cost (s; measured, or its kind's mean).
  std::function<void(const std::vector<std::string>& ids, const std::vector<int>& threads,
                     const std::vector<double>& cost_s, unsigned host_threads)>
      plan;
  bool sampled = false;  // RunOptions::sampled (validate --sampled runs each point both ways)
  // Called after each run with its points' ids and results (from worker threads, one call at a
  // time), so that a run stopped part-way has still reported what it finished.
  std::function<void(const std::vector<std::string>& ids, const std::vector<SimPoint>& results,
                     double wall_s)>
      progress;
};

// Runs the points on the simulator in timing mode; results in the points' order.
std::vector<SimPoint> simulate_corpus(const std::vector<CorpusPoint>& points,
                                      const ValidateOptions& options);

// `validate --sampled`: every point simulated in full and sampled (sim/timing/sampling.h), the
// sampled cycles' error against the full model's and the wall-time speed-up.
struct SampledPoint {
  std::string id;
  bool heavy = false;
  bool ok = false;
  std::string error;  // either run failed
  double full_cycles = 0, sampled_cycles = 0;
  double err_pct = 0;  // 100 * |sampled - full| / full
  double full_wall_s = 0, sampled_wall_s = 0;  // the point's launches in the timing model
  double detailed_fraction = 1;  // of the point's blocks
  bool sampled = false;  // the sampler skipped some of its blocks (else one run is both sides)
};
// options.sampled and options.progress are ignored. Every point runs sampled first; the points
// that sampled (some blocks fast-forwarded) run again in full. A point the sampler ran in full is
// the full model's run and is not run twice (its error is 0 by construction: the sampler changes
// nothing until it skips). `done` (optional) gets each point as soon as both sides are known,
// one call at a time from worker threads, so a run stopped part-way has still reported those.
// Jobs and threads as for simulate_corpus.
std::vector<SampledPoint> compare_sampled(
    const std::vector<CorpusPoint>& points, const ValidateOptions& options,
    const std::function<void(const SampledPoint&)>& done = nullptr);
// One row of format_sampled's table.
std::string format_sampled_row(const SampledPoint& p);
// The table and the summary line "SAMPLED points=N max_err=X% mean_err=Y% speedup=S
// speedup_heavy=H detailed=F% target=yes|no" (target: within 2% on every point).
std::string format_sampled(const std::vector<SampledPoint>& points);

// Time error and its summary.
double abs_pct_error(double sim_us, double gpu_us);  // 100 * |sim - gpu| / gpu
struct ErrorSummary {
  int points = 0;    // with both a simulated and a measured time
  double mape = 0;   // %
  double worst = 0;  // %, the largest absolute percentage error
  std::string worst_id;
  int within20 = 0;
};
// Pairs (simulated, measured) in microseconds; pairs with a non-positive measured time are
// skipped.
ErrorSummary summarize_errors(const std::vector<std::pair<double, double>>& sim_gpu_us,
                              const std::vector<std::string>& ids = {});
// Counters compared point by point: within 10% of the GPU's figure (or within `floor` of it, for
// small noisy counts, or within `floor_per_instruction` times the GPU's warp instructions), over
// the points where both sides have the counter and one of them is at least `min`.
// - Below 64 KiB the GPU's DRAM reads are its instruction and constant fetches, which the model
//   has no cache for.
// - The GPU's shared-memory bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld
//   and _op_st) also count wavefronts lost to arbitration with other traffic of the L1's data
//   banks: kernels whose addresses cannot conflict read up to 0.8% of their warp instructions
//   there (H100, 2026-11-24: smem_copy, the shared tree reduction, the matmul epilogue). Conflicts
//   the addresses cause are compared within 10% (transposes, the degree 2..32 sweep); the
//   arbitration part is allowed as 1% of the GPU's warp instructions.
// - The L2 hit rate is not compared: the GPU's lts__t_sector_hit_rate counts stores and lookups
//   of both L2 partitions, the model's the sectors its loads find.
struct CounterAgreement {
  const char* key;
  double floor, min;
  const char* note;  // printed after the count
  double floor_per_instruction = 0;
  int within10 = 0, points = 0;
};
std::vector<CounterAgreement> counter_agreement(
    const std::vector<std::pair<const CounterMap*, const CounterMap*>>& sim_gpu);
// "VALIDATE config=NAME points=N mape=X% worst=Y% within20=K" (X, Y with one decimal).
std::string summary_line(const std::string& config, const ErrorSummary& s);

// A log-log scatter of simulated against measured time: the diagonal, the +-20% band, one dot per
// point coloured by mechanism, with a legend. Plain SVG 1.1 text.
struct ScatterDot {
  std::string id, mechanism;
  double measured_us = 0, simulated_us = 0;
};
std::string scatter_svg(const std::vector<ScatterDot>& dots, const std::string& title);

}  // namespace warplab::lab
