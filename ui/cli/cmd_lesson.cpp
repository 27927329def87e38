// `warplab lessons` lists the lessons; `warplab lesson ID` runs one in the terminal: each page as
// text, its experiments, its questions (asked on a terminal, or answered with --answers) and its
// claims, each printed with both sides' values. Exit 1 when a claim fails or an experiment's
// check fails, 2 for a broken lesson or experiment file (file:line).
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "lab/lesson.h"
#include "lab/report.h"
#include "ui/cli/commands.h"

namespace warplab::cli {
namespace {

using json = nlohmann::json;

std::string lessons_root() { return std::string(WARPLAB_SOURCE_DIR) + "/lessons"; }

// Markdown as terminal text: emphasis and code marks dropped, headings underlined.
void print_page(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  bool fence = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      fence = !fence;
      continue;
    }
    if (!fence) {
      std::string out;
      for (size_t i = 0; i < line.size(); ++i) {
        if (line.compare(i, 2, "**") == 0) {
          ++i;
          continue;
        }
        if (line[i] == '`') continue;
        out += line[i];
      }
      if (out.rfind("#", 0) == 0) {
        const size_t b = out.find_first_not_of("# ");
        const std::string h = b == std::string::npos ? "" : out.substr(b);
        std::cout << h << "\n"
                  << std::string(h.size(), out.rfind("##", 0) == 0 ? '-' : '=') << "\n";
        continue;
      }
      line = out;
    } else {
      line = "    " + line;
    }
    std::cout << line << "\n";
  }
  std::cout << "\n";
}

std::string fmt(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

struct LessonArgs {
  std::string id, backend = "sim", json_path, config, l2 = "cold";
  std::vector<std::string> sets;
  bool answers = false, ci = false, quiet_pages = false;
};

int run_lesson(const LessonArgs& a) {
  auto all = lab::load_lessons(lessons_root());
  if (!all) return report_error(all.error());
  const lab::Lesson* lesson = nullptr;
  for (const lab::Lesson& l : *all)
    if (l.id == a.id || l.id.rfind(a.id, 0) == 0) {
      lesson = &l;
      break;
    }
  if (!lesson) {
    std::string ids;
    for (const lab::Lesson& l : *all) ids += (ids.empty() ? "" : ", ") + l.id;
    return report_error(Error{"", 0, "no lesson '" + a.id + "' (lessons: " + ids + ")"});
  }
  auto backend = lab::parse_backend(a.backend);
  if (!backend) return report_error(Error{"", 0, "--backend: " + backend.error().message});
  const bool sim = *backend != lab::BackendKind::Gpu, gpu = *backend != lab::BackendKind::Sim;
  lab::Toolchain toolchain;
  lab::RunOptions opt;
  opt.backend = *backend;
  opt.mode = lab::SimMode::Timing;
  opt.config = a.config;
  opt.count_lines = false;
  auto l2 = lab::parse_l2_start(a.l2);
  if (!l2) return report_error(Error{"", 0, "--l2: " + l2.error().message});
  opt.l2 = *l2;
  // Claims read sectors, instructions and DRAM bytes: on the GPU those are hardware counters.
  if (gpu) opt.gpu.counters = true;
  const bool interactive = !a.answers && isatty(STDIN_FILENO);
  int failed_claims = 0, held = 0, skipped = 0, failed_checks = 0;
  json out = {{"lesson", lesson->id},
              {"title", lesson->title},
              {"backend", a.backend},
              {"l2", a.l2},
              {"steps", json::array()}};
  std::cout << lesson->title << "\n" << std::string(lesson->title.size(), '#') << "\n";
  if (!lesson->summary.empty()) std::cout << lesson->summary << "\n";
  std::cout << "\n";
  for (size_t si = 0; si < lesson->steps.size(); ++si) {
    const lab::LessonStep& st = lesson->steps[si];
    json js = {{"step", si},
               {"page", st.page},
               {"experiment", st.experiment},
               {"questions", json::array()},
               {"claims", json::array()}};
    if (!st.page.empty() && !a.quiet_pages) print_page(st.page);
    if (st.experiment.empty()) {
      out["steps"].push_back(js);
      continue;
    }
    auto exp = lab::load_experiment(st.experiment);
    if (!exp) return report_error(exp.error());
    auto apply = [&](const std::vector<std::pair<std::string, std::string>>& kv) -> Status {
      for (const auto& [k, v] : kv)
        if (auto s = lab::set_param(*exp, k + "=" + v); !s)
          return Error{lesson->path, st.line,
                       "steps[" + std::to_string(si) + "]: " + s.error().message};
      return Ok{};
    };
    if (auto s = apply(st.set); !s) return report_error(s.error());
    if (a.ci)
      if (auto s = apply(st.ci_set); !s) return report_error(s.error());
    for (const std::string& s : a.sets)
      if (auto r = lab::set_param(*exp, s); !r) return report_error(r.error());
    const std::string l2_name = st.l2.empty() ? a.l2 : st.l2;
    std::cout << "--- experiment " << st.experiment << " (" << a.backend << ", L2 " << l2_name
              << (st.l2.empty() ? "" : ", as the step says") << ")\n"
              << std::flush;
    lab::RunOptions step_opt = opt;
    step_opt.l2 = *lab::parse_l2_start(l2_name);
    js["l2"] = l2_name;
    lab::Runner runner(toolchain, step_opt);
    auto res = runner.run(*exp);
    if (!res) return report_error(res.error());
    if (!res->passed()) {
      ++failed_checks;
      std::cout << "    the experiment's checks FAILED (warplab run " << st.experiment
                << " shows them)\n";
    } else {
      std::cout << "    ran; its checks passed\n";
    }
    for (const lab::LessonQuestion& q : st.questions) {
      auto ans = lab::eval_lesson_expr(q.answer, *res, !sim);
      if (!ans)
        return report_error(Error{lesson->path, q.line, "question answer: " + ans.error().message});
      std::string shown = fmt(*ans);
      if (q.kind == lab::LessonQuestion::Kind::Choice) {
        const long idx = std::lround(*ans);
        if (idx < 0 || idx >= static_cast<long>(q.choices.size()))
          return report_error(
              Error{lesson->path, q.line, "question answer: index " + shown + " is not a choice"});
        shown = q.choices[idx];
      }
      std::cout << "\nQUESTION " << q.text << "\n";
      for (size_t c = 0; c < q.choices.size(); ++c)
        std::cout << "  " << c + 1 << ") " << q.choices[c] << "\n";
      json jq = {{"text", q.text}, {"answer", shown}, {"value", *ans}};
      if (interactive) {
        std::cout << "your answer: " << std::flush;
        std::string reply;
        std::getline(std::cin, reply);
        bool right = false;
        if (q.kind == lab::LessonQuestion::Kind::Choice) {
          right = reply == std::to_string(std::lround(*ans) + 1) || reply == shown;
        } else {
          char* e = nullptr;
          const double v = std::strtod(reply.c_str(), &e);
          right = e != reply.c_str() &&
                  std::fabs(v - *ans) <= std::max(q.tolerance * std::fabs(*ans), 1e-9);
        }
        std::cout << (right ? "right" : "not quite") << ": the simulator says " << shown << "\n";
        jq["reply"] = reply;
        jq["right"] = right;
      } else if (a.answers) {
        std::cout << "answer (from the simulator's run): " << shown << "\n";
      } else {
        std::cout << "(answer it on a terminal, or see it with --answers)\n";
      }
      if (!q.explain.empty() && (interactive || a.answers)) std::cout << q.explain << "\n";
      js["questions"].push_back(jq);
    }
    for (const lab::LessonClaim& c : st.claims) {
      const bool want_sim = c.where != lab::LessonClaim::Where::Gpu;
      const bool want_gpu = c.where != lab::LessonClaim::Where::Sim;
      for (int side = 0; side < 2; ++side) {
        const bool on_gpu = side == 1;
        if (on_gpu ? !want_gpu : !want_sim) continue;
        const char* who = on_gpu ? "GPU" : "simulator";
        json jc = {{"text", c.text}, {"expr", c.expr}, {"on", on_gpu ? "gpu" : "sim"}};
        if (on_gpu ? !gpu : !sim) {
          ++skipped;
          jc["status"] = "skipped";
          std::cout << "CLAIM SKIP (" << who << " not run) " << c.text << "\n";
          js["claims"].push_back(jc);
          continue;
        }
        auto v = lab::eval_claim(c.expr, *res, on_gpu);
        if (!v) return report_error(Error{lesson->path, c.line, "claim: " + v.error().message});
        v->holds ? ++held : ++failed_claims;
        std::cout << "CLAIM " << (v->holds ? "PASS" : "FAIL") << " (" << who << ") " << c.text
                  << "\n      " << c.expr << "  ->  " << fmt(v->lhs) << " " << v->op << " "
                  << fmt(v->rhs) << "\n";
        jc["status"] = v->holds ? "pass" : "fail";
        jc["lhs"] = v->lhs;
        jc["rhs"] = v->rhs;
        js["claims"].push_back(jc);
      }
    }
    out["steps"].push_back(js);
    std::cout << "\n";
  }
  std::cout << "LESSON " << lesson->id << " claims_passed=" << held
            << " claims_failed=" << failed_claims << " claims_skipped=" << skipped
            << " checks_failed=" << failed_checks << "\n";
  out["claims_passed"] = held;
  out["claims_failed"] = failed_claims;
  out["claims_skipped"] = skipped;
  if (!a.json_path.empty()) {
    std::ofstream f(a.json_path);
    if (!f) return report_error(Error{a.json_path, 0, "cannot write"});
    f << out.dump(1) << "\n";
  }
  return failed_claims || failed_checks ? kExitFailed : kExitOk;
}

int list_lessons() {
  auto all = lab::load_lessons(lessons_root());
  if (!all) return report_error(all.error());
  for (const lab::Lesson& l : *all) {
    int exps = 0, claims = 0, questions = 0;
    for (const auto& s : l.steps) {
      exps += !s.experiment.empty();
      claims += static_cast<int>(s.claims.size());
      questions += static_cast<int>(s.questions.size());
    }
    std::cout << l.id << "  " << l.title << "  steps=" << l.steps.size() << " experiments=" << exps
              << " questions=" << questions << " claims=" << claims << "\n";
  }
  return kExitOk;
}

}  // namespace

Command add_lessons_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("lessons", "List the lessons (id, title, steps, experiments)");
  return {sub, [] { return list_lessons(); }};
}

Command add_lesson_command(CLI::App& app) {
  auto a = std::make_shared<LessonArgs>();
  CLI::App* sub = app.add_subcommand(
      "lesson", "Run a lesson in the terminal: pages, experiments, questions and claims");
  sub->add_option("id", a->id, "Lesson id (or its number, e.g. 02)")->required();
  sub->add_option("--backend", a->backend, "sim, gpu or both (claims say where they must hold)");
  sub->add_option("--config", a->config, "Timing preset (default h100-sxm)");
  sub->add_option("--l2", a->l2,
                  "cold (default): every timed launch starts with an empty L2 on both backends; "
                  "warm: after warm-up launches of the same kernel")
      ->capture_default_str();
  sub->add_flag("--answers", a->answers, "Print each question's answer instead of asking");
  sub->add_flag("--ci", a->ci, "Use the lesson's smaller CI sizes (ci_set)");
  sub->add_flag("--no-pages", a->quiet_pages, "Do not print the pages");
  sub->add_option("--set", a->sets, "Override a parameter: --set NAME=VALUE (repeatable)");
  sub->add_option("--json", a->json_path, "Write the questions and claims as JSON");
  return {sub, [a] { return run_lesson(*a); }};
}

}  // namespace warplab::cli
