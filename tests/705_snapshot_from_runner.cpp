// The app's snapshot is the lab runner's result (ui/app/model/run_snapshot.h): the same cycles,
// instruction counts and checks as a direct lab::Runner call with the same options, and the
// trace the runner captured through RunOptions::trace. Needs NVRTC; skipped without it.
#include <doctest/doctest.h>

#include "70x_app.h"
#include "lab/runner.h"
#include "ui/app/model/run_snapshot.h"

using namespace warplab;

TEST_CASE("705 the app's snapshot comes from lab::Runner: same cycles as a direct runner call") {
  auto exp = test::copy_experiment("N=4096");
  if (!exp) return;

  // The runner directly: timing mode, the simulator only, every launch traced on SM 0.
  lab::RunOptions ro;
  ro.mode = lab::SimMode::Timing;
  lab::TraceCapture trace;
  trace.options.sms = {0};
  ro.trace = trace;
  lab::Toolchain toolchain;
  lab::Runner runner(toolchain, ro);
  auto direct = runner.run(*exp);
  REQUIRE(direct);
  REQUIRE(direct->run);
  const std::vector<lab::LaunchRecord>& recs = direct->run->launches;
  REQUIRE(recs.size() == 1);
  REQUIRE(recs[0].timing);  // the runner keeps the model's whole result ...
  CHECK_FALSE(recs[0].timing->trace.spans.empty());  // ... with the trace it was asked for
  CHECK(recs[0].sim.value("cycles", uint64_t{0}) == recs[0].timing->cycles);

  // The app's path.
  const app::RunSnapshot snap = test::run_sim_traced(*exp);
  INFO(snap.error);
  REQUIRE(snap.ok());
  CHECK(snap.backend == "sim");
  CHECK_FALSE(snap.gpu_note.empty());  // the reason the real GPU column is empty
  REQUIRE(snap.launches.size() == recs.size());
  const app::LaunchView& l = snap.launches[0];
  REQUIRE(l.timing);
  CHECK_FALSE(l.gpu);
  CHECK(l.timing->cycles == recs[0].timing->cycles);  // the model is deterministic
  CHECK(l.timing->stats.warp_instructions == recs[0].stats->warp_instructions);
  CHECK(l.timing->memory.dram_bytes_read == recs[0].timing->memory.dram_bytes_read);
  CHECK_FALSE(l.timing->trace.spans.empty());
  REQUIRE(snap.checks.size() == direct->run->checks.size());
  for (size_t i = 0; i < snap.checks.size(); ++i)
    CHECK(snap.checks[i].passed == direct->run->checks[i].passed);
}
