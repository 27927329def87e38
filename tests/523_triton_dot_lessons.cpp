// Triton's tl.dot on the simulator and the Triton twins in the lessons (issue 24):
//  - the instruction-mix metrics (inst_CLASS) the twin pages embed, over a run's records;
//  - warplab lesson without Triton: the Triton step is one SKIPPED line, the rest still runs;
//  - where Triton is installed: the fp16 tl.dot matmul for sm_80 (cp.async stages, ldmatrix,
//    mma.sync) compiled by it and run on the simulator, C checked exactly against numpy's
//    float64 product (validation/experiments/triton-matmul-fp16-sm80.toml says why exactly).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "50x_cli.h"
#include "lab/lesson.h"
#include "lab/runner.h"
#include "lab/triton.h"

using namespace warplab;

namespace {

std::string src(const std::string& rel) { return std::string(WARPLAB_SOURCE_DIR) + "/" + rel; }

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("523 inst_CLASS: executed warp instructions of one class, summed over launches") {
  lab::ExperimentResult r;
  r.run = lab::RunResult{};
  for (int k = 0; k < 2; ++k) {
    lab::LaunchRecord rec;
    rec.kernel = "k";
    rec.sim = {{"time_us", 1.0},
               {"instructions_by_class", {{"int", 10 + k}, {"tensor", 4}, {"warp", 0}}}};
    r.run->launches.push_back(rec);
  }
  auto v = lab::eval_lesson_expr("launch(\"k\").inst_int", r, false);
  REQUIRE(v);
  CHECK(*v == 21);
  auto t = lab::eval_lesson_expr("launch(\"k\").inst_tensor / launch(\"k\").inst_int", r, false);
  REQUIRE(t);
  CHECK(*t == doctest::Approx(8.0 / 21.0));
  auto none = lab::eval_lesson_expr("launch(\"k\").inst_sfu", r, false);  // a class not run: 0
  REQUIRE(none);
  CHECK(*none == 0);
  auto bad = lab::eval_lesson_expr("launch(\"k\").inst_nope", r, false);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("inst_tensor") != std::string::npos);
}

TEST_CASE("523 warplab lesson without Triton: the Triton step is skipped, the rest runs") {
  auto r = test::run_warplab_env("WARPLAB_PYTHON=/nonexistent/python3",
                   "lesson 01 --ci --answers --no-pages --backend sim", "lesson_no_triton");
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(count_of(r.out, "SKIPPED") == 1);
  CHECK(r.out.find("SKIPPED step 3 (vec_add_triton.toml): its Triton kernel needs Triton") !=
        std::string::npos);
  CHECK(r.out.find("--- experiment ") != std::string::npos);  // steps 1 and 2 ran
  CHECK(r.out.find("LESSON 01-threads-and-warps claims_passed=3 claims_failed=0") !=
        std::string::npos);
  // Lesson 16 is all Triton: one line, exit 0.
  auto l16 = test::run_warplab_env("WARPLAB_PYTHON=/nonexistent/python3", "lesson 16 --ci --answers --no-pages",
                     "lesson16_no_triton");
  CHECK(l16.status == 0);
  CHECK(l16.out.rfind("SKIPPED lesson 16-triton: its Triton kernels need Triton", 0) == 0);
  CHECK(count_of(l16.out, "\n") == 1);
  // --triton-only on a lesson without Triton steps says so.
  auto none = test::run_warplab_env("", "lesson 05 --triton-only", "lesson_triton_only");
  CHECK(none.status == 0);
  CHECK(none.out.find("it has no Triton steps") != std::string::npos);
}

TEST_CASE("523 tl.dot fp16 for sm_80: cp.async stages, ldmatrix and mma.sync, checked exactly") {
  if (const std::string why = lab::TritonBridge().why_unavailable(); !why.empty()) {
    MESSAGE("skipped (needs Triton): " << why);
    return;
  }
  const std::string exp = src("validation/experiments/triton-matmul-fp16-sm80.toml");
  for (const char* stages : {"1", "3"}) {
    auto r = test::run_warplab_env("", "run " + exp + " --set M=64 --set stages=" + stages, "triton_dot");
    INFO("stages " << stages << "\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("check C vs C_ref[:M * N]: PASS") != std::string::npos);
    // 64 x 512 x 512 multiply-adds, 16 x 8 x 16 per warp mma: 8192 mma.sync, however staged.
    CHECK(r.out.find("tensor 8,192") != std::string::npos);
  }
  // The persistent version: 4 programs loop over the 8 tiles of C (M = 64), 4 stages.
  auto p = test::run_warplab_env("",
                   "run " + src("validation/experiments/triton-matmul-fp16-persistent-sm80.toml") +
                       " --set M=64 --set programs=4 --set stages=4",
                   "triton_dot_persistent");
  INFO(p.out << p.err);
  CHECK(p.status == 0);
  CHECK(p.out.find("check C vs C_ref[:M * N]: PASS") != std::string::npos);
}
