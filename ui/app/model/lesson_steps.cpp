#include "ui/app/model/lesson_steps.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "lab/compile.h"
#include "lab/runner.h"

namespace warplab::app {

std::string step_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

bool reply_is_right(const lab::LessonQuestion& q, double answer, const std::string& reply) {
  if (q.kind == lab::LessonQuestion::Kind::Choice) {
    const long idx = std::lround(answer);
    return reply == std::to_string(idx + 1) ||
           (idx >= 0 && idx < long(q.choices.size()) && reply == q.choices[size_t(idx)]);
  }
  char* end = nullptr;
  const double v = std::strtod(reply.c_str(), &end);
  return end != reply.c_str() &&
         std::fabs(v - answer) <= std::max(q.tolerance * std::fabs(answer), 1e-9);
}

StepCheck run_lesson_step(const lab::Lesson& lesson, size_t step, const StepRunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  StepCheck out;
  auto done = [&]() {
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  };
  if (step >= lesson.steps.size()) {
    out.error = "no step " + std::to_string(step);
    return done();
  }
  const lab::LessonStep& st = lesson.steps[step];
  if (st.experiment.empty()) {
    out.error = "this step runs no experiment";
    return done();
  }
  // 1. The experiment with the step's values (as `warplab lesson` sets them).
  auto exp = lab::load_experiment(st.experiment);
  if (!exp) {
    out.error = exp.error().to_string();
    return done();
  }
  std::vector<std::string> sets;
  for (const auto& [k, v] : st.set) sets.push_back(k + "=" + v);
  if (o.ci)
    for (const auto& [k, v] : st.ci_set) sets.push_back(k + "=" + v);
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  for (const std::string& s : sets)
    if (auto r = lab::set_param(*exp, s); !r) {
      out.error = r.error().to_string();
      return done();
    }
  out.l2 = st.l2.empty() ? o.l2 : st.l2;
  auto l2 = lab::parse_l2_start(out.l2);
  if (!l2) {
    out.error = l2.error().to_string();
    return done();
  }
  // 2. The runner: timing model, and the GPU beside it when asked and one opens.
  lab::Toolchain toolchain;
  auto options = [&](lab::BackendKind b) {
    lab::RunOptions r;
    r.backend = b;
    r.mode = lab::SimMode::Timing;
    r.config = o.config;
    r.count_lines = false;
    r.l2 = *l2;
    if (b != lab::BackendKind::Sim) r.gpu.counters = true;  // claims read hardware counters
    return r;
  };
  std::optional<lab::Runner> runner;
  if (o.use_gpu) {
    runner.emplace(toolchain, options(lab::BackendKind::Both));
    if (auto s = runner->prepare_backends(); !s) {
      out.gpu_note = s.error().message;  // without the CLI's "--backend both: "
      if (const size_t at = out.gpu_note.find(": ");
          out.gpu_note.rfind("--backend", 0) == 0 && at != std::string::npos)
        out.gpu_note = out.gpu_note.substr(at + 2);
      runner.reset();
    }
  } else {
    out.gpu_note = "the real GPU was not asked for";
  }
  if (!runner) runner.emplace(toolchain, options(lab::BackendKind::Sim));
  auto res = runner->run(*exp);
  if (!res) {
    out.error = res.error().to_string();
    return done();
  }
  out.backend = res->backend;
  out.checks_passed = res->passed();
  const bool gpu = out.backend == "both";
  // 3. Answers (from the simulator's run, as `warplab lesson --answers` gives them) and claims.
  for (const lab::LessonQuestion& q : st.questions) {
    StepCheck::Answer a;
    auto v = lab::eval_lesson_expr(q.answer, *res, false);
    if (!v) {
      a.error = v.error().message;
    } else {
      a.value = *v;
      a.shown = step_number(*v);
      if (q.kind == lab::LessonQuestion::Kind::Choice) {
        const long idx = std::lround(*v);
        if (idx >= 0 && idx < long(q.choices.size()))
          a.shown = q.choices[size_t(idx)];
        else
          a.error = "index " + a.shown + " is not a choice";
      }
    }
    out.answers.push_back(std::move(a));
  }
  for (size_t i = 0; i < st.claims.size(); ++i) {
    const lab::LessonClaim& c = st.claims[i];
    for (const bool on_gpu : {false, true}) {
      if (on_gpu ? c.where == lab::LessonClaim::Where::Sim
                 : c.where == lab::LessonClaim::Where::Gpu)
        continue;
      StepCheck::Claim cv;
      cv.claim = i;
      cv.on_gpu = on_gpu;
      if (on_gpu && !gpu) {
        cv.skipped = "no real GPU in this run" + (out.gpu_note.empty() ? "" : ": " + out.gpu_note);
      } else if (auto v = lab::eval_claim(c.expr, *res, on_gpu); v) {
        cv.value = *v;
      } else {
        cv.error = v.error().message;
      }
      out.claims.push_back(std::move(cv));
    }
  }
  return done();
}

}  // namespace warplab::app
