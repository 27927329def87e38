// Within-wave rate sampling (sim/timing/rate_sampler.h): a grid of long blocks (each loops over
// loads, as lesson 5's naive matmul does) whose first wave's rate is steady long before a block
// ends. The sampled run stops its detailed simulation there, simulates the last (partial) wave's
// start, and runs the whole launch functionally: its outputs are the sums computed here, its
// warp-instruction count is the one counted from the PTX below, it says it was sampled (within
// waves, with the fraction of work in detail), its cycles are within 3% of the full model's, and
// it is identical on 1 and 2 host threads (the functional run's ranges of blocks on 2 threads).
// Short blocks: the watch gives up and the run is the wave sampler's.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "31x_timing.h"
#include "35x_sampled.h"
#include "lab/metrics_json.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/fast_forward.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/rate_sampler.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

// The strided sum (tests/35x_sampled.h: kStridedSum) and its edited copies.
constexpr const char* kSum = timing_tests::kStridedSum;
std::string edited_sum(const std::vector<std::pair<std::string, std::string>>& edits) {
  return timing_tests::edited_ptx(kSum, edits);
}

// 4 KiB of input, swept every 32 iterations: in the L1 after the first sweeps, so the loop's
// rate is steady for most of a block's life (with 128 KiB it rose for half of it: 2026-11-28).
constexpr uint32_t kMask = (1u << 10) - 1;

using timing_tests::put;  // (31x_timing.h)

uint32_t input(uint32_t i) { return i * 2654435761u ^ (i >> 7); }

using timing_tests::SampledLaunch;
using Outcome = timing_tests::SampledOutcome;

// The strided sum of `blocks` blocks (tests/35x_sampled.h: 16 SMs, 64 blocks a wave).
Outcome run(uint32_t blocks, uint32_t steps, bool sampled, int threads) {
  SampledLaunch l{kSum, "strided_sum", blocks};
  l.in.resize(kMask + 1);
  for (uint32_t i = 0; i <= kMask; ++i) l.in[i] = input(i);
  l.out_words = uint64_t{blocks} * 128;
  l.args = {steps, kMask};
  timing::SamplingOptions so = timing_tests::sampling_on(sampled);
  so.rate_window = 1024;  // short windows: a wave of ~11k cycles
  return timing_tests::run_16sm(l, so, threads);
}

void check_sums(const std::vector<uint32_t>& out, uint32_t steps) {
  for (uint32_t i = 0; i < out.size(); ++i) {
    uint32_t s = 0;
    for (uint32_t k = 0; k < steps; ++k) s += input((i + 32 * k) & kMask);
    if (out[i] != s) {
      CAPTURE(i);
      FAIL("output differs from the sum computed on the host");
    }
  }
}

}  // namespace

TEST_CASE(
    "356 within-wave rate sampling: exact outputs and counts, labelled, within 3%, any threads") {
  const uint32_t blocks = 64 * 9 + 24, steps = 200;  // 9.4 waves of long blocks
  const Outcome full = run(blocks, steps, false, 1);
  const Outcome one = run(blocks, steps, true, 1);
  const Outcome two = run(blocks, steps, true, 2);
  // 1. Outputs: the sums computed here, in every run.
  check_sums(full.out, steps);
  check_sums(one.out, steps);
  CHECK(two.out == one.out);
  // 2. Exact counts: 4 warps a block, 17 + 9 x steps warp instructions a warp.
  const uint64_t warp_instructions = uint64_t{blocks} * 4 * (17 + 9 * steps);
  CHECK(full.result.stats.warp_instructions == warp_instructions);
  CHECK(one.result.stats.warp_instructions == warp_instructions);
  CHECK(one.result.stats.thread_instructions == full.result.stats.thread_instructions);
  CHECK(one.result.stats.blocks == blocks);
  // 3. Labelled: sampled within waves, with the fraction of the work simulated in detail.
  const SamplingReport& s = one.result.sampling;
  CHECK(s.requested);
  CHECK(s.applied);
  CHECK(s.within_wave);
  CHECK(s.waves == 10);
  CHECK(s.wave_blocks == 64);
  CHECK(s.work_fraction > 0);
  CHECK(s.work_fraction < 0.5);
  CHECK(s.detailed_fraction() == s.work_fraction);
  CHECK(s.method().find("within-wave rates") != std::string::npos);
  CHECK(one.json.find("\"sampled\"") != std::string::npos);
  CHECK(one.json.find("within-wave rates") != std::string::npos);
  CHECK(full.json.find("\"sampled\"") == std::string::npos);
  // 4. Near the full model: measured 2026-11-28 (branch samp7) at -2.4% (92,294 cycles against
  //    94,568; -3.5% with 600 steps): on this 16-SM grid the later waves run slower than the
  //    first wave's steady rate, which the method does not see (rate_sampler.h: error
  //    sources). It misses the 2% target here; the bound below is the measured error's, so
  //    a change that makes it worse fails.
  CAPTURE(one.result.cycles);
  CAPTURE(full.result.cycles);
  CHECK(one.result.cycles != full.result.cycles);  // extrapolated, not the full run
  CHECK(std::abs(double(one.result.cycles) - double(full.result.cycles)) <=
        0.03 * double(full.result.cycles));
  // 5. The same result on 1 and 2 host threads, byte for byte.
  CHECK(one.json == two.json);
}

TEST_CASE("356 short blocks: the rate watch gives up and the wave sampler's run is unchanged") {
  const uint32_t blocks = 64 * 12, steps = 4;
  const Outcome one = run(blocks, steps, true, 1);
  check_sums(one.out, steps);
  CHECK(one.result.sampling.requested);
  CHECK_FALSE(one.result.sampling.within_wave);
  CHECK(one.result.stats.warp_instructions == uint64_t{blocks} * 4 * (17 + 9 * steps));
}

TEST_CASE(
    "356 run_blocks: ranges on several threads give the one-thread run; meeting ranges fall back; "
    "progress and Cancel") {
  auto m = ptx::parse_module(kSum, "sum.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  const uint32_t blocks = 40, steps = 3;
  std::vector<uint32_t> in(kMask + 1);
  for (uint32_t i = 0; i <= kMask; ++i) in[i] = input(i);
  func::DeviceMemory mem;
  const uint64_t a = mem.allocate("in", blocks * 128 * 4ull);  // also the output, below
  const uint64_t b = mem.allocate("out", blocks * 128 * 4ull);
  REQUIRE(mem.write(a, in.data(), in.size() * 4ull));
  auto launch_to = [&](uint64_t out) {
    func::LaunchConfig l{"strided_sum", {blocks, 1, 1}, {128, 1, 1}, 0, {}};
    put(l.params, a);
    put(l.params, out);
    put(l.params, steps);
    put(l.params, kMask);
    return l;
  };
  // Disjoint outputs: 4 ranges at once, the counts of every block exact.
  const func::DeviceMemory start = mem;
  auto r = run_blocks(*prog, mem, launch_to(b), 4, &start);
  REQUIRE(r);
  CHECK(r->threads == 4);
  CHECK(r->stats.warp_instructions == uint64_t{blocks} * 4 * (17 + 9 * steps));
  REQUIRE(r->block_work.size() == blocks);
  for (uint64_t w : r->block_work) CHECK(w == 4 * (17 + 9 * steps));
  std::vector<uint32_t> out(blocks * 128);
  REQUIRE(mem.read(b, out.data(), out.size() * 4ull));
  check_sums(out, steps);
  // Output over the input: the blocks store what later blocks load; the ranges meet, and the
  // one-thread run (grid order) gives the result.
  func::DeviceMemory mem2 = start, one = start;
  auto r2 = run_blocks(*prog, mem2, launch_to(a), 4, &start);
  REQUIRE(r2);
  CHECK(r2->threads == 1);
  CHECK(r2->why_one_thread == "ranges of blocks touched the same bytes");
  auto r1 = run_blocks(*prog, one, launch_to(a), 1, nullptr);
  REQUIRE(r1);
  CHECK(mem2.bytes(0) == one.bytes(0));
  CHECK(r2->stats.warp_instructions == r1->stats.warp_instructions);
  // Progress on the calling thread, and Cancel (BlockRunWatch): the sampled modes' functional
  // pass over a whole grid takes tens of seconds at lesson 5's 2048^3 (19 s on 8 threads).
  // One thread, a report after every block (progress_seconds 0): 1, 2, ... 40 of 40.
  std::vector<uint64_t> seen;
  BlockRunWatch watch;
  watch.progress_seconds = 0;
  watch.progress = [&](uint64_t done, uint64_t total, double seconds) {
    CHECK(total == blocks);
    CHECK(seconds >= 0);
    seen.push_back(done);
  };
  func::DeviceMemory one1 = start;
  auto rw = run_blocks(*prog, one1, launch_to(b), 1, nullptr, &watch);
  REQUIRE(rw);
  REQUIRE(seen.size() == blocks);
  for (uint32_t i = 0; i < blocks; ++i) CHECK(seen[i] == i + 1);
  REQUIRE(one1.read(b, out.data(), out.size() * 4ull));
  check_sums(out, steps);
  // Cancel set by the third report: the pass stops before block 3 with the Error "cancelled".
  std::atomic<bool> cancel{false};
  watch.cancel = &cancel;
  seen.clear();
  watch.progress = [&](uint64_t done, uint64_t, double) {
    seen.push_back(done);
    if (done == 3) cancel = true;
  };
  func::DeviceMemory two = start;
  auto c = run_blocks(*prog, two, launch_to(b), 1, nullptr, &watch);
  REQUIRE_FALSE(c);
  CHECK(c.error().message == "cancelled");
  CHECK(seen == std::vector<uint64_t>{1, 2, 3});
  // On 4 threads with the flag already set, every range stops before its first block.
  func::DeviceMemory four = start;
  auto c4 = run_blocks(*prog, four, launch_to(b), 4, &start, &watch);
  REQUIRE_FALSE(c4);
  CHECK(c4.error().message == "cancelled");
  // Unset, the 4 ranges run as without a watch: the same sums.
  cancel = false;
  watch.progress_seconds = 1e9;  // no report in this short pass
  func::DeviceMemory again = start;
  auto r4 = run_blocks(*prog, again, launch_to(b), 4, &start, &watch);
  REQUIRE(r4);
  CHECK(r4->threads == 4);
  REQUIRE(again.read(b, out.data(), out.size() * 4ull));
  check_sums(out, steps);
}

TEST_CASE(
    "356 mix_distance: the share of the launch's work the steady windows' mix does not stand for") {
  // (rate_sampler.h, step 1b.) Windows indexed by PTX line; the launch's counts per line.
  std::map<int32_t, func::LineCounts> launch;
  launch[10].warp_instructions = 300;
  launch[20].warp_instructions = 100;
  std::vector<uint64_t> same(21, 0), first(21, 0), other(31, 0);
  same[10] = 3, same[20] = 1;
  first[10] = 50;  // only line 10: 100% against 75%, a quarter of the work
  other[30] = 7;   // a line the launch never ran
  CHECK(mix_distance(same, launch) == doctest::Approx(0));
  CHECK(mix_distance(first, launch) == doctest::Approx(0.25));
  CHECK(mix_distance(other, launch) == doctest::Approx(1));
  CHECK(mix_distance({}, launch) == doctest::Approx(1));
  // The default tolerance refuses the quarter and keeps a small prologue's share.
  std::vector<uint64_t> loop(21, 0);
  loop[10] = 1000;
  std::map<int32_t, func::LineCounts> with_prologue;
  with_prologue[10].warp_instructions = 1000;
  with_prologue[20].warp_instructions = 20;  // 2% outside the loop
  CHECK(mix_distance(first, launch) > SamplingOptions{}.rate_mix_tolerance);
  CHECK(mix_distance(loop, with_prologue) < SamplingOptions{}.rate_mix_tolerance);
}

// The strided sum, then a flag: the grid's last block raises it (the output's word `flag`, after
// the sums) and block 0 waits for it before it stores. In the timing
// model every block of the one wave is resident at once; run functionally in grid order, block
// 0 waits for a block that has not run yet.
// (kSum with a fifth parameter and the flag's code between the loop and the store.)
std::string flagged_ptx() {
  return edited_sum(
      {{"strided_sum(.param .u64 in, .param .u64 out, .param .u32 steps, .param .u32 mask)",
        "flagged_sum(.param .u64 in, .param .u64 out, .param .u32 steps, .param .u32 mask, "
        ".param .u32 flag)"},
       {".reg .pred %p<2>;", ".reg .pred %p<4>;"},
       {".reg .b32 %r<12>;", ".reg .b32 %r<16>;"},
       {".reg .b64 %rd<9>;", ".reg .b64 %rd<12>;"},
       {"ld.param.u32 %r2, [mask];", "ld.param.u32 %r2, [mask];\n  ld.param.u32 %r12, [flag];"},
       {"  mul.wide.u32 %rd7, %r6, 4;\n",
        "  mul.wide.u32 %rd9, %r12, 4;\n"
        "  add.s64 %rd10, %rd6, %rd9;\n"
        "  mov.u32 %r13, %nctaid.x;\n"
        "  sub.u32 %r13, %r13, 1;\n"
        "  setp.eq.u32 %p2, %r3, %r13;\n"
        "  setp.eq.u32 %p3, %r5, 0;\n"
        "  and.pred %p2, %p2, %p3;\n"
        "  mov.u32 %r14, 1;\n"
        "  @%p2 st.volatile.global.u32 [%rd10], %r14;\n"
        "  setp.ne.u32 %p3, %r3, 0;\n"
        "  @%p3 bra $L_store;\n"
        "$L_wait:\n"
        "  ld.volatile.global.u32 %r15, [%rd10];\n"
        "  setp.eq.u32 %p3, %r15, 0;\n"
        "  @%p3 bra $L_wait;\n"
        "$L_store:\n"
        "  mul.wide.u32 %rd7, %r6, 4;\n"}});
}

TEST_CASE(
    "356 a block that waits for a later one: the grid-order functional run faults, the full run") {
  // One wave of 64 blocks; the flag is the output's word after the sums.
  const uint32_t blocks = 64, steps = 200;
  const std::string ptx = flagged_ptx();
  SampledLaunch l{ptx.c_str(), "flagged_sum", blocks};
  l.in.resize(kMask + 1);
  for (uint32_t i = 0; i <= kMask; ++i) l.in[i] = input(i);
  l.out_words = uint64_t{blocks} * 128 + 1;
  l.args = {steps, kMask, blocks * 128};
  timing::SamplingOptions so = timing_tests::sampling_on(false);
  so.rate_window = 1024;
  so.rate_tolerance = 0.05;  // its windows' rates spread 2.3% (the plain sum's settle within 2%)
  const Outcome full = timing_tests::run_16sm(l, so, 1);
  so.enabled = true;
  const Outcome sampled = timing_tests::run_16sm(l, so, 1);
  CHECK(full.out.back() == 1);
  std::vector<uint32_t> sums(sampled.out.begin(), sampled.out.end() - 1);
  check_sums(sums, steps);
  const SamplingReport& s = sampled.result.sampling;
  CHECK_FALSE(s.within_wave);
  CAPTURE(s.rate_refused);
  CAPTURE(s.why_full);
  CHECK(s.rate_refused.find("faulted") != std::string::npos);
  CHECK(sampled.result.cycles == full.result.cycles);
  CHECK(sampled.out == full.out);
}

TEST_CASE("356 grids of fewer waves than the wave sampler needs: within-wave rates and the drain") {
  // One full wave (64 blocks), a partial one (40: 2 or 3 blocks an SM) and 3.4 waves (216), of
  // blocks of 600 steps. The bounds are the errors measured on 2026-11-28 (stop 44): -2.6%,
  // -0.4% and -1.0%. The drain leaves out the end of a block (the warps' stagger, the last
  // store and exit: a few hundred cycles, a small share of a long block's).
  struct Case {
    uint32_t blocks;
    uint64_t waves;
    double bound;
  };
  for (const Case c : {Case{64, 1, 0.03}, Case{40, 1, 0.01}, Case{64 * 3 + 24, 4, 0.015}}) {
    CAPTURE(c.blocks);
    const uint32_t steps = 600;
    const Outcome full = run(c.blocks, steps, false, 1);
    const Outcome one = run(c.blocks, steps, true, 1);
    check_sums(one.out, steps);
    CHECK(one.result.stats.warp_instructions == uint64_t{c.blocks} * 4 * (17 + 9 * steps));
    const SamplingReport& s = one.result.sampling;
    CHECK(s.within_wave);
    CHECK(s.applied);
    CHECK(s.waves == c.waves);
    CHECK(s.work_fraction < 0.9);
    CHECK(s.method().find(c.waves == 1 ? "the grid's one wave" : "the last wave's") !=
          std::string::npos);
    CHECK(one.json.find("\"within_wave\":true") != std::string::npos);
    CAPTURE(one.result.cycles);
    CAPTURE(full.result.cycles);
    CHECK(std::abs(double(one.result.cycles) - double(full.result.cycles)) <=
          c.bound * double(full.result.cycles));
    if (c.blocks == 64) CHECK(run(c.blocks, steps, true, 2).json == one.json);  // any threads
  }
  // Blocks of 200 steps: the rate is steady only after 78% of the one wave's work; what is left
  // is mostly the wave's end, and the launch runs in full, saying why.
  const Outcome full = run(64, 200, false, 1);
  const Outcome late = run(64, 200, true, 1);
  CHECK_FALSE(late.result.sampling.within_wave);
  CHECK(late.result.sampling.rate_refused.find("steady only after") != std::string::npos);
  CHECK(late.result.cycles == full.result.cycles);
}

namespace {
// The strided sum with each thread walking its own stretch of a 4 MiB input: lane i starts at
// 257 x i, so a warp's load touches 32 lines, and its warps (no barrier) run at the speed the
// scheduler's favour gives them.
std::string walk_ptx() {
  return edited_sum(
      {{"strided_sum", "walk_sum"}, {"mov.u32 %r9, %r6;", "mul.lo.u32 %r9, %r6, 257;"}});
}
}  // namespace

TEST_CASE("356 one wave whose warps issue at unlike rates: refused, the full run") {
  // 64 blocks of 4 warps walking their own stretches (4 an SM): in the steady windows the warps
  // of a block issued at rates 395% apart on average (the scheduler favours older warps), and
  // the launch runs in full, saying why. Without the check (rate_warp_spread 100) it came out
  // 2.7% fast (205,330 cycles against 211,040; 2026-11-28, stop 44).
  const std::string ptx = walk_ptx();
  const uint32_t mask = (1u << 20) - 1, steps = 400, blocks = 64;
  SampledLaunch l{ptx.c_str(), "walk_sum", blocks};
  l.in.resize(mask + 1);
  for (uint32_t i = 0; i <= mask; ++i) l.in[i] = input(i);
  l.out_words = uint64_t{blocks} * 128;
  l.args = {steps, mask};
  timing::SamplingOptions so = timing_tests::sampling_on(false);
  so.rate_window = 1024;
  const Outcome full = timing_tests::run_16sm(l, so, 1);
  so.enabled = true;
  const Outcome sampled = timing_tests::run_16sm(l, so, 1);
  for (uint32_t i = 0; i < sampled.out.size(); ++i) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < steps; ++k) sum += input((257 * i + 32 * k) & mask);
    if (sampled.out[i] != sum) {
      CAPTURE(i);
      FAIL("output differs from the sum computed on the host");
    }
  }
  const SamplingReport& s = sampled.result.sampling;
  CHECK_FALSE(s.within_wave);
  CAPTURE(s.rate_refused);
  CHECK(s.rate_refused.find("unlike rates") != std::string::npos);
  CHECK(sampled.result.cycles == full.result.cycles);
  CHECK(sampled.out == full.out);
}
