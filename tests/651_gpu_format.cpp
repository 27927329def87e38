// The experiment-format features of tests/511-514 on the real GPU (`--backend both`): pointer
// offsets and structs in the parameter block, __constant__/__device__ variables through
// cuModuleGetGlobal, memset/memcpy steps on the buffers that travel with every launch, loops and
// template instances. After every launch the GPU's buffers (symbol buffers included) must equal
// the simulator's bit for bit, and the files' own checks must give the same verdicts.
//
// Needs NVRTC, a CUDA driver and a device; without them each case skips with a one-line reason.
#include <doctest/doctest.h>

#include "gpu/backend.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {

void run_both(const std::string& name, bool expect_pass) {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  if (auto g = gpu::Backend::open(); !g) {
    MESSAGE("GPU test skipped: " << g.error().to_string());
    return;
  }
  auto exp = load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/format/" + name);
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  RunOptions o;
  o.backend = BackendKind::Both;
  o.gpu.warmup = 0;
  o.gpu.repeats = 1;
  o.gpu.counters = false;
  Runner runner(tc, o);
  auto r = runner.run(*exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  REQUIRE(r->run);
  for (const LaunchRecord& l : r->run->launches) {
    CAPTURE(l.kernel);
    CHECK_FALSE(l.fault.has_value());
    CHECK_MESSAGE(!l.gpu_failed, l.gpu.dump());
    CHECK_MESSAGE(!l.backends_differ, l.gpu.dump());
  }
  for (const CheckResult& c : r->run->checks)
    if (name != "checks.toml") CHECK_MESSAGE(c.passed, c.buffer << " vs " << c.expected);
  CHECK(r->passed() == expect_pass);
}

}  // namespace

TEST_CASE("651 gpu format: offsets and structs by value agree with the simulator") {
  run_both("args.toml", true);
}
TEST_CASE("651 gpu format: a bitonic sort from loops, memset/memcpy steps, a __device__ counter") {
  run_both("steps.toml", true);
}
TEST_CASE("651 gpu format: a cuda-samples-shaped bitonic sort (loop head, shared + global)") {
  run_both("bitonic_samples.toml", true);
}
TEST_CASE("651 gpu format: __constant__ coefficients and __device__ variables by name") {
  run_both("symbols.toml", true);
}
TEST_CASE("651 gpu format: a __device__ counter without a buffer starts each run from 0") {
  run_both("device_state.toml", true);
  run_both("device_state.toml", true);  // a second run on a freshly loaded module
}
TEST_CASE("651 gpu format: template kernels by their C++ name") { run_both("template.toml", true); }
TEST_CASE("651 gpu format: sliced checks (the file's second check fails on -0 by design)") {
  run_both("checks.toml", false);
}
