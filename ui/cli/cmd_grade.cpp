// `warplab grade ASSIGNMENT.toml STUDENT.cu [--json OUT] [--test-time-limit S] [--total-time-limit
// S]
// [--allow-unsandboxed]`: compiles the submission in the sandbox (lab/sandbox.h), runs every test
// of an assignment on the simulator (timing model, racecheck and synccheck on, hang limits) against
// its reference and prints per test the result, then one line:
//   GRADE assignment=NAME correct=yes|no hazards=N faults=N timeouts=N speed=X score=S
// Exit 0 when correct with no hazards or faults, 1 otherwise, 2 for bad input (a broken
// assignment, or the student's file does not compile: the error names its line).
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "lab/grade.h"
#include "lab/install_dirs.h"
#include "ui/cli/commands.h"
#include "sim/common/output_file.h"

namespace warplab::cli {
namespace {

struct GradeArgs {
  std::string assignment, student, json_path;
  bool verbose = false;
  bool sampled = false;  // refused: see run()
  lab::GradeOptions options;
};

int run(const GradeArgs& a) {
  // Sampled simulation extrapolates cycles: a score must come from the full model's exact,
  // deterministic cycles, and racecheck/synccheck must see every block.
  if (a.sampled)
    return report_error(Error{"", 0,
                              "--sampled: grade always simulates every block in detail (scores "
                              "need the full model's exact cycles; racecheck and synccheck need "
                              "every block)"});
  // A file, a folder, or a shipped assignment's name (`vector_add`), wherever warplab is installed.
  auto as = lab::load_assignment(lab::find_assignment(a.assignment));
  if (!as) return report_error(as.error());
  std::cout << "assignment " << as->name << ": write " << as->signature << "\n";
  lab::GradeOptions options = a.options;
  options.threads = resolve_threads(options.threads);
  auto g = lab::grade(*as, a.student, options);
  if (!g) return report_error(g.error());
  nlohmann::json j = {{"assignment", g->assignment}, {"correct", g->correct},
                      {"hazards", g->hazards},       {"faults", g->faults},
                      {"timeouts", g->timeouts},     {"speed", g->speed},
                      {"score", g->score},           {"tests", nlohmann::json::array()}};
  for (const lab::GradeTestResult& t : g->tests) {
    std::cout << "test " << t.name << ": "
              << (t.passed      ? "PASS"
                  : t.timed_out ? "TIMEOUT"
                  : t.faults    ? "FAULT"
                  : t.hazards   ? "HAZARD"
                                : "WRONG")
              << "  (cycles: reference " << t.reference_cycles << ", yours " << t.student_cycles
              << ")\n";
    if (!t.passed && !t.detail.empty()) {
      std::string d = t.detail;
      if (!a.verbose && d.size() > 1200) d = d.substr(0, 1200) + "...\n";
      std::cout << d;
    }
    j["tests"].push_back({{"name", t.name},
                          {"passed", t.passed},
                          {"hazards", t.hazards},
                          {"faults", t.faults},
                          {"timed_out", t.timed_out},
                          {"reference_cycles", t.reference_cycles},
                          {"student_cycles", t.student_cycles},
                          {"detail", t.detail}});
  }
  std::cout << g->line() << "\n";
  if (!a.json_path.empty()) {
    // Invalid UTF-8 (a file name, a kernel's printf) becomes U+FFFD, not an exception.
    const std::string text = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (auto s = write_output_file(a.json_path, text, "JSON file"); !s) return report_error(s.error());
  }
  return g->correct && g->hazards == 0 && g->faults == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Command add_grade_command(CLI::App& app) {
  auto a = std::make_shared<GradeArgs>();
  CLI::App* sub = app.add_subcommand(
      "grade", "Grade a student's kernel against an assignment (simulator, racecheck, synccheck)");
  sub->add_option("assignment", a->assignment,
                  "assignment.toml, its folder, or a shipped assignment's name (vector_add)")
      ->required();
  sub->add_option("student", a->student, "The student's .cu file")->required();
  sub->add_option("--json", a->json_path, "Write the per-test results as JSON");
  sub->add_flag("--verbose", a->verbose, "Print every report in full");
  a->options.threads = 0;
  add_threads_option(sub, a->options.threads);
  sub->add_flag("--sampled", a->sampled,
                "Refused: grading always simulates every block in detail (exit 2)");
  sub->add_option("--test-time-limit", a->options.test_time_limit,
                  "Seconds of wall clock for each test's student run, compile included "
                  "(default: the assignment's test_time_limit, else 180)")
      ->check(CLI::Range(0.001, 86400.0));
  sub->add_option("--total-time-limit", a->options.total_time_limit,
                  "Seconds of wall clock for the whole grade (default: the assignment's "
                  "total_time_limit, else 900)")
      ->check(CLI::Range(0.001, 86400.0));
  sub->add_flag("--allow-unsandboxed", a->options.allow_unsandboxed,
                "On a host without Landlock, compile the submission anyway: it could then read "
                "any file this process can (see the README's threat model)");
  return {sub, [a] { return run(*a); }};
}

}  // namespace warplab::cli
