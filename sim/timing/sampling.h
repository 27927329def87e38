// Sampled simulation: time a grid of many identical waves by simulating some waves in detail and
// fast-forwarding the rest (opt-in: TimingOptions::sampling, `--sampled`).
//
// The hardware: the block scheduler (block_scheduler.h) keeps every SM full, so a grid of B blocks
// with W resident at once (blocks per SM x SMs) runs as about B / W "waves". When every block runs
// the same code over different data (a streaming kernel, a tiled matmul), each wave after the first
// costs about the same: the GPU is in a steady state. Simulating ten of a hundred such waves in
// detail tells the time of the other ninety. TBPoint (Huang et al., 2014) and Sieve (Naderan-
// Tahan et al., 2023) sample GPU work this way with errors of 0.5-4%.
//
// The method (WaveSampler), at each wave boundary (the dispatch of block k x W):
//   1. Warm-up: wave 0 starts cold (empty caches, every SM starting at once); it is simulated in
//      detail and its cost is not used.
//   2. Measure: the following waves are simulated in detail until `stable_waves` consecutive ones
//      cost the same within `tolerance` ((max - min) / mean of their cycles).
//   3. Skip: then up to `period - 1` waves (and at least `min_skip_waves`: with less room left
//      before the tail, none) are fast-forwarded: their blocks run in the functional
//      executor at once (every store, atomic and instruction count is exact), and the timing
//      model goes on with the next block as if they had run. A skipped wave whose work (warp
//      instructions, exact) or L2 write-backs differ from the stable waves' by more than
//      `tolerance` ends the skip after it: the grid's waves are not alike there (a bitonic step
//      whose second half of blocks returns at once; the L2 filling up), and what follows runs in
//      detail.
//   4. Settle and check: the first `settle_waves` waves after a skip are simulated in detail but
//      neither checked nor used to cost the skip: the SMs still run the blocks of the wave
//      before the skip, beside blocks far from them in the grid (their DRAM rows differ), which
//      the steady state never has (2026-11-27: l3.occ_pad115712.ref's first wave after a skip
//      cost 3% more than the steady state's, on average over 14 skips). The next wave is the
//      check: if its cost differs from the stable waves' mean by more than `tolerance`, sampling
//      goes back to step 2, else it skips again. A check that fails with the stable waves' work
//      after a skip that was not cut means the skip itself upset the run, and the launch is not
//      sampled further (see at_boundary: a grid that wraps over its data).
//      A check that passes after a skip that was not cut has confirmed the steady state across a
//      whole skip: with `confirmed_to_tail` the next skip runs to the tail, with no more check
//      waves (the per-wave functional checks of step 3 still end it where the waves change).
//      With `tight_tolerance` > 0, a stable window that agrees within it skips to the tail at
//      once (off by default: not yet validated on the whole corpus).
//   5. Tail: the last `tail_waves` waves (the last one may be partial, and the GPU drains) always
//      run in detail, so a skip never reaches the end of the grid. With 3, a skip to the tail has
//      a settle wave and then a wave that costs it with the waves before it (2026-11-28:
//      g.block_scan's later waves cost more than its first stable ones; with 2 tail waves
//      nothing after its skip costed it, 2.06% off on main c393af2; 1.36% with 3).
//   Each skipped stretch of n waves costs n x the mean of the detailed waves just before and just
//   after it (the check wave), in cycles and in every counter (warp states, L1/L2/DRAM traffic,
//   active cycles): the timeline is compressed, and the result adds the skipped stretches back.
//   A stretch ended by a changed wave costs n - 1 waves before and the changed one the mean; a
//   stretch that upset the run costs n waves before.
// What a wave "costs": the cycles and counters between the dispatch of its first block and of the
// next wave's first block (in the steady state blocks finish and start at a constant rate, so
// this is one wave's worth of work even though waves overlap).
// The L2 across skipped waves (2026-11-26): a streaming kernel whose data outgrows the L2 (a copy
// of 2 x 64 MiB) came out 22% fast (83,359 cycles sampled, 106,727 full) while the skipped blocks
// never touched the L2: in the full run it fills after a third of the grid and every later miss
// also writes a dirty line back to DRAM; the detailed waves never reached that phase. Now the
// skipped blocks run a wave at a time through fast_forward.h, which replays their global accesses
// into the L2's tags and dirty sectors, and a skipped wave whose replay evicts dirty bytes unlike
// the stable waves' DRAM writes (skipped_wave) ends the skip there, so the L2 filling up is
// simulated in detail rather than interpolated: 106,393 cycles (-0.3%).
// The stride-8 copy at 2^24 (l2.stride8.ref) came out 5.3% fast (2026-11-27: 963,815 cycles
// sampled, 1,017,365 full): after a skip the detailed waves wrote back 5.2 MB a wave where the
// steady state writes 8.6 MB, though the L2 held as many dirty lines (163k against 170k) and the
// replay evicted 8.6 MB a skipped wave as the full run does. Neither the replay's order nor the
// partial sectors were the cause: the grid wraps over its data every 8192 blocks (7.76 waves) and
// a skip of 15 waves (15,840 blocks, 544 short of two wraps) leaves the blocks in flight across
// the skip writing lines that the blocks after it write again half a wave later, hits where the
// full run misses; the write-backs took 5 waves to come back. No order of the replay can mend
// that (the blocks in flight run after it), so step 4 detects it and stops sampling the launch:
// 1,008,301 cycles (-0.9%), 76% of the blocks in detail.
// Speed (2026-11-27, branch samp3, data/sampled-samp3-local-2026-11-27.txt): the detailed waves
// have a floor (wave 0, 3 stable, a settle and a check wave a skip, the last 2): 6 of a 16-wave
// grid (l5.matmul_tiled.ref's 16,384 blocks at 8 an SM would be 15.5 waves; not run here),
// about 12 of a 62-wave one (the 2^24 .ref points), so
// wave sampling gives at most ~2.7x and ~5x there, less the fast-forward's own time (functional
// execution and the L2 replay); a grid that wraps over its data stops being sampled after its
// first skip (l2.stride16.ref, heavy: 75.8% in detail, 1.2x, 1.13%), and l6.gelu_unfused.ref
// (heavy) ran 44.9% in detail, 1.9x, 0.10%. 10x on such points needs a unit smaller than a wave
// or a cheaper fast-forward, not tuning of these options.
// The fast-forward's own cost (2026-11-28, branch samp4, l1.vec_add.ref = 2^24 floats, 63 waves,
// one thread, thread CPU time around each fast_forward call on the 2-core host): 0.017 s a
// skipped wave, half of it the functional executor (0.008 s with the L2 replay switched off) and
// half the L2 replay (25k line replays a wave, ~340 ns each: the L2's tag array is larger than
// the host's caches), against ~0.11 s a detailed wave (user time of the full run / 63). So even
// with no detailed wave at all a streaming grid's sampled run is at most ~6.5x faster than the
// full one; 10x needs a cheaper replay (or fewer replayed waves) as well as fewer detailed waves.
// Where a sampled run's time goes (2026-11-28, branch samp5, JSON sim.sampled.fast_forward_wall_s
// against sim.wall_s): l1.vec_add.ref, one thread, dev host: 0.71 s of 3.18 s fast-forwarding,
// 22 of 63 waves in detail. Lesson 5's matmul scaled to M=N=2048, K=32 (the 2048^3 grid, 16 waves
// of 1056 blocks, 1/64 of the K loop), 2 threads: the naive kernel ran 14 of 16 waves in detail
// (every skip cut after one wave: its stable waves issued 6.6% more warp instructions than a wave
// of its blocks, the work check's tolerance is 5%), the tiled one 12 of 16 (wave 0, a ramp of
// falling costs until waves 6-8 agree, the last 3); fast-forwarding was 5% of the naive run's
// wall time and 0.4% of the tiled one's (K=16). So at 2048^3 (about 1.5G + 1.25G warp
// instructions) about 2.2G run in detail: some 1,000 s at the 16-thread rate of `warplab bench`
// (2.2M warp instructions/s on matmul_tiled_512), against a target of 60 s that leaves room for
// about 5% of the grid in detail, less than one wave a launch. No choice of these options gets
// there: a wave-based sampler needs wave 0, a stable window and the tail in detail (7 of 16
// waves at the least). A unit smaller than a wave does not help either: the blocks of a wave
// start together and end together (8 a SM, all resident for the whole wave), so a block's cost
// is only seen over a wave's time. What would: fewer SMs simulated in detail while the others'
// blocks are fast-forwarded, or a sample of each block's loop iterations (its time per iteration
// measured in detail), neither of which is built.
// Measured at full size (2026-11-28, samp6, the device host's 16 vCPUs, 16 threads, main 90a300e;
// scripts/microbench/h100-host-lesson5-2048-2026-11-28-samp6.txt): the full model runs the
// 2048 x 2048 grid at K=128 in 30.2 s (naive) + 17.2 s (tiled), so ~733 s at 2048^3; sampled,
// 2048^3's naive launch ran at the full run's pace (4% of its blocks after 38 s, ~1,000 s left
// by the CLI's estimate). The functional executor, which fast-forwards, ran under 30M warp
// instructions/s on one thread (K=256 did not finish in 12 s): the ~9 waves a 2048^3 launch
// would skip take it about a minute on their own, so under 60 s also needs the fast-forward
// spread over threads (possible where no skipped block reads what another writes: no atomics,
// flags or fences; their L2 replays would then go in block order after them). Not built.
// Built since (2026-11-28, samp7): a unit smaller than a wave, within-wave rate sampling
// (rate_sampler.h). When a launch this sampler may sample has blocks that outlive
// `rate_windows` windows of `rate_window` cycles at a steady rate (spread <= `rate_tolerance`)
// before any block finishes, only the first wave's start and the last wave's start run in
// detail; the rest is the exact functional work (run_blocks, fast_forward.h, on several
// threads) at their steady rates. Where a block finishes first (short blocks), the watch gives
// up and the run goes on here, unchanged (corpus points checked: see the samp7 record). Measured
// (scripts/microbench/h200-host-lesson5-2048-rate-sampled-2026-11-28-samp7.txt, device host, 16
// threads): lesson 5 at 2048^3, both launches rate-sampled, in 33.7 s (0.37% and 0.86% of the warp
// instructions in detail); at 2048 x 2048 x 128 the naive launch came out +1.65% against the full
// model (the tiled one's blocks end before its rate is steady: wave-sampled, +0.41%); 1536 x 1536 x
// 128 naive, dev host: -1.44%. Its error sources (rate_sampler.h): the later waves run at the first
// wave's steady rate (tests/356, a 16-SM grid of 9.4 waves: -2.4%, and -3.5% with blocks three
// times longer: the later waves there are slower than the first one's steady state), the
// transitions between waves are not timed, and the last wave starts cold. The full model at 2048^3
// (~733 s) was not run to compare. Simplified: the skipped blocks' accesses reach the L2 in block
// order and skip the L1s (see fast_forward.h); the per-line warp states are scaled by the run's
// total ratio. Grids of fewer than waves_needed() waves (9 by default), traced and checked
// (racecheck, synccheck) launches run in full, and say so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/timing/warp_state.h"

namespace warplab::timing {

class Sm;
class L2;
struct TimingResult;

struct SamplingOptions {
  bool enabled = false;     // off: every block in detail (the default)
  int min_waves = 8;        // grids with fewer waves run in full (waves; waves_needed)
  int stable_waves = 3;     // consecutive detailed waves that must agree before a skip (waves)
  double tolerance = 0.05;  // their allowed spread, and a check wave's allowed deviation (fraction)
  int period = 16;          // once stable, one detailed wave in every `period` (waves)
  int settle_waves = 1;     // detailed waves after a skip that are neither checked nor used to
                            // cost it: the re-entry transition (waves)
  double tight_tolerance = 0;     // stable waves that agree within this skip to the tail at once,
                                  // with no check waves (fraction; 0 = never, the default)
  bool confirmed_to_tail = true;  // a check wave that passes after a skip that was not cut sends
                                  // the next skip to the tail (no more check waves)
  int tail_waves = 3;             // the grid's last waves, always in detail (waves, at least 1)
  // The fewest waves a skip may cover (waves, at least 1): where less room is left before the
  // tail, the waves run in detail. A one-wave skip saves at most one wave's detail, and pays
  // for it with the wave's fast-forward and L2 replay and the settle wave after it, while its
  // cost is still an estimate (2026-11-29, stop 47: triton.vector_add.ref, 7.76 waves, skipped
  // its wave 4 alone: 0.9x the full run's wall, 2.22% fast, as the check after it failed).
  int min_skip_waves = 2;
  // Within-wave rate sampling (rate_sampler.h), for grids whose blocks outlive many windows:
  bool within_wave = true;  // allowed (it starts only where its conditions hold)
  // SM sampling (sm_subset.h): where within-wave rates find long blocks in a grid of as many
  // waves as the wave sampler needs and each block's work is its own, the launch is timed on
  // this many SMs with their share of the blocks and of the DRAM's bandwidth (the L2 whole),
  // every wave in detail (0, or the GPU's SM count or more: not used). 16 of an H100's 132:
  // 8.25x less work in detail.
  int subset_sms = 16;
  // ... unless the first wave's steady windows loaded the L2 above this share of its peak
  // (sectors a cycle over slices x sectors_per_cycle_per_slice): the subset keeps the whole
  // L2, which its few SMs load far less (sm_subset.h; fraction). A slice's queue adds about
  // load / (1 - load) sector times to a request (one at 0.5) against an L2 hit's 277 cycles;
  // lesson 5's tiled matmul loads it 0.31 and comes out -0.05% (2026-11-29).
  double subset_l2_load = 0.5;
  int rate_window = 2048;        // the span over which a rate is measured (cycles)
  int rate_windows = 4;          // consecutive windows whose rates must agree (windows, at least 2)
  double rate_tolerance = 0.02;  // their allowed spread of warp instructions per cycle
                                 // ((max - min) / mean; fraction)
  // The steady windows must run the launch's instruction mix: the share of each PTX line in
  // their warp instructions against its share in the whole launch's (exact, functional), as a
  // total variation distance (half the sum of the shares' differences; 0: the same mix, 1:
  // disjoint). Above this the windows saw one phase of the blocks only (rate_sampler.h) and the
  // launch is simulated without within-wave rates. A share d of the work at another rate r'
  // moves the time by at most d x |r / r' - 1|: 0.05 keeps that within the 2% target while the
  // other phase's rate is within 40% of the windows'.
  double rate_mix_tolerance = 0.05;
  // In a grid of fewer than the wave sampler's waves (where the drain is most of what is
  // extrapolated), the largest allowed mean spread of the warp rates within a block over the
  // steady windows (RateWatch::warp_spread; fraction). Measured 2026-11-28 (stop 44): 3-15% on
  // the launches whose drain came out within 3.5%, 144-251% on those 6.6-16.7% off.
  double rate_warp_spread = 0.25;
  // ... and the largest share of the launch's work (functional warp instructions) the detailed
  // start may have run when its rate turned steady (fraction): later, what is left to
  // extrapolate is mostly the wave's end (t.ldmatrix.x1 and x2: 84% and 98.7% in detail, 3.5%
  // and 2.6% fast, measured 2026-11-28, stop 44), and the launch would gain less than 2x.
  double rate_max_detailed = 0.5;
};

// What a sampled run did (TimingResult::sampling); reports print it, so a sampled figure is
// never mistaken for a full one.
struct SamplingReport {
  bool requested = false;       // SamplingOptions::enabled
  bool applied = false;         // some waves were fast-forwarded
  std::string why_full;         // requested but not applied: why
  uint64_t wave_blocks = 0;     // blocks per wave (blocks per SM x SMs)
  uint64_t waves = 0;           // of the grid (the last may be partial)
  uint64_t detailed_waves = 0;  // simulated in detail
  uint64_t blocks = 0, detailed_blocks = 0;
  uint64_t skipped_cycles = 0;  // added for the fast-forwarded waves
  uint64_t stopped_wave = 0;    // > 0: the check wave after which no wave was skipped (an upset)
  // Host wall-clock seconds spent fast-forwarding (functional execution and the L2 replay): the
  // part of the run's wall time (TimingResult's) that was not the detailed waves.
  double fast_forward_wall_s = 0;
  int stable_waves = 0, period = 0, settle_waves = 0;  // the options it ran with
  int tail_waves = 0, min_skip_waves = 0;
  bool confirmed_to_tail = false;
  double tolerance = 0, tight_tolerance = 0;
  // Within-wave rate sampling (rate_sampler.h): the launch's start and its last wave's start in
  // detail, the rest from their steady rates; detailed_blocks is then work_fraction x blocks.
  bool within_wave = false;
  double work_fraction = 1;  // warp instructions simulated in detail / all (exact counts)
  std::string rate_method;   // what was done (one line), when within_wave
  int subset_sms = 0;        // > 0: SM sampling (sm_subset.h) on this many SMs
  std::string rate_refused;  // within-wave rates tried and not used: why (the run is then the
                             // wave sampler's or full, as without them)
  double detailed_fraction() const {
    return within_wave ? work_fraction : blocks ? double(detailed_blocks) / blocks : 1;
  }
  std::string method() const;  // one line: how the detailed waves were chosen
};

// A launch's running totals at a wave boundary: the cycle and every counter that is extrapolated
// (in the order snapshot() packs them).
struct WaveCounters {
  uint64_t cycle = 0;
  std::vector<uint64_t> values;
};

// Accounts every SM's warp states up to `now` and reads the totals (gpu_model's hook);
// `warp_instructions`: the launch's functional count so far (LaunchStats, the unit
// fast_forward counts the skipped waves' work in; the SMs' issue count is the compiled code's).
WaveCounters snapshot(std::vector<Sm>& sms, const L2& l2, uint64_t now, uint64_t warp_instructions);
// Totals with only the cycle and the warp instructions set, every other counter 0 (a sampler
// fed by hand: tests).
WaveCounters wave_counters(uint64_t cycle, uint64_t warp_instructions);
// Where snapshot() puts the launch's warp instructions (functional count) and its SM-cycles and
// resident-warp-cycles in WaveCounters::values.
size_t work_counter();
size_t l2_counter();  // the L2's read hits, read misses, write sectors and atomics, in order
size_t state_counter(int state);  // WarpState `state`'s warp-cycles
size_t active_counter();
size_t resident_counter();
// A sampled result's times and rates from its cycles and exact counts (r.cycles, r.stats): the
// kernel's time and the total with the launch overhead, the GPU-wide IPC, the DRAM's peak and
// achieved throughput (rate_sampler.h, sm_subset.h).
void set_sampled_times(TimingResult& r, double peak_dram_bytes_per_second,
                       double launch_overhead_us);
// Adds extrapolated counters (`extra`, in WaveCounters::values' order; the work counter is not
// added) to `r` (warp states, memory table; the per-line warp states scaled by their state's
// total ratio), `active` and `resident`.
void add_counters(TimingResult& r, const std::vector<double>& extra, uint64_t& active,
                  uint64_t& resident, std::vector<WarpStateCycles>& by_line);

class WaveSampler {
 public:
  // `not_here`: why this launch must run in full even when sampling is asked for ("" = it may be
  // sampled).
  WaveSampler(const SamplingOptions& options, uint64_t total_blocks, uint64_t wave_blocks,
              const std::string& not_here = "");
  bool active() const { return active_; }
  // Whether within-wave rates may apply (rate_sampler.h): sampling asked for and allowed here,
  // whatever the number of waves (a grid of one long wave is their best case).
  bool eligible() const { return eligible_; }
  // Waves a grid needs for this sampler to skip any (warm-up, a stable window, the shortest
  // skip and the tail, or `min_waves` if more).
  static uint64_t waves_needed(const SamplingOptions& options);
  // Whether block `next` starts a wave at which the sampler decides (call at_boundary then).
  bool is_boundary(uint64_t next) const { return active_ && next > 0 && next % wave_blocks_ == 0; }
  // Block `next` (a boundary) is about to be placed, with the running totals `at`. Returns the
  // block to place instead: blocks [next, returned) are the caller's to fast-forward.
  uint64_t at_boundary(uint64_t next, const WaveCounters& at);
  uint64_t skipped_blocks() const { return skipped_blocks_; }
  // A skipped wave has been fast-forwarded (fast_forward.h), its replayed accesses evicting
  // `written_back_bytes` of dirty sectors from the L2: whether the L2 still behaves as in the
  // stable waves, i.e. those bytes are the stable waves' DRAM bytes written per wave within
  // `tolerance` of their DRAM traffic per wave. When not (the L2 has filled up and starts
  // writing back, or stops), the caller ends the skip with cut_skip after that wave, so the
  // change is simulated in detail instead of being interpolated over a long skip.
  // Likewise its work: `warp_instructions` (exact, from the functional run) must be the stable
  // waves' warp instructions per wave within `tolerance`, else the grid's waves are not alike
  // (bitonic steps whose second half of blocks returns at once) and the skip ends there too.
  // (2026-11-28, lesson 5's naive matmul at 2048 x 2048 x 32: its stable waves issued 2.05,
  // 1.97 and 1.97M warp instructions, 6.6% more than a wave of its blocks, 1.88M, so every skip
  // ends after one wave; allowing the stable waves' own spread on top of `tolerance` skipped
  // 6 waves at once, but the tail waves after that skip cost 7-9% more than in the full run,
  // and the launch came out 2.66% slow (0.74% with the cut skips): not kept.)
  // The write-backs also count as the stable waves' when the DRAM, at its peak
  // (`dram_bytes_per_cycle`; 0: not used), would move the stable waves' DRAM traffic and the
  // difference in at most half of `tolerance` of a stable wave's cycles: a wave that does not
  // wait for the DRAM, whose reads hit in the L2, where a few kB more write-backs are a large
  // fraction of its small traffic but no time (lesson 5's tiled matmul at 2048 x 2048 x 32:
  // 30-75 kB a skipped wave against 11.5 kB, a wave of 4,165 cycles).
  bool skipped_wave(uint64_t written_back_bytes, uint64_t warp_instructions,
                    double dram_bytes_per_cycle = 0) const;
  // Ends the current skip before block `next` (a wave boundary inside it): the waves from there
  // on run in detail.
  void cut_skip(uint64_t next);
  // Host seconds the caller spent fast-forwarding (reported in SamplingReport).
  void add_fast_forward_time(double seconds) { fast_forward_wall_s_ += seconds; }
  // The extrapolated totals of every skipped wave; call once the launch is over. Adds them to
  // `r` (cycles, warp states, memory table; per-line warp states scaled) and to `active` and
  // `resident` (SM-cycles and resident-warp-cycles, for the occupancy and IPC), and fills
  // r.sampling.
  void finish(TimingResult& r, uint64_t& active, uint64_t& resident,
              std::vector<WarpStateCycles>& by_line) const;

 private:
  struct Cost {
    uint64_t wave = 0;
    WaveCounters delta;  // cycles and counters of that wave
  };
  struct Skip {
    uint64_t waves = 0;
    size_t before = 0, after = 0;  // indices in costs_ of the detailed waves around it
    bool cut = false;              // ended by cut_skip: its last wave is where the waves changed
    bool upset = false;  // the run after it did not settle (see at_boundary): costed from before
  };
  enum class Phase { Measure, Skipping };

  SamplingOptions opt_;
  uint64_t total_blocks_, wave_blocks_, waves_;
  bool active_ = false;
  bool eligible_ = false;  // eligible()
  std::string why_full_;
  Phase phase_ = Phase::Measure;
  WaveCounters last_;          // totals at the start of the wave being simulated
  uint64_t current_wave_ = 0;  // the wave being simulated in detail
  std::vector<Cost> costs_;
  size_t window_begin_ = 0;       // first cost of the current measuring window
  double reference_ = 0;          // mean cycles of the stable window
  double reference_written_ = 0;  // its DRAM bytes written per wave
  double reference_traffic_ = 0;  // its DRAM bytes read and written per wave
  double reference_work_ = 0;     // its warp instructions per wave
  int settling_ = 0;              // settle waves still to run after the last skip
  // Whether the last `count` costs up to idx agree within `tolerance`; if so they become the
  // reference (cycles, DRAM traffic, work) the skip is held to.
  bool stable_window(size_t idx, size_t count, double tolerance);
  double spread(size_t idx, size_t count) const;  // max - min cycles of those costs
  bool stopped_ = false;       // a skip upset the run: no more skips in this launch
  uint64_t stopped_wave_ = 0;  // the check wave that said so
  std::vector<Skip> skips_;
  uint64_t skipped_blocks_ = 0;
  double fast_forward_wall_s_ = 0;
};

}  // namespace warplab::timing
