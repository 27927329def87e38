// Device printf and assert through a whole kernel (tests/data/printf.cu): the lines the simulator
// prints are compared with the same format applied by the host's printf to values computed here,
// and a failed assert stops the launch with the assertion's text, file and line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("560 printf: every conversion as the host's printf formats it") {
  const int n = 100;
  auto run = test::run_lesson("tests/data/printf.toml", {"N=" + std::to_string(n)});
  if (!run) return;
  REQUIRE(run->result.launches.size() == 1);
  const std::vector<std::string> got = lines_of(run->result.launches[0].printf_output);
  std::vector<std::string> want;
  for (int i = 0; i < n; ++i) {
    const int x = i;  // v = iota
    if (x % 3) continue;
    char b[256];
    std::snprintf(b, sizeof b, "i=%d x=%5d hex=%#x half=%.3f big=%e %s ll=%lld u=%u c=%c pct=%%", i,
                  x, x, static_cast<double>(x * 0.5f), static_cast<double>(x) * 1e10,
                  x % 2 ? "odd" : "even", static_cast<long long>(x) << 33,
                  static_cast<unsigned>(-x), 'a' + x % 26);
    want.push_back(b);
  }
  // Within a warp the lanes print in lane order; warp 0 of block 0 runs first.
  REQUIRE(got.size() == want.size());
  CHECK(got[0] == want[0]);
  CHECK(got[1] == want[1]);
  std::vector<std::string> got_sorted = got, want_sorted = want;
  std::sort(got_sorted.begin(), got_sorted.end());
  std::sort(want_sorted.begin(), want_sorted.end());
  CHECK(got_sorted == want_sorted);
}

TEST_CASE("560 assert: a failed assertion stops the launch with its text, file and line") {
  lab::Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  auto exp = lab::load_experiment(test::lesson_path("tests/data/printf.toml"));
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, "bad=70"));
  lab::RunOptions o;
  o.mode = lab::SimMode::Functional;
  lab::Runner runner(tc, o);
  auto r = runner.run_once(*exp);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE(r->launches.size() == 1);
  const auto& fault = r->launches[0].fault;
  REQUIRE(fault);
  CHECK(fault->kind == func::LaunchFault::Kind::Trap);
  CHECK(fault->thread.x == 6);  // thread 70 = block 1, thread 6
  CHECK(fault->block.x == 1);
  CHECK(fault->src_line == 12);
  CHECK(fault->message.find("Assertion `i != bad` failed.") != std::string::npos);
  CHECK(fault->message.find("printf.cu:12") != std::string::npos);
}
