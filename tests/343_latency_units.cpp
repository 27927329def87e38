// Latency mechanisms of issue 25, each to the cycle on a small kernel (sim/timing/sm.cpp):
// votes and matches on pipes of their own (pipes.vote, pipes.match), the loop control that
// ptxas's unrolling removes (the backward branch and compare of all but one copy of the body),
// the block barrier's count of arrivals (block_barrier.h), and a compare's wait before the branch
// that reads its predicate (pipes.predicate_branch_latency).
// The presets' figures come from scripts/microbench/latency (h100-latency-2026-11-26.csv).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "31x_timing.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

// Lines: vote 12, its dependent compare 13, vote 14, match 15, dependent match 16.
constexpr const char* kVotes = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry votes(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  vote.sync.ballot.b32 %r2, %p1, -1;
  setp.ne.u32 %p2, %r2, 0;
  vote.sync.ballot.b32 %r3, %p2, -1;
  match.any.sync.b32 %r4, %r3, -1;
  match.any.sync.b32 %r5, %r1, -1;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 12;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+4], %r4;
  st.global.u32 [%rd4+8], %r5;
  ret;
}
)";

// A loop of 8 iterations whose counter steps by a constant (ptxas unrolls it): an FMA chain, the
// counter's add (line 13), compare (14) and backward branch (15). FMA: line 12.
constexpr const char* kLoop = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry loop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .f32 %f<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
$L_loop:
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  add.s32 %r1, %r1, 1;
  setp.lt.s32 %p1, %r1, 8;
  @%p1 bra $L_loop;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.f32 [%rd2], %f1;
  ret;
}
)";

// A rolled loop of 4 iterations whose body is a chain of 16 FMAs (lines 12-27), then the
// counter's add (28), compare (29) and backward branch (30).
constexpr const char* kLongLoop = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry long_loop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .f32 %f<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
$L_loop:
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  fma.rn.f32 %f1, %f1, 0f3F800000, 0f3F800000;
  add.s32 %r1, %r1, 1;
  setp.lt.s32 %p1, %r1, 4;
  @%p1 bra $L_loop;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.f32 [%rd2], %f1;
  ret;
}
)";

// Two barriers, each after an add (lines 10-13), then the address arithmetic (line 14).
constexpr const char* kBarriers = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry bars(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r1, 1;
  bar.sync 0;
  add.s32 %r3, %r2, 1;
  bar.sync 0;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
)";

Expected<TimingResult> run(const func::Program& p, func::DeviceMemory& mem, const GpuConfig& cfg,
                           const char* kernel, uint32_t threads, uint64_t out) {
  func::LaunchConfig launch{kernel, {1, 1, 1}, {threads, 1, 1}, 0, {}};
  launch.params.resize(8);
  std::memcpy(launch.params.data(), &out, 8);
  TimingOptions o;
  o.trace.enabled = true;
  return run_timing(p, mem, launch, cfg, o);
}

}  // namespace

TEST_CASE("343 the H100 preset's vote and match figures are the microbenchmark's") {
  auto c = load_config("h100-sxm");
  REQUIRE(c);
  CHECK(c->pipes.vote.latency == 13);  // ISETP + VOTE.ANY: 17.1 cycles a link
  CHECK(c->pipes.match.latency == 61);
  CHECK(c->pipes.match.interval == 32);  // 128 cycles a link with 4 warps per scheduler
  auto h200 = load_config("h200");
  REQUIRE(h200);
  CHECK(h200->pipes.vote.latency == c->pipes.vote.latency);
  CHECK(h200->pipes.match.latency == c->pipes.match.latency);
  CHECK(h200->pipes.match.interval == c->pipes.match.interval);
}

TEST_CASE("343 a vote answers after vote_latency; a match after match_latency, one per interval") {
  auto prog = load(kVotes);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  GpuConfig cfg;
  cfg.core.sub_partitions = 1;  // both warps on one scheduler
  cfg.pipes.vote = {13, 2};
  cfg.pipes.match = {61, 32};
  cfg.pipes.warp = {24, 2};
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 64 * 12);
  auto r = run(*prog, mem, cfg, "votes", 64, out);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  const auto vote1 = issues_of(*r, 12, 0), cmp = issues_of(*r, 13, 0);
  const auto vote2 = issues_of(*r, 14, 0), match1 = issues_of(*r, 15), match2 = issues_of(*r, 16);
  REQUIRE((vote1.size() == 1 && cmp.size() == 1 && vote2.size() == 1));
  REQUIRE((match1.size() == 2 && match2.size() == 2));
  CHECK(cmp[0].cycle == vote1[0].cycle + 13);  // the ballot's register, vote_latency later
  // The first match waits for the second vote; the other warp's first match finds the match
  // pipe busy for match_interval; each warp's second match (independent) waits for the pipe too.
  CHECK(match1[0].cycle == vote2[0].cycle + 13);
  CHECK(match1[1].cycle == match1[0].cycle + 32);
  CHECK(match2[0].cycle == match1[1].cycle + 32);
  CHECK(match2[1].cycle == match2[0].cycle + 32);
  // Results, from the PTX's definitions: only thread 0's predicate is false.
  std::vector<uint32_t> v(64 * 3);
  REQUIRE(mem.read(out, v.data(), v.size() * 4));
  for (int t = 0; t < 64; ++t) {
    CAPTURE(t);
    CHECK(v[t * 3] == (t < 32 ? 0xFFFFFFFEu : 0xFFFFFFFFu));  // tid 0 is in the first warp
    CHECK(v[t * 3 + 1] == 0xFFFFFFFFu);                       // every lane holds the same ballot
    CHECK(v[t * 3 + 2] == (1u << (t % 32)));                  // every tid differs
  }
}

TEST_CASE("343 ptxas's unrolled loop: one compare and branch per `unroll` iterations") {
  auto prog = load(kLoop);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  for (int unroll : {1, 4}) {
    CAPTURE(unroll);
    GpuConfig cfg;
    cfg.compiler.hoist_loads = 1;
    cfg.compiler.unroll = unroll;
    cfg.pipes.fp32 = {4, 1};
    cfg.pipes.integer = {4, 2};
    cfg.pipes.branch = {8, 1};
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 4);
    auto r = run(*prog, mem, cfg, "loop", 32, out);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    const auto fma = issues_of(*r, 12), add = issues_of(*r, 13);
    const auto cmp = issues_of(*r, 14), bra = issues_of(*r, 15);
    REQUIRE(fma.size() == 8);
    CHECK(add.size() == 8);  // the counter's update stays
    if (unroll == 1) {
      CHECK((cmp.size() == 8 && bra.size() == 8));
      // Every iteration: add, compare (add's latency), branch (the compare's), refetch.
      for (size_t i = 1; i < 8; ++i) CHECK(fma[i].cycle == fma[i - 1].cycle + 1 + 4 + 4 + 8);
    } else {
      // The backward branches of iterations 1-3 and 5-7 are not in the SASS, nor their
      // compares: iteration 4's branch and the last (not taken) one remain.
      CHECK((cmp.size() == 2 && bra.size() == 2));
      for (size_t i = 1; i < 8; ++i) {
        CAPTURE(i);
        const uint64_t step = i == 4 ? 1 + 4 + 4 + 8 : 4;  // else only the FMA chain
        CHECK(fma[i].cycle == fma[i - 1].cycle + step);
      }
    }
    float v = 0;
    REQUIRE(mem.read(out, &v, 4));
    CHECK(v == 8.0f);  // f = f * 1 + 1, eight times from 0
  }
}

TEST_CASE("343 the H100 preset's barrier figures are the microbenchmark's") {
  auto c = load_config("h100-sxm");
  REQUIRE(c);
  // 17.5 cycles a step with one warp, 2 more per warp (h100-latency-2026-11-26.csv, rows bar)
  CHECK(c->pipes.barrier.latency == 16);
  CHECK(c->pipes.barrier_arrival_cycles == 2.0);
}

TEST_CASE("343 a barrier counts one arrival per barrier_arrival_cycles, then releases") {
  auto prog = load(kBarriers);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  // One warp per scheduler: every warp issues its add and its bar.sync in the same cycles.
  for (int warps : {1, 2, 4}) {
    for (double per : {0.0, 2.0, 3.0}) {
      CAPTURE(warps);
      CAPTURE(per);
      GpuConfig cfg;
      cfg.core.sub_partitions = 4;
      cfg.pipes.barrier = {16, 1};
      cfg.pipes.barrier_arrival_cycles = per;
      func::DeviceMemory mem;
      const uint64_t out = mem.allocate("out", 4 * 32 * warps);
      auto r = run(*prog, mem, cfg, "bars", 32 * warps, out);
      REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
      REQUIRE_FALSE(r->fault);
      const auto bar1 = issues_of(*r, 11), add2 = issues_of(*r, 12), bar2 = issues_of(*r, 13);
      REQUIRE(bar1.size() == size_t(warps));
      REQUIRE(add2.size() == size_t(warps));
      REQUIRE(bar2.size() == size_t(warps));
      for (const auto& b : bar1) CHECK(b.cycle == bar1[0].cycle);  // arrivals in one cycle
      // The last of `warps` arrivals is counted (warps - 1) * per cycles after the first; the
      // warps issue again `latency` cycles later (the cycle of release itself).
      const uint64_t counted = bar1[0].cycle + static_cast<uint64_t>(std::ceil((warps - 1) * per));
      for (const auto& a : add2) CHECK(a.cycle == counted + 16);
      // The second barrier counts afresh: the same gap after its arrivals.
      for (const auto& b : bar2) CHECK(b.cycle == add2[0].cycle + 1);
      const auto after = issues_of(*r, 14);
      REQUIRE(after.size() == size_t(warps));
      for (const auto& a : after)
        CHECK(a.cycle == bar2[0].cycle + static_cast<uint64_t>(std::ceil((warps - 1) * per)) + 16);
      std::vector<uint32_t> v(32 * warps);
      REQUIRE(mem.read(out, v.data(), v.size() * 4));
      for (int t = 0; t < 32 * warps; ++t) CHECK(v[t] == uint32_t(t + 2));
    }
  }
}

TEST_CASE("343 the H100 preset's compare-to-branch wait is the SASS's stall count") {
  // loops.cu's loop_nounroll: ISETP's stall count before the BRA that reads it is 13
  // (latency/sass-h100/loops.sass); the H100 takes 29.3 cycles a link (h100-latency csv).
  for (const char* name : {"h100-sxm", "h200"}) {
    CAPTURE(name);
    auto c = load_config(name);
    REQUIRE(c);
    CHECK(c->pipes.predicate_branch_latency == 13);
  }
}

TEST_CASE("343 a rolled loop's branch waits predicate_branch_latency after its earliest compare") {
  auto prog = load(kLoop);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  auto longp = load(kLongLoop);
  REQUIRE_MESSAGE(longp, (longp ? "" : longp.error().to_string()));
  for (int wait : {0, 13}) {
    CAPTURE(wait);
    GpuConfig cfg;
    cfg.compiler.hoist_loads = 1;
    cfg.compiler.unroll = 1;  // ptxas keeps the loop rolled: every compare and branch issue
    cfg.pipes.fp32 = {4, 1};
    cfg.pipes.integer = {4, 2};
    cfg.pipes.branch = {8, 1};
    cfg.pipes.predicate_branch_latency = wait;
    {
      func::DeviceMemory mem;
      const uint64_t out = mem.allocate("out", 4);
      auto r = run(*prog, mem, cfg, "loop", 32, out);
      REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
      REQUIRE_FALSE(r->fault);
      const auto fma = issues_of(*r, 12), add = issues_of(*r, 13);
      const auto cmp = issues_of(*r, 14), bra = issues_of(*r, 15);
      const auto param = issues_of(*r, 10);
      REQUIRE((fma.size() == 8 && add.size() == 8 && cmp.size() == 8 && bra.size() == 8));
      REQUIRE(param.size() == 1);
      CHECK(fma[0].cycle == param[0].cycle + 1);
      for (size_t i = 0; i < 8; ++i) {
        CAPTURE(i);
        // The body starts where the warp fetches again past the last branch (the first time:
        // its first instruction, the ld.param); the add one cycle after the FMA, the compare
        // after the add's latency.
        const uint64_t start = i == 0 ? param[0].cycle : fma[i].cycle;
        CHECK(add[i].cycle == fma[i].cycle + 1);
        CHECK(cmp[i].cycle == add[i].cycle + 4);
        // Without the wait: the compare's latency. With it: the compare's earliest place (one
        // ALU latency into the body) + 13, later than that.
        CHECK(bra[i].cycle == (wait == 0 ? cmp[i].cycle + 4 : start + 4 + 13));
        if (i > 0) CHECK(fma[i].cycle == bra[i - 1].cycle + 8);
      }
      float v = 0;
      REQUIRE(mem.read(out, &v, 4));
      CHECK(v == 8.0f);
    }
    {
      // Sixteen dependent FMAs (64 cycles) hide the wait: the same cycles with or without it.
      func::DeviceMemory mem;
      const uint64_t out = mem.allocate("out", 4);
      auto r = run(*longp, mem, cfg, "long_loop", 32, out);
      REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
      REQUIRE_FALSE(r->fault);
      const auto first = issues_of(*r, 12), last = issues_of(*r, 27);
      const auto cmp = issues_of(*r, 29), bra = issues_of(*r, 30);
      REQUIRE((first.size() == 4 && last.size() == 4 && cmp.size() == 4 && bra.size() == 4));
      for (size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        CHECK(last[i].cycle == first[i].cycle + 15 * 4);
        CHECK(cmp[i].cycle == last[i].cycle + 1 + 4);  // the add, then its latency
        CHECK(bra[i].cycle == cmp[i].cycle + 4);       // the compare's latency: the wait is hidden
      }
      float v = 0;
      REQUIRE(mem.read(out, &v, 4));
      CHECK(v == 64.0f);  // f = f * 1 + 1, 64 times from 0
    }
  }
}
