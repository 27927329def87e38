#include <memory>

#include "ui/app/model/lesson_steps.h"

#include <chrono>

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
      out.answers.push_back({a.value, a.shown, a.error});
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

}  // namespace warplab::app
