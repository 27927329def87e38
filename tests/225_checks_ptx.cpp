// The hang limit, barrier deadlocks, synccheck and racecheck on hand-written PTX (no CUDA toolkit
// needed), in functional mode and in the timing model, which drives the same executor. The
// CUDA-level cases (with CUDA lines) are in tests/511_checks.cpp.
#include <functional>
#include <string>

#include "21x_sim.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using func::Hazard;
using func::LaunchFault;

namespace {

// Line numbers matter: the tests name them (line 1 is ".version").
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry self_loop(.param .u64 out)
{
$L_spin:
  bra.uni $L_spin;
}

.visible .entry counted_deadlock(.param .u64 out)
{
  bar.sync 1, 128;
  ret;
}

.visible .entry spin_load(.param .u64 flag)
{
  .reg .u64 %rd<2>;
  .reg .u32 %r<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [flag];
$L_wait:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  ret;
}

.visible .entry race(.param .u64 out, .param .u32 sync)
{
  .shared .align 4 .b8 s[256];
  .reg .u64 %rd<6>;
  .reg .u32 %r<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r7, [sync];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  setp.ne.u32 %p1, %r7, 0;
  @%p1 bar.sync 0;
  sub.u32 %r5, 252, %r2;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}

.visible .entry partial_bar(.param .u64 out)
{
  .reg .u32 %r<2>;
  .reg .pred %q<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %q1, %r1, 16;
  @%q1 bar.sync 0;
  ret;
}

.visible .entry producer_consumer(.param .u64 flag, .param .u64 out, .param .u32 n)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [flag];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r7, [n];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra $L_consume;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
$L_work:
  add.u32 %r3, %r3, %r2;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, %r7;
  @%p2 bra $L_work;
  setp.eq.u32 %p3, %r1, 32;
  @%p3 st.volatile.global.u32 [%rd1], %r3;
  ret;
$L_consume:
  ld.volatile.global.u32 %r4, [%rd1];
  setp.eq.u32 %p2, %r4, 0;
  @%p2 bra $L_consume;
  st.global.u32 [%rd2], %r4;
  ret;
}

.visible .entry shared_atomics(.param .u64 out)
{
  .shared .align 4 .b8 c[4];
  .reg .u64 %rd<2>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, c;
  atom.shared.add.u32 %r2, [%r1], 1;
  bar.sync 0;
  ld.shared.u32 %r3, [%r1];
  st.global.u32 [%rd1], %r3;
  ret;
}

.visible .entry count_only(.param .u32 n)
{
  .reg .u32 %r<4>;
  .reg .pred %p<2>;
  ld.param.u32 %r2, [n];
  mov.u32 %r1, 0;
$L_count:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $L_count;
  ret;
}

.visible .entry spin_regs(.param .u32 n)
{
  .reg .u32 %r<4>;
  .reg .pred %p<2>;
  ld.param.u32 %r2, [n];
  mov.u32 %r1, 0;
$L_same:
  add.u32 %r1, %r1, 0;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $L_same;
  ret;
}
)";

// Line of the first PTX line containing `text`.
int line_of(const std::string& text) {
  const std::string all = kPtx;
  size_t at = all.find(text);
  REQUIRE(at != std::string::npos);
  int line = 1;
  for (size_t i = 0; i < at; ++i) line += all[i] == '\n';
  return line;
}

struct Outcome {
  std::optional<LaunchFault> fault;
  std::vector<Hazard> hazards;
};

Outcome launch(test::Sim& s, bool timing, const std::string& kernel, func::Dim3 grid,
               func::Dim3 block, const std::vector<uint64_t>& args,
               const std::function<void(func::LaunchConfig&)>& edit = {},
               uint64_t max_cycles = timing::TimingOptions::kDefaultMaxCycles) {
  func::LaunchConfig lc{kernel, grid, block, 0, s.params(kernel, args)};
  if (edit) edit(lc);
  Outcome o;
  if (!timing) {
    auto r = func::run_functional(*s.program, s.mem, lc);
    REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
    o.fault = r->fault;
    o.hazards = r->hazards;
    return o;
  }
  auto cfg = timing::load_config("h100-sxm");
  REQUIRE(cfg.has_value());
  timing::TimingOptions opt;
  opt.max_cycles = max_cycles;
  auto r = timing::run_timing(*s.program, s.mem, lc, *cfg, opt);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  o.fault = r->fault;
  o.hazards = r->hazards;
  return o;
}

}  // namespace

TEST_CASE("225 a bra to itself stops at once; a spin on a flag stops at the per-warp limit") {
  for (bool timing : {false, true}) {
    CAPTURE(timing);
    test::Sim s(kPtx, "checks.ptx");
    const uint64_t out = s.zeros<int>("out", 64);
    Outcome a = launch(s, timing, "self_loop", {4, 1, 1}, {96, 1, 1}, {out});
    REQUIRE(a.fault.has_value());
    CHECK(a.fault->kind == LaunchFault::Kind::Hang);
    CHECK(a.fault->ptx_line == line_of("bra.uni $L_spin"));
    CHECK(a.fault->thread.x == 0);
    CHECK(a.fault->message.find("branches to itself forever") != std::string::npos);
    CHECK(a.fault->message.find("stuck in the loop at PTX line " +
                                std::to_string(line_of("bra.uni $L_spin"))) != std::string::npos);

    Outcome b = launch(s, timing, "spin_load", {1, 1, 1}, {64, 1, 1}, {out},
                       [](func::LaunchConfig& c) { c.max_instructions_per_warp = 3000; });
    REQUIRE(b.fault.has_value());
    CHECK(b.fault->kind == LaunchFault::Kind::Hang);
    CHECK(b.fault->ptx_line == line_of("ld.volatile.global.u32"));  // the loop's head
    CHECK(b.fault->message.find("went past 3000 instructions") != std::string::npos);
    CHECK(b.fault->message.find("stuck in the loop at PTX lines " +
                                std::to_string(line_of("ld.volatile.global")) + "-" +
                                std::to_string(line_of("@%p1 bra $L_wait"))) != std::string::npos);
  }
  // The timing model's cycle limit, with no instruction limit.
  test::Sim s(kPtx, "checks.ptx");
  const uint64_t flag = s.zeros<int>("flag", 1);
  Outcome c = launch(
      s, true, "spin_load", {2, 1, 1}, {32, 1, 1}, {flag},
      [](func::LaunchConfig& lc) { lc.max_instructions_per_warp = 0; }, 12345);
  REQUIRE(c.fault.has_value());
  CHECK(c.fault->kind == LaunchFault::Kind::Hang);
  CHECK(c.fault->message.find("was still running at cycle 12345") != std::string::npos);
  CHECK(c.fault->ptx_line == line_of("ld.volatile.global.u32"));
}

TEST_CASE("225 a barrier count that is never reached is a deadlock") {
  for (bool timing : {false, true}) {
    CAPTURE(timing);
    test::Sim s(kPtx, "checks.ptx");
    const uint64_t out = s.zeros<int>("out", 64);
    Outcome o = launch(s, timing, "counted_deadlock", {1, 1, 1}, {64, 1, 1}, {out});
    REQUIRE(o.fault.has_value());
    CHECK(o.fault->kind == LaunchFault::Kind::Deadlock);
    CHECK(o.fault->ptx_line == line_of("bar.sync 1, 128"));
    CHECK(o.fault->message.find("warps 0, 1 wait at barrier 1 (PTX line " +
                                std::to_string(line_of("bar.sync 1, 128")) +
                                ", (no CUDA line info)), which expects 128 threads") !=
          std::string::npos);
  }
}

TEST_CASE("225 racecheck on PTX: RAW/WAR without the barrier, none with it or for atomics") {
  for (bool timing : {false, true}) {
    CAPTURE(timing);
    test::Sim s(kPtx, "checks.ptx");
    const uint64_t out = s.zeros<int>("out", 64);
    auto racecheck = [](func::LaunchConfig& c) { c.racecheck = true; };
    Outcome bad = launch(s, timing, "race", {1, 1, 1}, {64, 1, 1}, {out, 0}, racecheck);
    CHECK_FALSE(bad.fault.has_value());
    REQUIRE_FALSE(bad.hazards.empty());
    uint64_t n = 0;
    for (const Hazard& h : bad.hazards) {
      n += h.count;
      const bool raw = h.kind == Hazard::Kind::RaceRAW;
      REQUIRE((raw || h.kind == Hazard::Kind::RaceWAR));
      CHECK(h.ptx_line == line_of(raw ? "ld.shared.u32" : "st.shared.u32"));
      CHECK(h.other_ptx_line == line_of(raw ? "st.shared.u32" : "ld.shared.u32"));
      CHECK(h.other_thread.x == 63 - h.thread.x);
      CHECK(h.address == 4 * (raw ? 63 - h.thread.x : h.thread.x));
      CHECK(h.space == ptx::Space::Shared);
      CHECK(h.src_file.empty());
    }
    CHECK(n == 64);
    // The results are what the GPU gives when the warps happen to run in this order; with the
    // barrier they are defined: out[t] = 63 - t.
    Outcome good = launch(s, timing, "race", {1, 1, 1}, {64, 1, 1}, {out, 1}, racecheck);
    CHECK(good.hazards.empty());
    auto v = s.read<int>(out, 64);
    for (int t = 0; t < 64; ++t) CHECK(v[t] == 63 - t);

    Outcome atomics = launch(s, timing, "shared_atomics", {1, 1, 1}, {128, 1, 1}, {out}, racecheck);
    CHECK(atomics.hazards.empty());
    CHECK(s.read<int>(out, 1)[0] == 128);
    // Off: nothing is recorded.
    Outcome off = launch(s, timing, "race", {1, 1, 1}, {64, 1, 1}, {out, 0});
    CHECK(off.hazards.empty());
  }
}

TEST_CASE("225 synccheck on PTX: a predicated bar.sync reached by some lanes of a warp") {
  for (bool timing : {false, true}) {
    CAPTURE(timing);
    test::Sim s(kPtx, "checks.ptx");
    const uint64_t out = s.zeros<int>("out", 64);
    // race with sync = 1 but a block of 48: warp 1 has 16 lanes, all reaching the barrier: clean.
    Outcome ok = launch(s, timing, "race", {1, 1, 1}, {48, 1, 1}, {out, 1},
                        [](func::LaunchConfig& c) { c.synccheck = true; });
    CHECK(ok.hazards.empty());

    Outcome bad = launch(s, timing, "partial_bar", {2, 1, 1}, {64, 1, 1}, {out},
                         [](func::LaunchConfig& c) { c.synccheck = true; });
    CHECK_FALSE(bad.fault.has_value());
    REQUIRE(bad.hazards.size() == 1);
    const Hazard& h = bad.hazards[0];
    CHECK(h.kind == Hazard::Kind::DivergentBarrier);
    CHECK(h.kernel == "partial_bar");
    CHECK(h.count == 2);
    CHECK(h.ptx_line == line_of("@%q1 bar.sync 0"));
    CHECK(h.thread.x == 0);
    CHECK(h.message.find("only lanes 0-15 of warp 0's live lanes 0-31 reached barrier 0") !=
          std::string::npos);
  }
}

TEST_CASE("225 timing: a spin in every warp of a large grid stops as soon as nothing can change") {
  test::Sim s(kPtx, "checks.ptx");
  const uint64_t flag = s.zeros<int>("flag", 1);
  // No instruction limit and the default cycle limit: the livelock watch stops it.
  Outcome o = launch(s, true, "spin_load", {400, 1, 1}, {256, 1, 1}, {flag},
                     [](func::LaunchConfig& c) { c.max_instructions_per_warp = 0; });
  REQUIRE(o.fault.has_value());
  CHECK(o.fault->kind == LaunchFault::Kind::Hang);
  CHECK(o.fault->ptx_line == line_of("ld.volatile.global.u32"));
  CHECK(o.fault->message.find("repeats the same state in its loop while no thread writes memory") !=
        std::string::npos);
}

TEST_CASE("225 timing: a warp waiting for another warp's long store-free work is not stopped") {
  test::Sim s(kPtx, "checks.ptx");
  const uint64_t flag = s.zeros<int>("flag", 1), out = s.zeros<int>("out", 1);
  // Warp 1 adds 0..n-1 for 400,000 iterations (its registers change every one) and then sets
  // the flag; warp 0 spins on it meanwhile (its state repeats).
  const uint32_t n = 400000;
  Outcome o = launch(s, true, "producer_consumer", {1, 1, 1}, {64, 1, 1}, {flag, out, n});
  CHECK_FALSE(o.fault.has_value());
  // Functional mode runs warp 0 until it blocks: it spins at the limit, and the report says why.
  const uint64_t flag2 = s.zeros<int>("flag2", 1);
  Outcome f = launch(s, false, "producer_consumer", {1, 1, 1}, {64, 1, 1}, {flag2, out, n},
                     [](func::LaunchConfig& c) { c.max_instructions_per_warp = 5000; });
  REQUIRE(f.fault.has_value());
  CHECK(f.fault->kind == LaunchFault::Kind::Hang);
  CHECK(f.fault->ptx_line == line_of("ld.volatile.global.u32 %r4"));
  CHECK(f.fault->message.find("if it waits for another warp of its block, try --mode timing") !=
        std::string::npos);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += i;
  CHECK(s.read<uint32_t>(out, 1)[0] == sum);
}

TEST_CASE("225 timing: the livelock watch reports only a state that truly repeats") {
  // A finite loop with no store: its counter changes every iteration, so no state repeats. With
  // no instruction or cycle limit it must run to the end (the watch used to compare the state
  // after the loop's first instruction with the state before it, both at the same pc).
  test::Sim s(kPtx, "checks.ptx");
  const uint32_t n = 600000;  // 1.8 M warp instructions: the watch starts after 1 M quiet ones
  Outcome done = launch(
      s, true, "count_only", {1, 1, 1}, {64, 1, 1}, {n},
      [](func::LaunchConfig& c) { c.max_instructions_per_warp = 0; }, 0);
  CHECK_FALSE(done.fault.has_value());
  if (done.fault) MESSAGE(done.fault->message);
  // The same loop adding 0: every register, predicate and the pc come back unchanged.
  Outcome spin = launch(
      s, true, "spin_regs", {1, 1, 1}, {64, 1, 1}, {n},
      [](func::LaunchConfig& c) { c.max_instructions_per_warp = 0; }, 0);
  REQUIRE(spin.fault.has_value());
  CHECK(spin.fault->kind == LaunchFault::Kind::Hang);
  CHECK(spin.fault->message.find("repeats the same state in its loop") != std::string::npos);
  CHECK(spin.fault->ptx_line >= line_of("add.u32 %r1, %r1, 0"));
  CHECK(spin.fault->ptx_line <= line_of("@%p1 bra $L_same"));
}
