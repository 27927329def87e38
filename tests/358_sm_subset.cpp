// SM sampling (sim/timing/sm_subset.h): a grid of many waves of long blocks is timed on a
// subset of the SMs with their share of the blocks and of the DRAM's bandwidth (the L2 whole). The
// sampled run's outputs are the sums computed here, its warp-instruction count is the one
// counted from the PTX below, it says how it was sampled, its cycles are near the full model's,
// and it is identical on 1 and 2 host threads. The subset's GPU and the scaling are checked to
// the exact figure.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "35x_sampled.h"
#include "sim/timing/config.h"
#include "sim/timing/sm_subset.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

// out[i] = fold over k < steps of acc = acc * 3 + in[(7 i + 64 k) & mask] (u32, wrapping), the
// block's warps kept together by a barrier each step (as a tiled matmul's are): the strided sum
// (35x_sampled.h) edited. 12 instructions before the loop, 11 in it, 5 after: a warp runs
// 17 + 11 x steps.
std::string fold_ptx() {
  return timing_tests::edited_ptx(
      timing_tests::kStridedSum,
      {{"strided_sum", "fold"},
       {"mov.u32 %r9, %r6;", "mul.lo.u32 %r9, %r6, 7;"},
       {"add.s32 %r8, %r8, %r11;", "mul.lo.u32 %r8, %r8, 3;\n  add.s32 %r8, %r8, %r11;"},
       {"add.s32 %r9, %r9, 32;", "add.s32 %r9, %r9, 64;"},
       {"add.s32 %r7, %r7, 1;\n", "add.s32 %r7, %r7, 1;\n  bar.sync 0;\n"}});
}

constexpr uint32_t kMask = (1u << 10) - 1;  // 4 KiB of input: in the L1 after the first sweeps
uint32_t input(uint32_t i) { return i * 2654435761u ^ (i >> 5); }

using Outcome = timing_tests::SampledOutcome;

// The fold of `blocks` blocks of 128 threads on the H100 preset cut to 32 SMs (4 blocks an SM,
// 128 a wave); sampled with SM sampling on `subset` SMs.
Outcome run(uint32_t blocks, uint32_t steps, bool sampled, int subset, int threads,
            double l2_load = SamplingOptions{}.subset_l2_load) {
  static const std::string ptx = fold_ptx();
  timing_tests::SampledLaunch l{ptx.c_str(), "fold", blocks};
  l.sm_count = 32;
  l.in.resize(kMask + 1);
  for (uint32_t i = 0; i <= kMask; ++i) l.in[i] = input(i);
  l.out_words = uint64_t{blocks} * 128;
  l.args = {steps, kMask};
  SamplingOptions so = timing_tests::sampling_on(sampled);
  so.rate_window = 1024;
  so.subset_sms = subset;
  so.subset_l2_load = l2_load;
  return timing_tests::run_16sm(l, so, threads);
}

void check_folds(const std::vector<uint32_t>& out, uint32_t steps) {
  for (uint32_t i = 0; i < out.size(); ++i) {
    uint32_t acc = 0;
    for (uint32_t k = 0; k < steps; ++k) acc = acc * 3 + input((7 * i + 64 * k) & kMask);
    if (out[i] != acc) {
      CAPTURE(i);
      FAIL("output differs from the fold computed on the host");
    }
  }
}

}  // namespace

TEST_CASE("358 subset_config and subset_blocks: the subset's GPU and its blocks") {
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  const GpuConfig c = subset_config(*cfg, 16);
  const double share = 16.0 / 132.0;
  CHECK(c.core.sm_count == 16);
  // The DRAM: 160 x 16 / 132 = 19.4 -> 19 channels, 5120 x 16 / 132 = 620.6 -> 621 bits; the
  // distributor's interval per SM kept.
  CHECK(c.dram.channels == 19);
  CHECK(c.dram.bus_bits == 621);
  CHECK(c.core.block_dispatch_interval ==
        doctest::Approx(cfg->core.block_dispatch_interval / share));
  // The L2 whole.
  CHECK(c.l2.slices == cfg->l2.slices);
  CHECK(c.l2.sectors_per_cycle_per_slice == cfg->l2.sectors_per_cycle_per_slice);
  CHECK(c.l2.fabric_bytes_per_cycle == cfg->l2.fabric_bytes_per_cycle);
  // Capacities and latencies as they are.
  CHECK(c.l2.size_bytes == cfg->l2.size_bytes);
  CHECK(c.l2.hit_latency == cfg->l2.hit_latency);
  CHECK(c.dram.latency == cfg->dram.latency);
  CHECK(c.dram.banks == cfg->dram.banks);
  CHECK(c.core.max_warps_per_sm == cfg->core.max_warps_per_sm);
  // The subset's share of the DRAM's peak.
  CHECK(c.peak_dram_bytes_per_second() ==
        doctest::Approx(cfg->peak_dram_bytes_per_second() * 621.0 / 5120.0));
  // Every preset's subset, of any size, is a valid GPU.
  for (const char* name : {"h100-sxm", "h200", "a100-sxm", "teaching"}) {
    auto p = load_config(name);
    REQUIRE(p);
    for (int sms = 1; sms < p->core.sm_count; ++sms) {
      const auto st = validate_config(subset_config(*p, sms));
      CAPTURE(name);
      CAPTURE(sms);
      CHECK_MESSAGE(st, (st ? "" : st.error().to_string()));
    }
  }
  CHECK(subset_blocks(16384, 16, 132) == 1986);  // 1985.94
  CHECK(subset_blocks(4096, 33, 132) == 1024);
  CHECK(subset_blocks(5, 1, 132) == 1);        // at least one
  CHECK(subset_blocks(100, 200, 132) == 100);  // at most the grid
}

TEST_CASE("358 scale_subset: the subset's cycles and counters scaled to the launch") {
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  TimingResult r;
  r.cycles = 10000;
  r.clock_mhz = 1980;
  r.warp_states[0] = 700;
  r.warp_states_by_ptx_line[12][3] = 5;
  r.memory.l1.global_ld_sectors = 40;
  r.memory.dram_bytes_read = 4096;
  func::LaunchStats stats;
  stats.warp_instructions = 123456;
  stats.blocks = 1000;
  scale_subset(r, 4.0, 16, 250, stats, *cfg);
  CHECK(r.cycles == 4848);  // 10000 x 4 x 16 / 132 = 4848.48
  CHECK(r.kernel_time_us == doctest::Approx(4848.0 / 1980));
  CHECK(r.time_us == doctest::Approx(4848.0 / 1980 + cfg->core.launch_overhead_us));
  CHECK(r.warp_states[0] == 2800);
  CHECK(r.warp_states_by_ptx_line[12][3] == 20);
  CHECK(r.memory.l1.global_ld_sectors == 160);
  CHECK(r.memory.dram_bytes_read == 16384);
  CHECK(r.stats.warp_instructions == 123456);
  CHECK(r.gpu_ipc == doctest::Approx(123456.0 / 4848));
  CHECK(r.config == "h100-sxm");
  const SamplingReport& s = r.sampling;
  CHECK(s.applied);
  CHECK(s.within_wave);
  CHECK(s.subset_sms == 16);
  CHECK(s.work_fraction == doctest::Approx(0.25));
  CHECK(s.detailed_blocks == 250);
  CHECK(s.blocks == 1000);
  CHECK(s.method().find("SM sampling: 16 of 132 SMs") != std::string::npos);
}

TEST_CASE(
    "358 SM sampling of a grid of many waves: exact outputs and counts, labelled, near "
    "the full model, any threads") {
  const uint32_t blocks = 128 * 8 + 64, steps = 100;  // 8.5 waves of long blocks on 32 SMs
  const Outcome full = run(blocks, steps, false, 8, 1);
  const Outcome one = run(blocks, steps, true, 8, 1);
  const Outcome two = run(blocks, steps, true, 8, 2);
  // 1. Outputs: the folds computed here, in every run.
  check_folds(full.out, steps);
  check_folds(one.out, steps);
  CHECK(two.out == one.out);
  // 2. Exact counts: 4 warps a block, 17 + 11 x steps warp instructions a warp.
  const uint64_t warp_instructions = uint64_t{blocks} * 4 * (17 + 11 * steps);
  CHECK(full.result.stats.warp_instructions == warp_instructions);
  CHECK(one.result.stats.warp_instructions == warp_instructions);
  CHECK(one.result.stats.blocks == blocks);
  // 3. Labelled: SM sampling on 8 of the 32 SMs, with the grid's first quarter of the blocks.
  const SamplingReport& s = one.result.sampling;
  CHECK(s.applied);
  CHECK(s.within_wave);
  CHECK(s.subset_sms == 8);
  CHECK(s.detailed_blocks == blocks / 4);
  CHECK(s.work_fraction == doctest::Approx(0.25));
  CHECK(s.waves == 9);
  CHECK(s.method().find("SM sampling: 8 of 32 SMs") != std::string::npos);
  CHECK(one.json.find("\"subset_sms\":8") != std::string::npos);
  CHECK(full.json.find("\"sampled\"") == std::string::npos);
  // 4. Within 2% of the full model: measured 2026-11-29 (stop 46) at +1.45% (104,845 cycles
  //    against 103,342).
  CAPTURE(one.result.cycles);
  CAPTURE(full.result.cycles);
  CHECK(one.result.cycles != full.result.cycles);  // scaled from the subset, not the full run
  CHECK(std::abs(double(one.result.cycles) - double(full.result.cycles)) <=
        0.02 * double(full.result.cycles));
  // 5. The same result on 1 and 2 host threads, byte for byte.
  CHECK(one.json == two.json);
  // 6. subset_sms 0 turns it off: the within-wave rates' run (stage B and the drain); so does an
  //    L2 loaded above subset_l2_load in the first wave's steady windows (here a limit below
  //    any load: this grid's windows read the L1 alone, an L2 load of 0).
  const Outcome off = run(blocks, steps, true, 0, 1);
  CHECK(off.result.sampling.subset_sms == 0);
  CHECK(off.result.sampling.method().find("within-wave rates") != std::string::npos);
  const Outcome loaded = run(blocks, steps, true, 8, 1, -1.0);
  CHECK(loaded.result.sampling.subset_sms == 0);
  CHECK(loaded.json == off.json);
}

TEST_CASE("358 a grid of fewer waves than the wave sampler needs: no SM sampling") {
  // 3.5 waves: the within-wave rates' drain times the last wave (sm_subset.h).
  const Outcome o = run(128 * 3 + 64, 100, true, 8, 1);
  CHECK(o.result.sampling.applied);
  CHECK(o.result.sampling.subset_sms == 0);
  CHECK(o.result.sampling.method().find("within-wave rates") != std::string::npos);
}
