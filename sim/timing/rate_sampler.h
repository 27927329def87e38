// Within-wave rate sampling: time a launch whose blocks run for a long time (lesson 5's matmul at
// 2048^3: one wave of the naive kernel is ~400k cycles, ~30 s of host time in detail) from the
// start of its first wave and of its last one, simulated in detail until their rates are steady
// (opt-in with the rest of sampling.h: `--sampled`).
//
// The hardware: once the blocks of a wave are resident and past their first loads, every SM
// repeats the same loop iteration over and over; the GPU then issues warp instructions at a
// steady rate (the loop's mix, the L1/L2/DRAM traffic per iteration and the latencies they see
// do not change from one iteration to the next). A wave lasts as long as it takes to issue its
// blocks' warp instructions at that rate, and the functional executor knows that count exactly.
//
// The method (run_timing, gpu_model.cpp, when sampling is asked for, the launch is not traced,
// checked or clustered, and `within_wave` is on; since stop 44 for any number of waves: a grid
// of one long wave, lesson 12's matmul at 1024^3, is its best case, and the wave sampler cannot
// sample fewer than 9 waves at all: WaveSampler::waves_needed):
//   1. Start (stage A): the launch is simulated in detail from cycle 0. Every `rate_window`
//      cycles a RateWatch reads the launch's totals (sampling.h: snapshot). When the last
//      `rate_windows` windows issued warp instructions (functional count) at rates within
//      `rate_tolerance` of each other, every block of the first wave is resident and no block
//      has finished yet, the rate is steady: the detailed simulation stops there (cycle T_A,
//      F_A warp instructions). If a block finishes first (short blocks: every corpus point
//      that samples), the watch gives up and the run goes on as before (wave sampling).
//   1b. The mix check (2026-11-28, after l12.traffic.large came out 33.75% fast): the whole
//      launch then runs functionally (step 3, moved before stage B), which gives its exact
//      warp instructions per PTX line. The steady windows must have run the same mix: if the
//      total variation distance between the two shares per line is above
//      `rate_mix_tolerance`, the windows saw one phase of the blocks only (lesson 12's
//      panel_sum first sums an L2-resident A panel at 25.8 warp instructions a cycle, then
//      reads a B panel from DRAM at a fraction of that; its windows ran the first loop's lines
//      alone), and the launch is simulated again from the memory it found, as without
//      within-wave rates (the wave sampler's run, or the full one); the result says why
//      (SamplingReport::rate_refused). A loop that is most of its blocks' work (lesson 5's
//      matmuls: the K loop) passes: its prologue and epilogue are a small share.
//   1c. Refusals, each simulating the launch again as without within-wave rates, saying why:
//      the functional run (step 3, in grid order) faulted: a kernel's own fault, which the run
//      in detail then reports, or a block that waits for a later block's flag, which in grid
//      order never comes. And in a grid of fewer waves than the wave sampler needs, where the
//      drain (step 4) is most of what is extrapolated: blocks whose functional work differs by
//      more than `rate_tolerance` in a kernel whose blocks may share work (atomics, flags:
//      block_work_exact; a queue taken with an atomic gives block 0 all of it in grid order),
//      or warps of one block that issued at unlike rates in the windows (RateWatch::
//      warp_spread > `rate_warp_spread`: warps without barriers that the scheduler favours
//      unequally end one after another as its favour moves, which the drain does not model;
//      g.gemv_thread's row walks came out 16.7% fast with a spread of 144%), or a rate that
//      turned steady only after `rate_max_detailed` of the work (what is left is mostly the
//      wave's end, which the drain does not time: t.ldmatrix.x2, 98.7% in detail, 2.6% fast).
//   2. The last wave (stage B): blocks [(waves - 1) x wave, end) are simulated in detail alone,
//      from an idle GPU and a cold L2, until their rate is steady in the same way (T_B) or
//      they finish (then their cycles are exact). The block scheduler spreads them as the full
//      run's does (round-robin over the SMs with room), so the last wave's occupancy per SM,
//      lower than the others' when the wave is partial, is simulated, not assumed.
//   3. Exact work: the whole launch runs functionally (fast_forward.h: run_blocks, on several
//      host threads when the blocks cannot see each other), on the memory as the launch found
//      it: every store and the warp-instruction count of every block are exact (the detailed
//      stages ran on copies).
//   4. Time: cycles = T_A + (W_before - F_A) / R_A + T_B + E, where W_before is the exact work
//      of the blocks before the last wave, R_A stage A's steady rate (warp instructions per
//      cycle), and E the time stage B's slowest SM needs for what it has left at T_B (the
//      drain). A grid of one wave has no stage B: cycles = T_A + E of stage A. The drain, per
//      SM: each resident block's work left (its exact functional count where that is the
//      block's own, block_work_exact, else the stage's mean; converted to issue counts with the
//      windows' ratio of issued to functional warp instructions) drains at its share of the
//      SM's rate (its warps' issue over the windows against its SM-mates': lesson 17's SIMT
//      matmul at 1024^3 runs one of an SM's two blocks ahead), the SM's rate R(n) for the n
//      blocks still running being the mean over the SMs that held n at the stop (one SM's rate
//      is noisy, and the slowest of a hundred noisy rates is biased slow: +4.4% on lesson 12's
//      one-wave matmul at 512^3), interpolated between the counts seen, and below the fewest
//      the fewest's (the blocks left take up what the ended ones issued; where the SMs held 1
//      and 2 blocks R(1) is measured). Every other counter (warp states, L1/L2/DRAM traffic,
//      SM-active and resident-warp cycles) is the two stages' detailed totals plus their
//      steady per-cycle rates over the extrapolated cycles: labelled extrapolated.
// Error sources (measured, 2026-11-28: see the report in validation/data and sampling.h):
//   - The middle waves run at the first wave's steady rate. In the full run the later waves
//     start as earlier blocks end (no cold start, but L2 contents and DRAM rows of their own),
//     and the SMs drift apart; the transitions between waves (the last blocks of a wave ending,
//     the next ones' first loads) are not timed at all.
//   - The last wave starts cold and alone (a cold L2, every SM at once) where the full run's
//     starts warm and staggered; its drain is one SM's remaining work at its steady rate.
//   - Counters other than the cycles, instruction counts and stores are rates x cycles.
// Simplified: no check wave: a launch whose later waves behave unlike its first with the same
// instruction mix (a grid whose blocks differ in work is timed by their exact work, and one whose
// blocks change phase is refused by the mix check, but one whose L2 fills up part-way is not)
// gets the first wave's rate. Stage B's windows are not checked for their mix (its blocks run
// the code stage A's passed with). The drain leaves out a block's end after its last issue (the
// stagger of its warps, its last store, the exit): tests/356's one-wave grid of ~11k-cycle
// blocks comes out 3.8% fast.
// Measured at full size (2026-11-28, stop 44, device host, 16 threads): lesson 5 at 2048^3,
// naive -4.0% and tiled +9.4% (scripts/microbench/h200-host-lesson5-2048-full-2026-11-28-
// stop44.txt): the first wave's steady rate is not the later waves'. The cause (stop 45,
// scripts/microbench/lesson5-rate-ramp-2026-11-28-stop45.md) is not the L2 (a middle wave from
// a replayed L2 runs within 1% of the first): the first wave's blocks start together and stay
// in step, and in the full run the blocks drift out of step wave after wave, the tiled
// kernel's rate climbing from 285 to 333 warp instructions a cycle over ~8 waves. Taking the
// rate in the second wave instead (tiled +6.0%, naive -3.3%) costs 2.3x the time, and is not
// used. Since stop 46 a grid of at least the wave sampler's waves whose blocks own their work (and
// whose first wave loads the L2 lightly) is SM-sampled instead (sm_subset.h: lesson 5 at 2048^3,
// naive -2.3%, tiled +2.0%); stage B and the drain time the others.
// The heavy points that sample within one or a few waves are within 1.4%
// (validation/data/sampled-h200host-2026-11-28-stop44-heavy.txt).
// A one-wave grid of one block an SM whose warps walk memory alike (tests/356's walk, 16
// blocks) came out 7.4% fast: a rate that falls late in the wave is not in the windows.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/func/executor.h"
#include "sim/timing/sampling.h"

namespace warplab::timing {

// Watches one detailed stage's totals, window by window, for a steady rate.
class RateWatch {
 public:
  explicit RateWatch(const SamplingOptions& options);
  bool armed() const { return armed_; }
  bool steady() const { return steady_; }
  // The cycle of the next look (a multiple of the window).
  uint64_t next_look() const { return next_; }
  // A look at `at` (the stage's totals, cycle included), with every SM's issued warp
  // instructions (compiled code's count) and resident blocks; `placed`: every block the stage
  // will have resident at once is; `finished`: a block of the stage has finished. Returns true
  // when the rate is steady: the caller stops the stage there. A finished block before that
  // disarms the watch (it never looks again).
  // `lines`: the launch's warp instructions so far per PTX line (index: the line), for the
  // steady windows' mix (steady_lines); may be null (then steady_lines is empty).
  // `blocks`: per SM, each resident warp's key and issued warp instructions (Sm::warp_progress),
  // for the drain's per-warp rates; may be null (then each SM's blocks share its rate evenly,
  // and a block's work is the stage's mean).
  using WarpProgress = std::vector<std::vector<std::pair<uint64_t, uint64_t>>>;
  bool look(const WaveCounters& at, const std::vector<uint64_t>& issued,
            const std::vector<int>& resident, bool placed, bool finished,
            const std::vector<uint64_t>* lines = nullptr, const WarpProgress* blocks = nullptr);
  // The stage's totals at its end (the caller's last snapshot: where it stopped, or the end of
  // the launch when it was not stopped).
  void end(const WaveCounters& at) { end_ = at; }
  const WaveCounters& at_end() const { return end_; }
  // Once steady: each counter per cycle over the steady windows (WaveCounters::values' order).
  std::vector<double> rates() const;
  double work_rate() const;  // functional warp instructions per cycle
  // Cycles the stage's slowest SM needs after the stop to issue what its resident blocks have
  // left (the drain E; see the header), from `block_work`, the launch's functional warp
  // instructions per block (linear index): with `exact`, each SM's own blocks' work; otherwise
  // (the functional run's work per block need not be the timing run's: blocks that take work
  // from a queue with atomics) each resident block the mean of the stage's blocks
  // [first, first + count).
  double drain_cycles(const std::vector<uint64_t>& block_work, bool exact, uint64_t first,
                      uint64_t count) const;
  // Once steady: how unlike the warps of one block issued in the windows: per block, (fastest
  // - slowest warp's rate) / the block's mean warp rate, averaged over the resident blocks (0:
  // no block of two warps or more, or no per-warp progress).
  double warp_spread() const;
  // Once steady: the steady windows' warp instructions per PTX line (index: the line).
  std::vector<uint64_t> steady_lines() const;

 private:
  int window_, need_;
  double tolerance_;
  bool armed_ = true, steady_ = false;
  uint64_t next_;
  std::vector<WaveCounters> looks_;
  std::vector<std::vector<uint64_t>> issued_;
  std::vector<std::vector<uint64_t>> lines_;  // per look, as issued_ (the last need_ + 1 kept)
  std::vector<int> resident_;  // at the stop
  std::vector<WarpProgress> blocks_;  // per look, as lines_
  WaveCounters end_;
  size_t first_ = 0;  // the first look of the steady windows
};

// How far the steady windows' instruction mix (`window`: warp instructions per PTX line) is from
// the whole launch's (`launch`, exact): the total variation distance between the two shares per
// line, 0 to 1 (SamplingOptions::rate_mix_tolerance). 1 when either is empty.
double mix_distance(const std::vector<uint64_t>& window,
                    const std::map<int32_t, func::LineCounts>& launch);

// One detailed stage as run_timing ran it.
struct RateStage {
  const TimingResult* result = nullptr;
  const RateWatch* watch = nullptr;
  uint64_t first_block = 0, blocks = 0;  // the blocks it placed: [first_block, +blocks)
};

// Whether a launch's blocks' functional warp instructions (run_blocks, in grid order) are each
// block's work in the timing run too: not when the kernel touches device memory other than by
// plain loads and stores (touch_log.h): a block that takes its work from a queue with an atomic
// gets, in grid order, another share than in the timing run's interleaving.
bool block_work_exact(const ptx::Function& kernel);

// Puts the launch's sampled result together (step 4): `a` is stage A's result, and becomes the
// launch's; `block_work` the exact per-block counts and `stats` the exact launch counts from the
// functional run; `max_warps_per_sm` for the achieved occupancy. `program`'s source lines map
// the per-line warp states.
// A grid of one wave has no stage B: `sb` is then `sa` (same watch), and the cycles are stage
// A's plus its slowest SM's drain. `exact`: block_work_exact.
void combine_rate_stages(TimingResult& a, const RateStage& sa, const RateStage& sb,
                         const std::vector<uint64_t>& block_work, bool exact,
                         const func::LaunchStats& stats,
                         int max_warps_per_sm, const func::Program& program,
                         double peak_dram_bytes_per_second, double launch_overhead_us);

}  // namespace warplab::timing
