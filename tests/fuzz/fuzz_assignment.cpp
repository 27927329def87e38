// Fuzz target: assignments (an instructor's assignment.toml) and submissions graded against them.
//
// The input is an assignment file, optionally followed by a line `#--- submission.ptx` and a
// submission's PTX (what compiling a student's .cu gives; the compile itself, seconds per input
// and sandboxed, is left out). load_assignment must return an Assignment or an Error naming a
// line. For one that loads: each test's `set` is applied to its experiment, and for the tests
// whose buffers are small the submission runs as the student's kernel on the functional
// simulator, as `warplab grade` runs it (hang limits on, checks off), which must end with a
// result or an Error, whatever the submission does. The assignment's reference.cu and
// experiment.toml are those of the shipped assignment whose name the input mentions first
// (transpose, reduction, softmax; transpose if none), copied into a scratch folder per process.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "lab/buffers.h"
#include "lab/compile.h"
#include "lab/experiment.h"
#include "lab/grade.h"
#include "lab/runner.h"
#include "tests/fuzz/fuzz_target.h"

using namespace warplab;
using namespace warplab::lab;
namespace fs = std::filesystem;

namespace {

const char* const kShipped[] = {"transpose", "reduction", "softmax"};

// The scratch folder: per shipped assignment, a folder with its reference.cu and experiment.toml
// (the fuzzed assignment.toml is written beside them); removed when the process ends.
struct Scratch {
  fs::path dir =
      fs::temp_directory_path() / ("warplab_fuzz_assignment_" + std::to_string(getpid()));
  Scratch() {
    for (const char* name : kShipped) {
      fs::create_directories(dir / name);
      const fs::path src = fs::path(WARPLAB_SOURCE_DIR) / "lessons/assignments" / name;
      for (const char* f : {"reference.cu", "experiment.toml"})
        fs::copy_file(src / f, dir / name / f, fs::copy_options::overwrite_existing);
    }
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

const fs::path& scratch() {
  static const Scratch s;
  return s.dir;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string marker = "#--- submission.ptx\n";
  const size_t at = input.find(marker);
  const std::string assignment = input.substr(0, at);
  const char* pick = kShipped[0];
  size_t first = std::string::npos;
  for (const char* name : kShipped)
    if (const size_t p = assignment.find(name); p < first) first = p, pick = name;
  const fs::path dir = scratch() / pick;
  write(dir / "assignment.toml", assignment);
  auto a = load_assignment((dir / "assignment.toml").string());
  if (!a) return 0;
  const bool has_submission = at != std::string::npos;
  if (has_submission) write(dir / "student.ptx", input.substr(at + marker.size()));
  Toolchain toolchain;
  for (const GradeTest& t : a->tests) {
    auto exp = load_experiment(a->experiment);
    if (!exp) return 0;
    bool ok = true;
    for (const auto& [k, v] : t.set) ok = ok && set_param(*exp, k + "=" + v);
    if (!ok || !has_submission) continue;
    auto env = exp->eval_env();
    if (!env) continue;
    uint64_t elements = 0;
    for (const BufferDef& b : exp->buffers) {
      auto c = b.count_from_npy || b.count_from_symbol ? Expected<int64_t>(int64_t{0})
                                                        : b.count.eval_int(*env);
      elements += c && *c >= 0 ? static_cast<uint64_t>(*c) : (uint64_t{1} << 40);
    }
    if (elements > (1 << 14)) continue;
    exp->checks.clear();
    exp->sweep.clear();
    exp->source = (dir / "student.ptx").string();
    exp->source_kind = Experiment::SourceKind::Ptx;
    RunOptions opt;
    opt.mode = SimMode::Functional;
    opt.count_lines = false;
    opt.max_instructions = 20000;
    Runner runner(toolchain, opt);
    (void)runner.run(*exp);
  }
  return 0;
}
