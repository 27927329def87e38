// `warplab lessons` lists the lessons; `warplab lesson ID` runs one in the terminal: each page as
// text, its experiments, its questions (asked on a terminal, or answered with --answers) and its
// claims, each printed with both sides' values. Exit 1 when a claim fails or an experiment's
// check fails, 2 for a broken lesson or experiment file (file:line).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "lab/lesson.h"
#include "lab/lesson_page.h"
#include "lab/lesson_step.h"
#include "lab/report.h"
#include "lab/triton.h"
#include "sim/common/output_file.h"
#include "ui/cli/commands.h"

namespace warplab::cli {
namespace {

using json = nlohmann::json;

// Markdown as terminal text: emphasis and code marks dropped, headings underlined.
void print_page(const std::string& text) {
  std::istringstream in(text);
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

struct LessonArgs {
  std::string id, backend = "sim", json_path, config, l2 = "cold";
  std::vector<std::string> sets;
  int threads = 0;       // --threads (0 = all cores)
  bool sampled = false;  // --sampled
  bool answers = false, ci = false, quiet_pages = false;
  bool triton_only = false;  // only the Triton steps (and the steps their pages read)
  bool sandbox = false, allow_unsandboxed = false;  // compile as untrusted code (lab/sandbox.h)
};

// A lesson by id or number among lessons_dir()'s, or the lesson at a path (a folder holding
// lesson.toml, or the file itself), wherever it is.
Expected<lab::Lesson> find_lesson(const std::string& id) {
  std::error_code ec;
  if (id.find('/') != std::string::npos || std::filesystem::exists(id + "/lesson.toml", ec) ||
      (id.size() > 5 && id.substr(id.size() - 5) == ".toml"))
    return lab::load_lesson(id);
  const std::string root = lab::lessons_dir();
  if (root.empty())
    return Error{"", 0,
                 "no lessons folder found (set WARPLAB_LESSONS_DIR, or give the lesson's folder: "
                 "warplab lesson path/to/lesson)"};
  std::vector<Error> broken;
  auto all = lab::load_lessons(root, &broken);
  if (!all) return all.error();
  for (lab::Lesson& l : *all)
    if (l.id == id || l.id.rfind(id, 0) == 0) return std::move(l);
  for (const Error& e : broken)  // the lesson asked for may be the broken one
    if (std::filesystem::path(e.file).parent_path().filename().string().rfind(id, 0) == 0) return e;
  std::string ids;
  for (const lab::Lesson& l : *all) ids += (ids.empty() ? "" : ", ") + l.id;
  return Error{"", 0, "no lesson '" + id + "' in " + root + " (lessons: " + ids + ")"};
}

int run_lesson(const LessonArgs& a) {
  auto found = find_lesson(a.id);
  if (!found) return report_error(found.error());
  const lab::Lesson* lesson = &*found;
  auto backend = lab::parse_backend(a.backend);
  if (!backend) return report_error(Error{"", 0, "--backend: " + backend.error().message});
  if (auto l2 = lab::parse_l2_start(a.l2); !l2)
    return report_error(Error{"", 0, "--l2: " + l2.error().message});
  // Steps that cannot run here (a Triton step without Triton) are skipped with one line each and
  // the rest of the lesson runs; a lesson with nothing else to run (every experiment a Triton
  // kernel) is one line and nothing else. --triton-only keeps the Triton steps (and the steps
  // their pages read).
  std::vector<std::string> unavailable(lesson->steps.size());
  std::vector<bool> wanted(lesson->steps.size(), true);
  bool any_runs = false, any_triton = false;
  for (size_t si = 0; si < lesson->steps.size(); ++si) {
    if (lesson->steps[si].experiment.empty()) continue;
    unavailable[si] = lab::lesson_step_unavailable(*lesson, si);
    any_runs = any_runs || unavailable[si].empty();
    if (a.triton_only) wanted[si] = lab::lesson_step_is_triton(*lesson, si);
    any_triton = any_triton || (a.triton_only && wanted[si]);
  }
  if (a.triton_only && !any_triton) {
    std::cout << "SKIPPED lesson " << lesson->id << ": it has no Triton steps (--triton-only)\n";
    return kExitOk;
  }
  const bool any_unavailable =
      std::any_of(unavailable.begin(), unavailable.end(), [](auto& w) { return !w.empty(); });
  if (!any_runs && any_unavailable)
    if (const std::string why = lab::TritonBridge().why_unavailable(); !why.empty()) {
      std::cout << "SKIPPED lesson " << lesson->id << ": its Triton kernels need Triton: " << why
                << "\n";
      return kExitOk;
    }
  if (a.triton_only)  // a kept step's page and claims may read other steps' runs
    for (size_t si = 0; si < lesson->steps.size(); ++si)
      if (wanted[si] && lab::lesson_step_is_triton(*lesson, si)) {
        for (size_t need : lab::page_run_steps(*lesson, si)) wanted[need] = true;
        for (size_t need : lab::claim_run_steps(*lesson, si)) wanted[need] = true;
      }
  lab::Toolchain toolchain;
  lab::StepRunSettings settings;  // lab/lesson_step.h runs each step as the app does
  settings.backend = *backend;
  settings.config = a.config;
  settings.l2 = a.l2;
  settings.ci = a.ci;
  settings.sets = a.sets;
  settings.threads = resolve_threads(a.threads);
  settings.sampled = a.sampled;
  // A long step on a terminal: where its launch is and the time left (stderr; not with --json).
  bool progress_shown = false;
  if (isatty(STDERR_FILENO) && a.json_path.empty())
    settings.on_timing_progress = [&](const timing::TimingProgress& p) {
      std::cerr << "\r\033[K  simulating: "
                << format_timing_progress(
                       {p.cycle, p.blocks_done, p.blocks_total, p.seconds, p.phase})
                << std::flush;
      progress_shown = true;
    };
  if (a.sandbox) {
    settings.sandbox = lab::SandboxPolicy{};
    settings.sandbox->allow_unconfined = a.allow_unsandboxed;
  }
  const bool interactive = !a.answers && isatty(STDIN_FILENO);
  int failed_claims = 0, held = 0, skipped = 0, failed_checks = 0, asked = 0, score = 0;
  json out = {{"lesson", lesson->id},
              {"title", lesson->title},
              {"backend", a.backend},
              {"l2", a.l2},
              {"steps", json::array()}};
  if (a.sampled) out["sampled"] = true;  // each launch's "sampled" object says how much
  std::cout << lesson->title << "\n" << std::string(lesson->title.size(), '#') << "\n";
  if (!lesson->summary.empty()) std::cout << lesson->summary << "\n";
  if (a.sampled)
    std::cout << "(sampled simulation: grids of many waves run some waves in detail and "
                 "extrapolate the rest: figures are estimates of the full model's)\n";
  std::cout << "\n";
  // Each step runs once; a page is printed after the runs its values read (its own step's, and
  // any step(N) it names), so it shows them.
  std::vector<std::optional<lab::StepRun>> runs(lesson->steps.size());
  std::vector<std::string> run_l2(lesson->steps.size());
  std::vector<bool> starting(lesson->steps.size(), false);
  std::function<Status(size_t)> ensure_run = [&](size_t si) -> Status {
    if (runs[si] || lesson->steps[si].experiment.empty()) return Ok{};
    // The steps its claims read (step(N)) run first, with the same settings.
    lab::StepRunSettings with_steps = settings;
    with_steps.steps.assign(lesson->steps.size(), nullptr);
    starting[si] = true;  // two steps whose claims read each other: the second reads no run
    for (size_t need : lab::claim_run_steps(*lesson, si)) {
      if (!starting[need])
        if (auto s = ensure_run(need); !s) return s;
      if (runs[need]) with_steps.steps[need] = &runs[need]->result;
    }
    auto r = lab::run_lesson_step(toolchain, *lesson, si, with_steps,
                                  [&](const std::string& l2) { run_l2[si] = l2; });
    if (progress_shown) std::cerr << "\r\033[K" << std::flush;
    progress_shown = false;
    if (!r) return r.error();
    runs[si] = std::move(*r);
    return Ok{};
  };
  for (size_t si = 0; si < lesson->steps.size(); ++si) {
    const lab::LessonStep& st = lesson->steps[si];
    json js = {{"step", si},
               {"page", st.page},
               {"experiment", st.experiment},
               {"questions", json::array()},
               {"claims", json::array()}};
    if (!wanted[si]) continue;
    // A step that cannot run here, or whose page reads one that cannot: one line, its claims
    // counted as skipped.
    std::string why = unavailable[si];
    if (!st.page.empty())
      for (size_t need : lab::page_run_steps(*lesson, si))
        if (why.empty() && !unavailable[need].empty()) why = unavailable[need];
    for (size_t need : lab::claim_run_steps(*lesson, si))
      if (why.empty() && !unavailable[need].empty()) why = unavailable[need];
    if (!why.empty()) {
      std::cout << "SKIPPED step " << si + 1 << " ("
                << std::filesystem::path(st.experiment).filename().string() << "): " << why
                << "\n\n";
      skipped += static_cast<int>(st.claims.size());
      js["skipped"] = why;
      out["steps"].push_back(js);
      continue;
    }
    if (!st.page.empty()) {
      for (size_t need : lab::page_run_steps(*lesson, si))
        if (auto s = ensure_run(need); !s) return report_error(s.error());
      std::vector<const lab::ExperimentResult*> results;
      for (const auto& r : runs) results.push_back(r ? &r->result : nullptr);
      const lab::RenderedPage page = lab::render_lesson_page(*lesson, si, results, *lesson->data);
      if (!page.errors.empty()) return report_error(page.errors.front());
      if (!a.quiet_pages) print_page(page.text);
    }
    if (st.experiment.empty()) {
      out["steps"].push_back(js);
      continue;
    }
    if (auto s = ensure_run(si); !s) return report_error(s.error());
    std::cout << "--- experiment " << st.experiment << " (" << a.backend << ", L2 " << run_l2[si]
              << (st.l2.empty() ? "" : ", as the step says") << ")\n";
    const lab::StepRun* run = &*runs[si];
    js["l2"] = run->l2;
    if (!run->result.passed()) {
      ++failed_checks;
      std::cout << "    the experiment's checks FAILED (warplab run " << st.experiment
                << " shows them)\n";
    } else {
      std::cout << "    ran; its checks passed\n";
    }
    std::cout << lab::format_step_table(run->result, run->backend == lab::BackendKind::Gpu);
    for (size_t qi = 0; qi < st.questions.size(); ++qi) {
      const lab::LessonQuestion& q = st.questions[qi];
      const lab::StepAnswer& ans = run->answers[qi];
      if (!ans.error.empty())
        return report_error(Error{lesson->path, q.line, "question answer: " + ans.error});
      std::cout << "\nQUESTION " << q.text << "\n";
      for (size_t c = 0; c < q.choices.size(); ++c)
        std::cout << "  " << c + 1 << ") " << q.choices[c] << "\n";
      json jq = {{"text", q.text}, {"answer", ans.shown}, {"value", *ans.value}};
      if (interactive) {
        std::cout << "your answer: " << std::flush;
        std::string reply;
        std::getline(std::cin, reply);
        bool right = lab::reply_is_right(q, *ans.value, reply);
        if (!right && !q.hint.empty()) {  // a hint, and one more try, before the answer
          std::cout << "not yet. Hint: " << q.hint << "\nyour answer: " << std::flush;
          std::getline(std::cin, reply);
          right = lab::reply_is_right(q, *ans.value, reply);
        }
        ++asked;
        score += right;
        std::cout << (right ? "right" : "not quite") << ": the simulator says " << ans.shown
                  << "\n";
        jq["reply"] = reply;
        jq["right"] = right;
      } else if (a.answers) {
        std::cout << "answer (from the simulator's run): " << ans.shown << "\n";
      } else {
        std::cout << "(answer it on a terminal, or see it with --answers)\n";
      }
      if (!q.explain.empty() && (interactive || a.answers)) std::cout << q.explain << "\n";
      js["questions"].push_back(jq);
    }
    for (const lab::StepClaim& cv : run->claims) {
      const lab::LessonClaim& c = st.claims[cv.claim];
      const char* who = cv.on_gpu ? "GPU" : "simulator";
      json jc = {{"text", c.text}, {"expr", c.expr}, {"on", cv.on_gpu ? "gpu" : "sim"}};
      if (!cv.ran && cv.value) {  // the GPU side from the committed measurements
        const lab::ClaimValue& v = *cv.value;
        v.holds ? ++held : ++failed_claims;
        std::cout << "CLAIM " << (v.holds ? "PASS" : "FAIL") << " (GPU, measured on "
                  << cv.measured_on << ") " << c.text << "\n      " << c.expr << "  ->  "
                  << lab::claim_value_text(v) << "\n";
        jc["status"] = v.holds ? "pass" : "fail";
        jc["measured_on"] = cv.measured_on;
        jc["lhs"] = v.lhs;
        jc["rhs"] = v.rhs;
        js["claims"].push_back(jc);
        continue;
      }
      if (!cv.ran) {
        ++skipped;
        jc["status"] = "skipped";
        std::cout << "CLAIM SKIP (" << who << " not run) " << c.text << "\n";
        js["claims"].push_back(jc);
        continue;
      }
      if (!cv.error.empty()) return report_error(Error{lesson->path, c.line, "claim: " + cv.error});
      const lab::ClaimValue& v = *cv.value;
      v.holds ? ++held : ++failed_claims;
      std::cout << "CLAIM " << (v.holds ? "PASS" : "FAIL") << " (" << who << ") " << c.text
                << "\n      " << c.expr << "  ->  " << lab::claim_value_text(v) << "\n";
      jc["status"] = v.holds ? "pass" : "fail";
      jc["lhs"] = v.lhs;
      jc["rhs"] = v.rhs;
      js["claims"].push_back(jc);
    }
    out["steps"].push_back(js);
    std::cout << "\n";
  }
  if (asked > 0) {
    std::cout << "SCORE " << score << " of " << asked << " questions right\n";
    out["score"] = score;
    out["questions_asked"] = asked;
  }
  std::cout << "LESSON " << lesson->id << " claims_passed=" << held
            << " claims_failed=" << failed_claims << " claims_skipped=" << skipped
            << " checks_failed=" << failed_checks << "\n";
  out["claims_passed"] = held;
  out["claims_failed"] = failed_claims;
  out["claims_skipped"] = skipped;
  if (!a.json_path.empty()) {
    // Invalid UTF-8 (a file name, a kernel's printf) becomes U+FFFD, not an exception.
    const std::string text =
        out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (auto s = write_output_file(a.json_path, text, "JSON file"); !s)
      return report_error(s.error());
  }
  return failed_claims || failed_checks ? kExitFailed : kExitOk;
}

int list_lessons() {
  const std::string root = lab::lessons_dir();
  if (root.empty())
    return report_error(Error{"", 0, "no lessons folder found (set WARPLAB_LESSONS_DIR)"});
  std::vector<Error> broken;
  auto all = lab::load_lessons(root, &broken);
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
  std::cout << "(" << root << ")\n";
  for (const Error& e : broken) std::cerr << "warplab: broken lesson: " << e.to_string() << "\n";
  return broken.empty() ? kExitOk : kExitBadInput;
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
  sub->add_option("id", a->id, "Lesson id (or its number, e.g. 02), or the path of a lesson folder")
      ->required();
  sub->add_option("--backend", a->backend, "sim, gpu or both (claims say where they must hold)");
  sub->add_option("--config", a->config, "Timing preset (default h100-sxm)");
  sub->add_option("--l2", a->l2,
                  "cold (default): every timed launch starts with an empty L2 on both backends; "
                  "warm: after warm-up launches of the same kernel")
      ->capture_default_str();
  sub->add_flag("--answers", a->answers, "Print each question's answer instead of asking");
  sub->add_flag("--ci", a->ci, "Use the lesson's smaller CI sizes (ci_set)");
  sub->add_flag("--no-pages", a->quiet_pages, "Do not print the pages");
  sub->add_flag("--triton-only", a->triton_only,
                "Only the steps that run Triton kernels (and the steps their pages read)");
  sub->add_flag("--sandbox", a->sandbox,
                "Compile the CUDA sources as untrusted code (Landlock-confined child, limits, no "
                "PTX cache), as `warplab grade` does");
  sub->add_flag("--allow-unsandboxed", a->allow_unsandboxed,
                "With --sandbox on a host without Landlock: compile anyway");
  sub->add_option("--set", a->sets, "Override a parameter: --set NAME=VALUE (repeatable)");
  add_threads_option(sub, a->threads);
  add_sampled_option(sub, a->sampled);
  sub->add_option("--json", a->json_path, "Write the questions and claims as JSON");
  return {sub, [a] { return run_lesson(*a); }};
}

}  // namespace warplab::cli
