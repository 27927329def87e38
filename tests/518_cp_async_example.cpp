// The cp.async example experiment (examples/cp-async/stencil.toml): a CUDA kernel whose
// double-buffered cp.async pipeline (inline PTX through NVRTC) runs on the simulator, in
// functional and timing mode, and agrees bit for bit with plain loads.
// Needs NVRTC; without it the case skips with one MESSAGE.
#include <doctest/doctest.h>

#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

TEST_CASE("518 example: a cp.async double-buffered stencil runs and matches plain loads") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  auto exp = load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/examples/cp-async/stencil.toml");
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  for (SimMode mode : {SimMode::Functional, SimMode::Timing}) {
    CAPTURE(mode_name(mode));
    RunOptions o;
    o.mode = mode;
    o.resources = false;
    Runner runner(tc, o);
    auto r = runner.run(*exp);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    REQUIRE(r->run);
    CHECK(r->passed());
    REQUIRE(r->run->launches.size() == 2);
    const LaunchRecord& l = r->run->launches[1];
    REQUIRE(l.stats);
    const uint64_t loads = l.stats->warp_by_class[static_cast<int>(ptx::InstClass::Load)];
    CHECK(loads > 0);  // the cp.async instructions count as loads
    if (mode == SimMode::Timing) {
      REQUIRE(l.timing);
      // The warps wait for their groups at cp.async.wait_group.
      CHECK(l.timing->warp_states[static_cast<int>(timing::WarpState::Mbarrier)] > 0);
    }
  }
}
