// %clock64 reads the cycle its mov issues (issue 25): the timing model runs an instruction
// functionally when it fetches it, and its look-ahead fetches instructions early to move loads up;
// a clock read is fetched only when it is next to issue, and reads the cycle it may issue at
// (after a fence or a branch, the cycle the warp may go on). On the GPU CS2R SR_CLOCKLO reads the
// SM clock at its issue: lessons/calibration/visibility.cu's stamps after each use of a load
// (scripts/microbench/h100-visibility-2026-11-27.md) came out at 10-28 cycles in the model, where
// its loads take ~700, before this.
#include <doctest/doctest.h>

#include <cstring>

#include "31x_timing.h"
#include "sim/func/executor.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

// Lines: clock 12, the load 13 (DRAM), its use 14, clock 15, membar.gl 16, clock 17; out[0] and
// out[1] get the two differences.
constexpr const char* kClocks = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry clocks(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd6, [out];
  cvta.to.global.u64 %rd7, %rd6;
  mov.u64 %rd3, %clock64;
  ld.global.u32 %r1, [%rd2];
  add.s32 %r2, %r1, 1;
  mov.u64 %rd4, %clock64;
  membar.gl;
  mov.u64 %rd5, %clock64;
  sub.s64 %rd8, %rd4, %rd3;
  sub.s64 %rd9, %rd5, %rd4;
  st.global.u64 [%rd7], %rd8;
  st.global.u64 [%rd7+8], %rd9;
  st.global.u32 [%rd7+16], %r2;
  ret;
}
)";

}  // namespace

TEST_CASE("347 %clock64 reads the cycle its mov issues, after a load's use and after a fence") {
  auto prog = load(kClocks);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  GpuConfig cfg;
  cfg.l1.fence_sc_latency = 617;
  func::DeviceMemory mem;
  const uint64_t in = mem.allocate("in", 64), out = mem.allocate("out", 64);
  func::LaunchConfig launch{"clocks", {1, 1, 1}, {1, 1, 1}, 0, {}};
  launch.params.resize(16);
  std::memcpy(launch.params.data(), &in, 8);
  std::memcpy(launch.params.data() + 8, &out, 8);
  TimingOptions o;
  o.trace.enabled = true;
  auto r = run_timing(*prog, mem, launch, cfg, o);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  uint64_t v[2];
  REQUIRE(mem.read(out, v, 16));
  // A clock read gets the cycle its warp may issue it: one after the previous instruction's
  // issue, or the fence's release. Both reads after an issue went a cycle later than that here,
  // so their difference is the trace's.
  CHECK(issue_cycle(*r, 14) > issue_cycle(*r, 13) + 300);   // the add waits for the load's DRAM round trip
  CHECK(v[0] == issue_cycle(*r, 15) - issue_cycle(*r, 12));
  CHECK(issue_cycle(*r, 17) == issue_cycle(*r, 16) + 617);  // the fence holds the warp 617 cycles
  CHECK(v[1] == issue_cycle(*r, 16) + 617 - (issue_cycle(*r, 14) + 1));
  uint32_t sum = 0;
  REQUIRE(mem.read(out + 16, &sum, 4));
  CHECK(sum == 1u);
}
