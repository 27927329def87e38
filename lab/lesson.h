// Lessons that check themselves: `lesson.toml` in a lesson folder (lessons/FORMAT.md, "Lesson
// files") lists its pages in order, binds steps to experiments, asks questions whose answers the
// simulator computes, and states claims about outcomes that are evaluated every time the lesson
// runs, on the simulator, the GPU or both. A lesson can never silently teach what the model or the
// hardware contradicts: a failing claim fails the run.
//
// Claims and answers are expressions over a run's metrics (lesson_expr):
//   launch("gelu_fused").dram_bytes <= launch_sum("ew_*").dram_bytes / 8
//   sweep(stride=32).time / sweep(stride=1).time >= 4
//   sectors_per_request(stride=1) == 4
//   launch("histogram_global", bins=1).time > 2 * launch("histogram_global", bins=256).time
//   buffer("warp_id", 40) == 1
//   which_max(launch("a").time, launch("b").time)   (the index of the largest: choice answers)
// Metrics: time (us, as CUDA events measure a launch), cycles, dram_bytes, warp_instructions,
// thread_instructions, sectors_per_request (global loads), store_sectors_per_request,
// l2_hit_rate (0..1), occupancy (achieved, 0..1), blocks_per_sm (theoretical), bank_conflicts,
// launches (how many summed). On the GPU the same names read its times and hardware counters.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiment.h"
#include "lab/runner.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct LessonQuestion {
  std::string text;
  enum class Kind { Number, Choice } kind = Kind::Number;
  std::vector<std::string> choices;  // Choice: the options (the answer expression gives the index)
  std::string answer;                // expression (Number: the value; Choice: 0-based index)
  // Number: relative tolerance of a student's answer (kDefaultTolerance unless the file says).
  static constexpr double kDefaultTolerance = 0.05;
  double tolerance = kDefaultTolerance;
  // Number: replies in [accept_lo, accept_hi] are right too, whatever the run gives (a student who
  // answers 64 after reading an argument for 64, where the run gives 56.6). Unset: none.
  std::optional<double> accept_lo, accept_hi;
  std::string hint;     // shown after a wrong reply, before the answer
  std::string explain;  // shown after answering
  // Asked before the step runs (`predict = true`): the student commits to a number first, then
  // the run reveals the model's answer and the GPU's (measured, or from committed data) together.
  bool predict = false;
  int line = 0;
};

struct LessonClaim {
  std::string text;  // what the lesson says
  std::string expr;  // a comparison that must hold
  enum class Where { Sim, Gpu, Both } where = Where::Sim;
  int line = 0;
};

struct LessonStep {
  std::string page;                                         // Markdown file (resolved), "" = none
  std::string experiment;                                   // experiment file (resolved), "" = none
  std::vector<std::pair<std::string, std::string>> set;     // starting values NAME, VALUE
  std::vector<std::pair<std::string, std::string>> ci_set;  // smaller sizes for CI runs
  std::vector<std::string> editable;                        // parameters the student may change
  std::string l2;  // "cold" / "warm": this step's L2 convention, whatever --l2 says ("" = --l2)
  std::vector<LessonQuestion> questions;
  std::vector<LessonClaim> claims;
  int line = 0;
};

struct GpuDataset;

struct Lesson {
  std::string path, dir;  // lesson.toml and its folder
  std::string id, title, summary;
  int order = 0;
  std::vector<std::string> prerequisites;
  std::vector<LessonStep> steps;
  // The committed GPU data its pages and claims may read (shared by the lessons of one folder).
  std::shared_ptr<const std::vector<GpuDataset>> data;
};

// Loads and checks a lesson: lesson.toml's keys, its steps' names (editable and set parameters,
// kernels named in claims and answers) and every embedded value of its pages (lesson_page.h),
// each error with file:line. `lesson_toml` may also be the lesson's folder. `data` null: the
// committed GPU data is found with gpu_data_dir().
Expected<Lesson> load_lesson(const std::string& lesson_toml,
                             std::shared_ptr<const std::vector<GpuDataset>> data = nullptr);
// Every */lesson.toml under `root`, in `order`. A broken lesson is left out and its error added
// to `broken` when given; without `broken` the first error is returned.
Expected<std::vector<Lesson>> load_lessons(const std::string& root,
                                           std::vector<Error>* broken = nullptr);

// Where lessons are found, in order: $WARPLAB_LESSONS_DIR, lessons/ beside the executable or one
// level above it, share/warplab/lessons above it, ./lessons, and the source tree built from.
// "" when none has a lesson.
std::string lessons_dir();
// The committed GPU data (validation/data/*.json): $WARPLAB_DATA_DIR, validation/data in `near` or
// a folder above it, data/ or validation/data beside or above the executable, share/warplab/data
// or share/warplab/validation/data above it (cmake --install), and the source tree's. "" when none
// exists.
std::string gpu_data_dir(const std::string& near = "");

// The value of one expression over an experiment's result, read from the simulator (gpu = false)
// or from the GPU's measurements. Errors say what was expected (the caller adds file:line).
Expected<double> eval_lesson_expr(const std::string& expr, const ExperimentResult& result,
                                  bool gpu);
// Checks an expression's syntax and names without a result (for load-time errors): a claim is a
// comparison (comparison = true), an answer a value.
Status check_lesson_expr(const std::string& expr, bool comparison);

// A claim's evaluation: the comparison's two sides and whether it holds.
struct ClaimValue {
  double lhs = 0, rhs = 0;
  std::string op;
  bool holds = false;
  // A range, `a <= x <= b`: x is rhs, b is upper, op2 its comparison; holds when both hold.
  std::string op2;
  double upper = 0;
};
// "lhs op rhs" (and " op2 upper" for a range), numbers as lessons print them.
std::string claim_value_text(const ClaimValue& v);
Expected<ClaimValue> eval_claim(const std::string& expr, const ExperimentResult& result, bool gpu);

// ---------------------------------------------------------------- values beyond one run
// Committed GPU measurements: one validation/data/NAME.json (`warplab validate --backend gpu`
// writes it). Each point is one experiment run on the GPU, with its launches' times and counters.
struct GpuDataset {
  std::string path, name;      // the file and its stem ("h100")
  std::string date;            // the file's date (of its last merge)
  std::string device;          // "NVIDIA H100 80GB HBM3"
  nlohmann::json points;       // point id -> the point
  nlohmann::json device_info;  // what the GPU backend read from the device (launch overhead ...)
  // When a point was measured: its own date, else the file's ("2026-11-24").
  std::string date_of(const std::string& id) const;
};
Expected<GpuDataset> load_gpu_dataset(const std::string& path);
// Every *.json dataset in `dir`, by name; an unreadable file is an error naming it.
Expected<std::vector<GpuDataset>> load_gpu_datasets(const std::string& dir);

// What an expression may read besides one step's result (lesson pages, lesson_page.h; a claim
// may use step(N) too, eval_env_claim):
//   step(N).METRIC-CALL    the run of step N (1-based) of the lesson, e.g.
//   step(2).sweep(stride=8).time gpu("ID").METRIC       a point of the committed data ("h100"
//   unless "h200:ID"), its launches summed gpu("ID", "kernel").METRIC   one kernel's launches of
//   that point preset("h100-sxm", "l2.size_bytes")   a field of a timing-model preset
//   gpu_info("launch_overhead_us.empty_kernel")   a number of the committed data's device_info
// Calls that read a run whose step has not run yet make the value pending (not an error).
struct ExprEnv {
  const ExperimentResult* result = nullptr;    // the expression's own step's run (null: not yet)
  std::vector<const ExperimentResult*> steps;  // every step's run by index (null: none yet)
  std::vector<bool> step_runs;                 // which steps have an experiment (checks)
  bool own_run = true;  // the expression's own step runs an experiment (else only step(N) reads)
  const std::vector<GpuDataset>* data = nullptr;
  bool gpu = false;    // run-bound metrics read the GPU's side of the run
  bool check = false;  // names and syntax only: nothing is read from a run
};
struct EnvValue {
  double value = 0;
  bool pending = false;              // reads a run that has not happened yet
  std::vector<std::string> sources;  // "NVIDIA H100 80GB HBM3, 2026-11-24" for each gpu() read
};
Expected<EnvValue> eval_env_expr(const std::string& expr, const ExprEnv& env);
// A claim over an environment: a claim may read another step's run with step(N).CALL (a Triton
// twin against its CUDA step), each side of the claim from that step's same side (the
// simulator's, or the GPU's: its run, else the committed data at its values). `pending` (may be
// null) is set when a step it reads has not run: its value is then not the claim's.
Expected<ClaimValue> eval_env_claim(const std::string& expr, const ExprEnv& env,
                                    bool* pending = nullptr);
// The other steps (0-based) whose runs step `step`'s claims read through step(N).
std::vector<size_t> claim_run_steps(const Lesson& lesson, size_t step);

}  // namespace warplab::lab
