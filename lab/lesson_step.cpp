#include "lab/lesson_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "lab/triton.h"

namespace warplab::lab {

std::string format_step_table(const ExperimentResult& result, bool gpu) {
  std::vector<const RunResult*> runs;
  std::vector<std::string> axes;
  if (result.run) runs.push_back(&*result.run);
  if (result.sweep) {
    axes = result.sweep->axes;
    for (const RunResult& r : result.sweep->runs) runs.push_back(&r);
  }
  static const char* kCols[] = {"time", "dram_bytes", "sectors_per_request", "occupancy",
                                "bank_conflicts"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head;
  for (const std::string& a : axes) head.push_back(a);
  head.push_back("kernel");
  for (const char* c : {"time (us)", "DRAM bytes", "sectors/req", "occupancy", "conflicts"})
    head.push_back(c);
  rows.push_back(head);
  for (const RunResult* run : runs) {
    std::string sel;
    std::vector<std::string> axis_values;
    for (const std::string& a : axes)
      for (const auto& [n, v] : run->params)
        if (n == a) {
          sel += ", " + n + "=" + lesson_number(v.as_double());
          axis_values.push_back(lesson_number(v.as_double()));
        }
    std::vector<std::string> kernels;
    for (const LaunchRecord& rec : run->launches)
      if (std::find(kernels.begin(), kernels.end(), rec.kernel) == kernels.end())
        kernels.push_back(rec.kernel);
    for (const std::string& k : kernels) {
      std::vector<std::string> row = axis_values;
      row.push_back(k);
      for (const char* c : kCols) {
        auto v = eval_lesson_expr("launch(\"" + k + "\"" + sel + ")." + c, result, gpu);
        if (!v) {
          row.push_back("-");
          continue;
        }
        char b[64];
        if (std::string(c) == "occupancy")
          std::snprintf(b, sizeof b, "%.0f%%", *v * 100);
        else if (std::string(c) == "time" || std::string(c) == "sectors_per_request")
          std::snprintf(b, sizeof b, "%.3g", *v);
        else
          std::snprintf(b, sizeof b, "%.0f", *v);
        row.push_back(b);
      }
      rows.push_back(row);
    }
  }
  std::vector<size_t> width(head.size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line = "   ";
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      line += "  " + (i + 1 == axes.size() + 1 ? r[i] + pad : pad + r[i]);
    }
    out += line + "\n";
  }
  return out;
}

std::string lesson_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

bool reply_is_right(const LessonQuestion& q, double answer, const std::string& reply) {
  if (q.kind == LessonQuestion::Kind::Choice) {
    const long idx = std::lround(answer);
    return reply == std::to_string(idx + 1) ||
           (idx >= 0 && idx < long(q.choices.size()) && reply == q.choices[size_t(idx)]);
  }
  char* end = nullptr;
  const double v = std::strtod(reply.c_str(), &end);
  if (end == reply.c_str()) return false;
  if (q.accept_lo && q.accept_hi && v >= *q.accept_lo && v <= *q.accept_hi) return true;
  return std::fabs(v - answer) <= std::max(q.tolerance * std::fabs(answer), 1e-9);
}

std::optional<ExperimentResult> result_from_committed_data(const Lesson& lesson, size_t step,
                                                           const ExperimentResult& sim,
                                                           std::string* measured_on) {
  namespace fs = std::filesystem;
  using nlohmann::json;
  if (!lesson.data || step >= lesson.steps.size() || sim.l2 != "cold") return std::nullopt;
  const LessonStep& st = lesson.steps[step];
  auto exp = load_experiment(st.experiment);  // its defaults: a point lists only what it set
  if (!exp) return std::nullopt;
  std::error_code ec;
  const fs::path want = fs::weakly_canonical(st.experiment, ec);
  for (const GpuDataset& d : *lesson.data) {
    // Points are written relative to the validation/ folder that holds data/.
    const fs::path base = fs::path(d.path).parent_path().parent_path();
    std::vector<const json*> points;
    for (const auto& [id, p] : d.points.items())
      if (p.contains("experiment") && p["experiment"].is_string() &&
          fs::weakly_canonical(base / p["experiment"].get<std::string>(), ec) == want)
        points.push_back(&p);
    if (points.empty()) continue;
    // The point whose parameter values are the run's: its set and row, the defaults elsewhere.
    auto matches = [&](const json& p, const RunResult& run) {
      std::map<std::string, std::string> given;
      for (const char* k : {"set", "row"})
        if (p.contains(k) && p[k].is_array())
          for (const json& a : p[k])
            if (a.is_string()) {
              const std::string s = a.get<std::string>();
              const size_t eq = s.find('=');
              if (eq != std::string::npos) given[s.substr(0, eq)] = s.substr(eq + 1);
            }
      for (const auto& [name, v] : run.params) {
        const ParamDef* def = nullptr;
        for (const ParamDef& pd : exp->params)
          if (pd.name == name) def = &pd;
        if (!def || !def->derived.empty()) continue;
        const double want_v =
            given.count(name) ? std::strtod(given[name].c_str(), nullptr) : def->value.as_double();
        if (std::fabs(v.as_double() - want_v) > 1e-9 * std::max(1.0, std::fabs(want_v)))
          return false;
      }
      return true;
    };
    ExperimentResult out = sim;
    std::vector<RunResult*> runs;
    if (out.run) runs.push_back(&*out.run);
    if (out.sweep)
      for (RunResult& r : out.sweep->runs) runs.push_back(&r);
    bool all = !runs.empty();
    std::string date;
    for (RunResult* run : runs) {
      // Every point at the run's values (a corpus may measure each kernel as a point of its own).
      std::vector<const json*> at;
      for (const json* p : points)
        if (matches(*p, *run)) at.push_back(p);
      if (at.empty()) {
        all = false;
        break;
      }
      run->buffers.clear();  // the data hold times and counters, not the GPU's buffer contents
      // The k-th launch of a kernel takes the k-th launch of that kernel in those points.
      std::map<std::string, size_t> seen;
      for (LaunchRecord& rec : run->launches) {
        size_t k = seen[rec.kernel]++, found = 0;
        bool got = false;
        for (const json* p : at) {
          for (const json& l : (*p)["launches"])
            if (l.contains("kernel") && l["kernel"] == rec.kernel && found++ == k &&
                l.contains("gpu")) {
              rec.gpu = l["gpu"];
              date = std::max(date, d.date_of((*p)["id"].get<std::string>()));
              got = true;
              break;
            }
          if (got) break;
        }
        if (!got) all = false;
      }
      if (!all) break;
    }
    if (!all) continue;
    if (measured_on) *measured_on = d.device + ", " + date;
    return out;
  }
  return std::nullopt;
}

bool lesson_step_is_triton(const Lesson& lesson, size_t step) {
  if (step >= lesson.steps.size() || lesson.steps[step].experiment.empty()) return false;
  auto e = load_experiment(lesson.steps[step].experiment);
  return e && e->source_kind == Experiment::SourceKind::Triton;
}

std::string lesson_step_unavailable(const Lesson& lesson, size_t step) {
  if (!lesson_step_is_triton(lesson, step)) return "";
  if (const std::string why = TritonBridge().why_unavailable(); !why.empty())
    return "its Triton kernel needs Triton: " + why;
  return "";
}

Expected<StepRun> run_lesson_step(const Toolchain& toolchain, const Lesson& lesson, size_t step,
                                  const StepRunSettings& settings,
                                  const std::function<void(const std::string& l2)>& on_start) {
  if (step >= lesson.steps.size()) return Error{"", 0, "no step " + std::to_string(step)};
  const LessonStep& st = lesson.steps[step];
  if (st.experiment.empty()) return Error{"", 0, "this step runs no experiment"};
  // A Triton step without Triton: the one sentence `warplab lesson` prints when it skips it.
  if (const std::string why = lesson_step_unavailable(lesson, step); !why.empty())
    return Error{lesson.path, st.line, "steps[" + std::to_string(step) + "]: " + why};
  // 1. The experiment with the step's values, its CI sizes, then the student's.
  auto exp = load_experiment(st.experiment);
  if (!exp) return exp.error();
  auto apply = [&](const std::vector<std::pair<std::string, std::string>>& kv) -> Status {
    for (const auto& [k, v] : kv)
      if (auto s = set_param(*exp, k + "=" + v); !s)
        return Error{lesson.path, st.line,
                     "steps[" + std::to_string(step) + "]: " + s.error().message};
    return Ok{};
  };
  if (auto s = apply(st.set); !s) return s.error();
  if (settings.ci)
    if (auto s = apply(st.ci_set); !s) return s.error();
  for (const std::string& s : settings.sets)
    if (auto r = set_param(*exp, s); !r) return r.error();
  StepRun out;
  out.l2 = st.l2.empty() ? settings.l2 : st.l2;
  auto l2 = parse_l2_start(out.l2);
  if (!l2) return l2.error();
  if (on_start) on_start(out.l2);
  // 2. The runner: the timing model, and the GPU beside it when asked (and, with gpu_fallback,
  // when one opens).
  auto options = [&](BackendKind b) {
    RunOptions r;
    r.backend = b;
    r.mode = SimMode::Timing;
    r.config = settings.config;
    r.count_lines = false;
    r.l2 = *l2;
    r.threads = settings.threads;
    r.sampled = settings.sampled;
    r.on_timing_progress = settings.on_timing_progress;
    if (b != BackendKind::Sim) r.gpu.counters = true;  // claims read hardware counters
    if (settings.sandbox) {
      r.sandbox = settings.sandbox;
      for (const std::string& f : {exp->path, exp->source}) {
        const std::string d = std::filesystem::path(f).parent_path().string();
        r.sandbox->read_dirs.push_back(d.empty() ? "." : d);
      }
    }
    return r;
  };
  out.backend = settings.backend;
  std::optional<Runner> runner;
  runner.emplace(toolchain, options(out.backend));
  if (out.backend != BackendKind::Sim && settings.gpu_fallback)
    if (auto s = runner->prepare_backends(); !s) {
      out.gpu_note = s.error().message;  // without the CLI's "--backend both: "
      if (const size_t at = out.gpu_note.find(": ");
          out.gpu_note.rfind("--backend", 0) == 0 && at != std::string::npos)
        out.gpu_note = out.gpu_note.substr(at + 2);
      out.backend = BackendKind::Sim;
      runner.emplace(toolchain, options(out.backend));
    }
  auto res = runner->run(*exp);
  if (!res) return res.error();
  out.result = std::move(*res);
  const bool sim = out.backend != BackendKind::Gpu, gpu = out.backend != BackendKind::Sim;
  // Without a GPU, the GPU side of the claims (and of predict questions' answers) from the
  // committed measurements, when they have this experiment at these values.
  std::string measured_on;
  std::optional<ExperimentResult> committed;
  bool wants_gpu_side = false;
  for (const LessonClaim& c : st.claims) wants_gpu_side |= c.where != LessonClaim::Where::Sim;
  for (const LessonQuestion& q : st.questions) wants_gpu_side |= q.predict;
  if (!gpu && wants_gpu_side)
    committed = result_from_committed_data(lesson, step, out.result, &measured_on);
  // 3. Answers (the simulator's, as `warplab lesson --answers` gives them) and claims.
  auto shown = [](const LessonQuestion& q, double v, std::string* error) {
    if (q.kind != LessonQuestion::Kind::Choice) return lesson_number(v);
    const long idx = std::lround(v);
    if (idx >= 0 && idx < long(q.choices.size())) return q.choices[size_t(idx)];
    if (error) *error = "index " + lesson_number(v) + " is not a choice";
    return lesson_number(v);
  };
  for (const LessonQuestion& q : st.questions) {
    StepAnswer a;
    if (auto v = eval_lesson_expr(q.answer, out.result, !sim); !v) {
      a.error = v.error().message;
    } else {
      a.value = *v;
      a.shown = shown(q, *v, &a.error);
    }
    // 3a. A predict question reveals the GPU's answer too (a value the data lack stays unset).
    if (q.predict && (gpu || committed)) {
      auto v = gpu ? eval_lesson_expr(q.answer, out.result, true)
                   : eval_lesson_expr(q.answer, *committed, true);
      if (v) {
        a.gpu_value = *v;
        a.gpu_shown = shown(q, *v, nullptr);
        if (!gpu) a.gpu_measured_on = measured_on;
      }
    }
    out.answers.push_back(std::move(a));
  }
  // 3b. A claim that reads another step (step(N)) reads that step's run, and on the GPU side
  // without a GPU that step's committed data (all of it, or the side is not evaluated).
  const std::vector<size_t> others = claim_run_steps(lesson, step);
  std::vector<const ExperimentResult*> sim_steps(lesson.steps.size(), nullptr);
  std::vector<std::optional<ExperimentResult>> committed_steps(lesson.steps.size());
  std::vector<const ExperimentResult*> committed_ptrs(lesson.steps.size(), nullptr);
  bool others_committed = committed.has_value();
  for (size_t n = 0; n < lesson.steps.size(); ++n)
    if (n < settings.steps.size()) sim_steps[n] = settings.steps[n];
  sim_steps[step] = &out.result;
  committed_ptrs[step] = committed ? &*committed : nullptr;
  for (size_t n : others) {
    if (!sim_steps[n] || gpu || !committed) continue;
    std::string on;
    committed_steps[n] = result_from_committed_data(lesson, n, *sim_steps[n], &on);
    if (committed_steps[n])
      committed_ptrs[n] = &*committed_steps[n];
    else
      others_committed = false;
  }
  auto claim_env = [&](bool on_gpu, bool from_data) {
    ExprEnv env;
    env.steps = from_data ? committed_ptrs : sim_steps;
    for (const LessonStep& s : lesson.steps) env.step_runs.push_back(!s.experiment.empty());
    env.result = env.steps[step];
    env.gpu = on_gpu;
    return env;
  };
  auto eval = [&](const LessonClaim& c, bool on_gpu, bool from_data) -> Expected<ClaimValue> {
    if (c.expr.find("step(") == std::string::npos)
      return eval_claim(c.expr, from_data ? *committed : out.result, on_gpu);
    bool pending = false;
    auto v = eval_env_claim(c.expr, claim_env(on_gpu, from_data), &pending);
    if (v && pending)
      return Error{"", 0, "the claim reads a step that has not run (run the steps it names first)"};
    return v;
  };
  for (size_t i = 0; i < st.claims.size(); ++i) {
    const LessonClaim& c = st.claims[i];
    for (const bool on_gpu : {false, true}) {
      if (on_gpu ? c.where == LessonClaim::Where::Sim : c.where == LessonClaim::Where::Gpu)
        continue;
      StepClaim cv;
      cv.claim = i;
      cv.on_gpu = on_gpu;
      cv.ran = on_gpu ? gpu : sim;
      const bool reads_others = c.expr.find("step(") != std::string::npos;
      if (cv.ran) {
        if (auto v = eval(c, on_gpu, false))
          cv.value = *v;
        else
          cv.error = v.error().message;
      } else if (on_gpu && committed && (!reads_others || others_committed)) {
        if (auto v = eval(c, true, true)) {
          cv.value = *v;
          cv.measured_on = measured_on;
        }  // a claim that reads what the data lack stays not evaluated
      }
      out.claims.push_back(std::move(cv));
    }
  }
  return out;
}

}  // namespace warplab::lab
