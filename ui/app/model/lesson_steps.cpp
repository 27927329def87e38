#include "ui/app/model/lesson_steps.h"

#include <chrono>
#include <cstdlib>
#include <memory>

#include "lab/compile.h"
#include "lab/lesson_step.h"

namespace warplab::app {

StepCheck run_lesson_step(const lab::Lesson& lesson, size_t step, const StepRunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  StepCheck out;
  lab::StepRunSettings settings;
  settings.backend = o.use_gpu ? lab::BackendKind::Both : lab::BackendKind::Sim;
  settings.gpu_fallback = true;
  settings.config = o.config;
  settings.l2 = o.l2;
  settings.ci = o.ci;
  settings.sets = o.sets;
  for (const auto& r : o.steps) settings.steps.push_back(r.get());
  lab::Toolchain toolchain;
  auto run = lab::run_lesson_step(toolchain, lesson, step, settings);
  if (!run) {
    out.error = run.error().to_string();
  } else {
    out.l2 = run->l2;
    out.backend = run->result.backend;
    out.gpu_note = o.use_gpu ? run->gpu_note : "the real GPU was not asked for";
    out.checks_passed = run->result.passed();
    for (const lab::StepAnswer& a : run->answers)
      out.answers.push_back(
          {a.value, a.shown, a.error, a.gpu_value, a.gpu_shown, a.gpu_measured_on});
    for (const lab::StepClaim& c : run->claims) {
      StepCheck::Claim cv;
      cv.claim = c.claim;
      cv.on_gpu = c.on_gpu;
      cv.measured_on = c.measured_on;
      if (!c.ran && c.measured_on.empty())
        cv.skipped = "no real GPU in this run" + (out.gpu_note.empty() ? "" : ": " + out.gpu_note);
      cv.value = c.value;
      cv.error = c.error;
      out.claims.push_back(std::move(cv));
    }
    out.result = std::make_shared<const lab::ExperimentResult>(std::move(run->result));
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

bool predictions_ready(const lab::LessonStep& st, const std::vector<std::string>& replies) {
  for (size_t i = 0; i < st.questions.size(); ++i) {
    if (!st.questions[i].predict) continue;
    if (i >= replies.size() || replies[i].find_first_not_of(" \t") == std::string::npos)
      return false;
  }
  return true;
}

std::string reveal_line(const lab::LessonQuestion& q, const StepCheck::Answer& a,
                        const std::string& reply, bool* right) {
  if (right) *right = false;
  if (!a.error.empty() || !a.value) return "the model's answer could not be computed: " + a.error;
  // A choice reply is its 1-based number: show the choice's text.
  std::string said = reply;
  if (q.kind == lab::LessonQuestion::Kind::Choice) {
    char* end = nullptr;
    const long n = std::strtol(reply.c_str(), &end, 10);
    if (end && *end == '\0' && n >= 1 && n <= static_cast<long>(q.choices.size()))
      said = q.choices[size_t(n - 1)];
  }
  const bool ok = lab::reply_is_right(q, *a.value, reply);
  if (right) *right = ok;
  std::string out =
      "you predicted " + said + (ok ? ": right. " : ": not quite. ") + "Model: " + a.shown + ". ";
  if (!a.gpu_value)
    out += "GPU: no measurement at these values";
  else if (a.gpu_measured_on.empty())
    out += "Real GPU: " + a.gpu_shown;
  else
    out += "GPU: " + a.gpu_shown + " (measured on " + a.gpu_measured_on + ")";
  return out;
}

}  // namespace warplab::app
