// Grading a student's kernel (`warplab grade ASSIGNMENT.toml STUDENT.cu`).
//
// An assignment (lessons/assignments/NAME/assignment.toml, documented in lessons/FORMAT.md) names
// the kernel to write and its exact signature, a reference solution, an experiment file that
// launches the kernel, the output buffers to compare, tolerances, the tests (parameter values:
// edge cases such as sizes that are not a multiple of the block, one element, non-square, large)
// and a speed target in simulated cycles on a named preset.
//
// Every test runs on the simulator's timing model (deterministic cycles, so fair) with racecheck
// and synccheck on and hang limits set, first with the reference (its outputs are what the
// student's must match, within the tolerances; its cycles are the speed yardstick), then with the
// student's file. Score (0..100), correctness first:
//   70 x (tests that pass with no fault and no hazard) / tests
//   + 30 x min(1, speed / target) when every test passes cleanly,
// where speed = reference cycles / student cycles, summed over the tests.
//
// The submission is untrusted (a security boundary, see README "Threat model for grading"):
// - it is compiled in the sandbox (lab/sandbox.h) that may read only the CUDA toolkit and the
//   submission file, never through the PTX cache;
// - each test's student run happens in a forked child process, on inputs made afresh from the
//   experiment (as the reference's are), and is killed past the per-test wall-clock limit or what
//   is left of the total one: the test is then TIMEOUT (scored as failing, not a crash);
// - inputs (the buffers passed to the signature's `const T*` parameters, or the assignment's
//   `inputs`) must be unchanged after the student's kernel, or the test is WRONG.
#pragma once

#include <string>
#include <vector>

#include "lab/experiment.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct GradeTest {
  std::string name;
  std::vector<std::pair<std::string, std::string>> set;  // parameter values
  int line = 0;
};

struct Assignment {
  std::string path, dir, name, description, kernel, signature;
  std::string reference;             // resolved .cu path
  std::string experiment;            // resolved experiment file (its source is replaced per run)
  std::vector<std::string> outputs;  // buffers compared with the reference's
  double atol = 0, rtol = 0;
  std::string preset = "h100-sxm";
  double target_speed = 1.0;  // full speed marks at reference cycles / student cycles >= this
  uint64_t max_instructions = 2'000'000;  // hang limit per warp (instructions)
  uint64_t max_cycles = 20'000'000;       // hang limit per launch (simulated cycles)
  // Wall-clock budgets (seconds): each test's student run (its compile included), and the whole
  // grade. Keys `test_time_limit`, `total_time_limit`.
  double test_time_limit = 180, total_time_limit = 900;
  // Buffers the kernel must not change (key `inputs`); empty = the buffers passed to the
  // signature's `const T*` parameters.
  std::vector<std::string> inputs;
  std::vector<GradeTest> tests;
};

Expected<Assignment> load_assignment(const std::string& path);

struct GradeTestResult {
  std::string name;
  bool passed = false;  // outputs match, no fault, no hazard
  bool outputs_match = false;  // and the inputs unchanged
  bool timed_out = false;      // stopped (or never started) by a wall-clock limit
  int hazards = 0, faults = 0;
  uint64_t reference_cycles = 0, student_cycles = 0;
  std::string detail;  // what differed, the fault or hazard reports
};

struct GradeResult {
  std::string assignment;
  std::vector<GradeTestResult> tests;
  bool correct = false;  // every test's outputs match the reference's
  int hazards = 0, faults = 0, timeouts = 0;
  double speed = 0;  // reference cycles / student cycles (0 when not every test ran)
  int score = 0;
  std::string line() const;  // GRADE assignment=... correct=... hazards=... faults=... timeouts=...
                             // speed=... score=...
};

// Compiles and runs everything. An Error is bad input: a broken assignment, or the student's
// file does not compile (the message names the student's file and line).
// How grade() may run: the command line's overrides of the assignment's time limits (0 = keep
// the assignment's) and the sandbox's settings.
struct GradeOptions {
  double test_time_limit = 0, total_time_limit = 0;
  bool allow_unsandboxed = false;  // compile without Landlock where it is missing (risk accepted)
  std::string sandbox_helper;      // "" = this program (see SandboxPolicy::helper)
  // Host threads per launch (RunOptions::threads; 0 = all cores). Graded launches run with
  // synccheck and racecheck, which the timing model runs on one thread (parallel_loop.h).
  int threads = 1;
};

// The buffers `a`'s kernel must leave unchanged for the experiment `exp`.
std::vector<std::string> input_buffers(const Assignment& a, const Experiment& exp);

Expected<GradeResult> grade(const Assignment& a, const std::string& student_cu,
                            const GradeOptions& options = {});

}  // namespace warplab::lab
