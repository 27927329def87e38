// A lesson's steps in the app, checked by the code `warplab lesson` runs them with
// (lab/lesson_step.h): a step's experiment runs with the step's starting values and L2 convention
// on the simulator's timing model (and a real GPU beside it when asked and one opens), then every
// question's answer and every claim is evaluated on that result. The app shows the values it
// computed: nothing here is typed in by hand. No ImGui (tests/717).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/lesson.h"
#include "lab/lesson_step.h"

namespace warplab::app {

struct StepCheck {
  std::string error;  // the step could not run (its experiment, a parameter, a compile ...)
  std::string backend, l2, gpu_note;  // "sim" or "both"; "cold"/"warm"; why no GPU side
  bool checks_passed = false;         // the experiment's own [[checks]]
  struct Answer {
    std::optional<double> value;  // the question's answer from the run
    std::string shown;            // the value, or the choice it picks
    std::string error;            // the answer's expression could not be evaluated
    // The GPU's answer (a predict question): the run's GPU side, else the committed data of the
    // same experiment at the same values ("device, date" in gpu_measured_on); unset without.
    std::optional<double> gpu_value;
    std::string gpu_shown, gpu_measured_on;
  };
  std::vector<Answer> answers;  // one per question of the step
  struct Claim {
    size_t claim = 0;  // index into the step's claims
    bool on_gpu = false;
    std::string skipped;      // why this side was not evaluated ("" when it was)
    std::string measured_on;  // the GPU side from committed data: "device, date"
    std::optional<lab::ClaimValue> value;
    std::string error;
  };
  std::vector<Claim> claims;  // each claim once per side it names (simulator, GPU)
  std::shared_ptr<const lab::ExperimentResult> result;  // the run (the page's embedded values)
  double wall_s = 0;
};

struct StepRunOptions {
  std::string config;       // timing-model preset ("" = h100-sxm)
  bool use_gpu = false;     // run on a real GPU too when one opens
  std::string l2 = "cold";  // when the step names none
  bool ci = false;          // apply the step's ci_set (smaller sizes) after its set
  // Parameter values the student changed (NAME=VALUE), applied last.
  std::vector<std::string> sets;
  // Other steps' runs by index (null: not run), for claims that read them (step(N)).
  std::vector<std::shared_ptr<const lab::ExperimentResult>> steps;
};

// Runs step `step` of `lesson` (which must name an experiment) the way `warplab lesson` runs it
// (lab::run_lesson_step) and keeps what the step panel shows. A reply to a question is checked
// with lab::reply_is_right, numbers are shown with lab::lesson_number (lab/lesson_step.h).
StepCheck run_lesson_step(const lab::Lesson& lesson, size_t step, const StepRunOptions& o);

// Predict, then reveal (lab::LessonQuestion::predict): a step with predict questions runs only
// once each has a reply (`replies[i]` answers question i; missing or blank is no reply).
bool predictions_ready(const lab::LessonStep& st, const std::vector<std::string>& replies);
// The line that reveals a predict question after its run: the prediction (right or not, against
// the model's answer and the question's tolerance), the model's answer and the GPU's, e.g.
// "you predicted 8: not quite. Model: 32. GPU: 32 (measured on NVIDIA H100 80GB HBM3, 2026-11-24)".
// `right` (may be null) gets whether the prediction matched the model.
std::string reveal_line(const lab::LessonQuestion& q, const StepCheck::Answer& a,
                        const std::string& reply, bool* right);

}  // namespace warplab::app
