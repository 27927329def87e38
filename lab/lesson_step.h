// One step of a lesson (lesson.h), run the one way `warplab lesson` and the desktop app both run
// it: the step's experiment with its starting values (then its CI sizes, then the student's), on
// the timing model with the step's L2 convention, and the GPU beside it when asked; then every
// question's answer and every claim evaluated on that result, each claim on each side it names.
// Nothing here prints: the CLI prints what it computes and the app shows it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/compile.h"
#include "lab/lesson.h"
#include "lab/runner.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct StepRunSettings {
  BackendKind backend = BackendKind::Sim;  // where the experiment runs
  // With a GPU backend: when no GPU opens, run on the simulator alone and say why
  // (StepRun::gpu_note) instead of failing.
  bool gpu_fallback = false;
  std::string config;             // timing-model preset ("" = h100-sxm)
  std::string l2 = "cold";        // the L2 convention when the step names none
  bool ci = false;                // apply the step's ci_set (smaller sizes) after its set
  std::vector<std::string> sets;  // NAME=VALUE the student changed, applied last
  // Compile in the sandbox (lab/sandbox.h, `lesson --sandbox`): the step's experiment and source
  // folders are added to what the compile may read.
  std::optional<SandboxPolicy> sandbox;
  // The timing model's host threads per launch (RunOptions::threads; 0 = all cores), and where
  // a running launch is (RunOptions::on_timing_progress; unset: not reported).
  int threads = 1;
  bool sampled = false;  // RunOptions::sampled
  std::function<void(const timing::TimingProgress&)> on_timing_progress;
  // The lesson's other steps' runs, by step index (null: not run), for the claims that read them
  // with step(N) (claim_run_steps says which); run them first, with the same backend.
  std::vector<const ExperimentResult*> steps;
};

// A question's answer, read from the simulator's run (from the GPU's when only the GPU ran).
struct StepAnswer {
  std::optional<double> value;
  std::string shown;  // the value as a lesson prints it, or the choice it picks
  std::string error;  // the expression could not be evaluated, or its index is not a choice
  // The GPU's answer beside it (what a `predict` question reveals): from the run's GPU side, else
  // from the committed measurements of the same experiment at the same values (`gpu_measured_on`
  // then says "device, date"); unset where neither has it.
  std::optional<double> gpu_value;
  std::string gpu_shown, gpu_measured_on;
};

// One side (simulator or GPU) of one claim.
struct StepClaim {
  size_t claim = 0;  // index into the step's claims
  bool on_gpu = false;
  bool ran = true;  // false: this side did not run, so the claim was not evaluated on it
  // With no GPU in the run: the GPU side evaluated on the committed measurements of the same
  // experiment at the same values (validation/data/*.json), "NVIDIA H100 80GB HBM3, 2026-11-24".
  std::string measured_on;
  std::optional<ClaimValue> value;
  std::string error;  // the expression could not be evaluated
};

struct StepRun {
  std::string l2;                          // the L2 convention it ran with ("cold" / "warm")
  BackendKind backend = BackendKind::Sim;  // where it ran (Sim after a GPU fallback)
  std::string gpu_note;                    // after a GPU fallback: why no GPU ran
  ExperimentResult result;
  std::vector<StepAnswer> answers;  // one per question of the step, in order
  std::vector<StepClaim> claims;    // each claim once per side it names, the simulator's first
};

// Runs step `step` of `lesson`. `on_start` (may be empty) is called with the L2 convention once
// the experiment is loaded with its values, just before it runs. An Error is a step that could
// not run (no such step, no experiment, a Triton step without Triton (lesson_step_unavailable's
// sentence), a parameter, a compile, the GPU without gpu_fallback);
// a parameter of the step itself names the lesson file's line.
Expected<StepRun> run_lesson_step(const Toolchain& toolchain, const Lesson& lesson, size_t step,
                                  const StepRunSettings& settings,
                                  const std::function<void(const std::string& l2)>& on_start = {});

// "" when step `step` can run on this machine; else one sentence saying why not: a Triton
// kernel's step where Triton is not installed (a lesson's Triton twin of a CUDA step). The rest
// of the lesson runs without it.
std::string lesson_step_unavailable(const Lesson& lesson, size_t step);
// Whether step `step` runs a Triton kernel (triton = "kernel.py").
bool lesson_step_is_triton(const Lesson& lesson, size_t step);

// The simulator's result with every launch's GPU side filled in from the committed data (the
// lesson's datasets, "h100" first) where a point of the same experiment at the same parameter
// values and the same L2 convention exists; empty when some launch has none. `measured_on` gets
// "device, date".
std::optional<ExperimentResult> result_from_committed_data(const Lesson& lesson, size_t step,
                                                           const ExperimentResult& sim,
                                                           std::string* measured_on);

// The step's experiment as a table, one row per kernel of each run (each sweep row): time (µs),
// DRAM bytes, sectors per load request, achieved occupancy and shared bank conflicts, as the
// claim language reads them from the simulator's side (gpu = true: the GPU's). The columns the
// pages tell students to read.
std::string format_step_table(const ExperimentResult& result, bool gpu = false);

// A number as a lesson prints it (%.6g).
std::string lesson_number(double v);
// Whether a student's reply answers a question whose computed answer is `answer`: a Choice
// question by its 1-based number or its text, a Number within the question's relative tolerance.
bool reply_is_right(const LessonQuestion& q, double answer, const std::string& reply);

}  // namespace warplab::lab
