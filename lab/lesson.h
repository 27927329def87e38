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
  double tolerance = 0;              // Number: relative tolerance of a student's answer
  std::string explain;               // shown after answering
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

struct Lesson {
  std::string path, dir;  // lesson.toml and its folder
  std::string id, title, summary;
  int order = 0;
  std::vector<std::string> prerequisites;
  std::vector<LessonStep> steps;
};

Expected<Lesson> load_lesson(const std::string& lesson_toml);
// Every lessons/*/lesson.toml under `root`, in `order`; errors name the file.
Expected<std::vector<Lesson>> load_lessons(const std::string& root);

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
};
Expected<ClaimValue> eval_claim(const std::string& expr, const ExperimentResult& result, bool gpu);

}  // namespace warplab::lab
