// Editing a kernel in the app (ui/app/model/kernel_edit.h): the edit is a scratch copy the run
// compiles, the lesson's file is untouched, and NVRTC's errors come back at the edited line.
#include <doctest/doctest.h>

#include <filesystem>

#include "lab/compile.h"
#include "ui/app/model/kernel_edit.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/run_snapshot.h"

using namespace warplab;
namespace fs = std::filesystem;

namespace {
std::string scratch_root() {
  const fs::path p = fs::temp_directory_path() / "warplab-716-edits";
  fs::remove_all(p);
  return p.string();
}
}  // namespace

TEST_CASE("716 kernel edit: a scratch copy, the original's folder for includes, errors by line") {
  const std::string root = scratch_root();
  const std::string src = std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/coalescing.cu";
  const std::string p = app::edit_path(root, src);
  CHECK(fs::path(p).filename() == "coalescing.cu");
  CHECK(fs::path(p).parent_path().parent_path() == fs::path(root));
  CHECK(app::edit_path(root, src) == p);  // the same file for the same kernel
  CHECK(app::edit_path(root, std::string(WARPLAB_SOURCE_DIR) + "/lessons/03-block-size/x.cu") != p);

  auto exp =
      lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/copy.toml");
  REQUIRE(exp);
  const std::string before = app::read_file_text(src);
  auto e = app::experiment_with_edit(*exp, "// edited\n" + before, root);
  REQUIRE(e);
  CHECK(e->source == p);
  CHECK(app::read_file_text(p) == "// edited\n" + before);
  CHECK(app::read_file_text(src) == before);  // the lesson's file is never written
  REQUIRE_FALSE(e->options.empty());
  CHECK(e->options.front() == "-I" + fs::path(src).parent_path().string());

  const std::string log = p + ":13: CUDA compile failed (NVRTC_ERROR_COMPILATION):\n" + p +
                          ":13: error: identifier \"threadIdx_q\" is undefined\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx_q;\n"
                          "                                      ^\n"
                          "/usr/local/cuda/include/x.h:3: error: in a header\n"
                          "1 error detected in the compilation of \"coalescing.cu\".\n"
                          "hint: something";
  const auto m = app::messages_by_line(log, p);
  REQUIRE(m.size() == 1);
  REQUIRE(m.count(13) == 1);
  REQUIRE(m.at(13).size() == 3);
  CHECK(m.at(13)[0] == "error: identifier \"threadIdx_q\" is undefined");
  CHECK(m.at(13)[2].find('^') != std::string::npos);
  fs::remove_all(root);
}

TEST_CASE("716 kernel edit: a run compiles the edit; a broken edit fails at its line") {
  if (!lab::Toolchain().has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return;
  }
  const std::string root = scratch_root();
  auto exp =
      lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/copy.toml");
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, "N=4096"));
  const std::string text = app::read_file_text(exp->source);
  const std::string token = "threadIdx.x;";
  REQUIRE(text.find(token) != std::string::npos);
  int token_line = 1;
  for (size_t i = 0; i < text.find(token); ++i) token_line += text[i] == '\n';

  std::string broken = text;
  broken.replace(broken.find(token), token.size(), "threadIdx_q;");
  auto bad = app::experiment_with_edit(*exp, broken, root);
  REQUIRE(bad);
  app::RunRequest req;
  req.experiment = *bad;
  req.use_gpu = false;
  const app::RunSnapshot fail = app::run_traced(req);
  REQUIRE_FALSE(fail.ok());
  CHECK(fail.source_path == app::edit_path(root, exp->source));
  const auto errors = app::messages_by_line(fail.error, fail.source_path);
  INFO(fail.error);
  REQUIRE(errors.count(token_line) == 1);
  CHECK(errors.at(token_line).front().find("threadIdx_q") != std::string::npos);

  // A working edit (the copy's y[j] = x[j] * 2 would fail the check; a comment does not).
  auto good = app::experiment_with_edit(*exp, "// the student's line\n" + text, root);
  REQUIRE(good);
  req.experiment = *good;
  const app::RunSnapshot ok = app::run_traced(req);
  INFO(ok.error);
  REQUIRE(ok.ok());
  CHECK(ok.source_path == app::edit_path(root, exp->source));
  REQUIRE(ok.source_lines.size() > 1);
  CHECK(ok.source_lines[0] == "// the student's line");
  for (const lab::CheckResult& c : ok.checks) CHECK(c.passed);
  fs::remove_all(root);
}
