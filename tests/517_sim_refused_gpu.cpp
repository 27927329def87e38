// A kernel the simulator cannot run still runs on the real GPU (`--backend gpu`, and the GPU half
// of `both`): the simulator's reason becomes one note instead of stopping the run.
//
// The refusal logic runs without a GPU (Runner::compile); the runs themselves need a CUDA driver
// and device, and say in one line that they are skipped without one.
#include <doctest/doctest.h>

#include <algorithm>

#include "gpu/backend.h"
#include "lab/report.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {
std::string data(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}
Experiment load(const std::string& name) {
  auto exp = load_experiment(data(name));
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  return *exp;
}
RunOptions options(BackendKind b) {
  RunOptions o;
  o.backend = b;
  o.resources = false;
  o.ptx_cache = false;
  o.gpu.warmup = 0;
  o.gpu.repeats = 1;
  o.gpu.counters = false;
  return o;
}
}  // namespace

TEST_CASE("517 sim refused: --backend sim refuses the kernel at its launch line, naming why") {
  const Experiment exp = load("sim_refused.toml");
  Toolchain tc;
  Runner runner(tc, options(BackendKind::Sim));
  auto r = runner.run(exp);
  REQUIRE_FALSE(r.has_value());
  const std::string msg = r.error().to_string();
  CHECK(msg.find("launches[1].kernel") != std::string::npos);
  CHECK(msg.find("griddepcontrol") != std::string::npos);
}

TEST_CASE("517 sim refused: with the GPU in the run, the refusal is kept, not fatal") {
  const Experiment exp = load("sim_refused.toml");
  auto env = exp.eval_env();
  REQUIRE(env.has_value());
  Toolchain tc;
  for (BackendKind b : {BackendKind::Gpu, BackendKind::Both}) {
    CAPTURE(backend_name(b));
    Runner runner(tc, options(b));
    auto unit = runner.compile(exp, *env);  // compiling needs no GPU
    REQUIRE_MESSAGE(unit.has_value(), (unit ? "" : unit.error().to_string()));
    const auto& refused = (*unit)->sim_refusals;
    REQUIRE(refused.size() == 1);  // two launches of it, one reason
    REQUIRE(refused.count("twice_after_pdl") == 1);
    CHECK(refused.at("twice_after_pdl").find("griddepcontrol") != std::string::npos);
    CHECK(refused.count("twice") == 0);
  }
}

TEST_CASE("517 sim refused: the GPU runs it alone; the reason is printed once") {
  const Experiment exp = load("sim_refused.toml");
  Toolchain tc;
  for (BackendKind b : {BackendKind::Gpu, BackendKind::Both}) {
    CAPTURE(backend_name(b));
    Runner runner(tc, options(b));
    auto r = runner.run(exp);
    if (auto g = gpu::Backend::open(); !g) {
      // No GPU here: the run is refused for that reason (exit 2), not for the simulator's.
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().message.find("the real GPU is not available") != std::string::npos);
      CHECK(r.error().message.find("griddepcontrol") == std::string::npos);
      MESSAGE("GPU half skipped (no GPU): " << g.error().to_string());
      continue;
    }
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    REQUIRE(r->run);
    CHECK(r->passed());
    const auto notes = std::count_if(r->notes.begin(), r->notes.end(), [](const std::string& n) {
      return n.find("griddepcontrol") != std::string::npos;
    });
    CHECK(notes == 1);
    REQUIRE(r->run->launches.size() == 3);
    for (const LaunchRecord& l : r->run->launches) {
      CAPTURE(l.kernel);
      CHECK_MESSAGE(!l.gpu_failed, l.gpu.dump());
      CHECK(l.gpu.contains("time_us"));
    }
    if (b == BackendKind::Both) {
      CHECK(r->run->launches[0].stats.has_value());  // the simulator ran the first kernel
      CHECK(r->run->launches[0].gpu.contains("compare"));
      CHECK(r->run->launches[1].sim.contains("skipped"));
      CHECK(r->run->launches[2].sim.contains("skipped"));
      const std::string text = format_launch(r->run->launches[1]);
      CHECK(text.find("simulator: skipped") != std::string::npos);
    }
  }
}
