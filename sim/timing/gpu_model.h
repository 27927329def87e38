// The timing model's entry point: run one kernel launch on a simulated GPU, cycle by cycle.
//
// For the lab/CLI engineer (integration note):
//   auto cfg = timing::load_config(name_or_path);          // "h100-sxm" (default), a .toml path
//   if (!cfg) report(cfg.error());                          // file:line for bad presets
//   timing::TimingOptions opt;
//   opt.registers_per_thread = <from nvJitLink>;            // 0 = unknown (32 assumed)
//   opt.trace.enabled = !trace_path.empty();                // --trace FILE.json
//   opt.l2 = &kept_l2;   // optional: timing::L2 kept across launches (warm, as back-to-back runs)
//   auto r = timing::run_timing(program, memory, launch, *cfg, opt);
//   if (!r) -> bad launch (exit 2);  r->fault -> kernel fault, as in functional mode
//   r->stats is the same LaunchStats run_functional fills (instruction counts by class and line).
//   write_result_json(*r, *cfg, jw) is not provided here (no JSON library in sim/): emit
//   r->metrics() (name, value, unit) and the fields below into the launch's "cycles", "time_us",
//   "ipc", "occupancy", "warp_states", "memory" objects; timing::write_chrome_trace(r->trace, os)
//   writes the Perfetto file. timing::list_configs() for `warplab configs`;
//   timing::describe_config(cfg) for every field with its unit.
//   Bench line: warp_inst_per_s = r->stats.warp_instructions / wall seconds of run_timing.
//
// Threads: TimingOptions::threads > 1 ticks the SMs of each cycle on several host threads with
// the same results (parallel_loop.h says how).
// What it does: the block scheduler places blocks on SMs (occupancy.h), each SM's warp schedulers
// issue instructions that the functional executor runs (so results equal functional mode), and
// memory accesses travel through L1TEX, L2 and DRAM with their latencies and bandwidths. The
// clock jumps over cycles where nothing can happen. Hangs stop the launch with a fault naming
// where a warp is stuck: a barrier deadlock at once, a warp past its instruction limit
// (func::LaunchConfig), the cycle limit (max_cycles), or a livelock: after a long stretch with no
// store, exit or barrier release anywhere, every resident warp's state is compared at its loop
// head across one iteration, and if none changed, none ever will.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/func/executor.h"
#include "sim/timing/config.h"
#include "sim/timing/l1tex.h"
#include "sim/timing/l2.h"
#include "sim/timing/loop_profile.h"
#include "sim/timing/occupancy.h"
#include "sim/timing/sampling.h"
#include "sim/timing/trace.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

// Where a running launch is (TimingOptions::progress).
struct TimingProgress {
  uint64_t cycle = 0;  // simulated cycles so far
  uint64_t blocks_done = 0, blocks_total = 0;
  uint64_t warp_instructions = 0;  // issued so far
  double seconds = 0;              // wall time since the launch (or its stage) started
  // A sampled launch's stage that simulates no cycles: "functional pass" while the whole grid
  // runs functionally for its exact counts and stores (rate_sampler.h; cycle and
  // warp_instructions are then 0, blocks_done counts that pass's blocks). nullptr: the timing
  // loop.
  const char* phase = nullptr;
};

struct TimingOptions {
  int registers_per_thread = 0;  // from ptxas/nvJitLink; 0 = unknown, assume 32
  // Host threads that simulate the SMs (parallel_loop.h); the results are the same for any
  // number. 1: the one-thread loop. 0: one per hardware thread
  // (std::thread::hardware_concurrency). Traced and checked launches, and launches on a kept L2,
  // run on one thread.
  int threads = 1;
  // With threads > 1: every so often, time a stretch of cycles on one thread and one on all, and
  // use whichever was faster until the next trial (a busy host, or a kernel whose SMs all wait
  // for their turn, can make the threads slower). Either way the results are the same. false:
  // always use the threads (tests).
  bool adapt_threads = true;
  // With threads > 1, for a kernel whose device touches are all plain global loads and stores
  // (touch_log.h): their functional steps run without waiting for the SM's turn, logged, and a
  // cycle where two SMs met on the same bytes sends the launch to the one-thread redo. Either
  // way the results are the same. false: they wait for the turn (measurements, tests).
  bool log_touches = true;
  // Measure where the loop's host time goes (TimingResult::loop_profile, loop_profile.h): a few
  // clock reads a cycle; nothing simulated changes.
  bool profile_loop = false;
  // Set by another thread (the app's Cancel button): the launch stops at the next cycle the loop
  // visits and run_timing returns the Error "cancelled" (memory holds what ran so far).
  const std::atomic<bool>* cancel = nullptr;
  // Called on the loop's thread about every progress_seconds of wall time (unset: never).
  std::function<void(const TimingProgress&)> progress;
  double progress_seconds = 0.25;
  TraceOptions trace;
  // Hang limit: a launch still running at this cycle is stopped with a Hang fault naming where
  // a warp is stuck (0 = no limit). About 0.6 s of H100 time: generous for real kernels.
  static constexpr uint64_t kDefaultMaxCycles = 1'000'000'000;
  uint64_t max_cycles = kDefaultMaxCycles;
  uint64_t deadlock_cycles = 10'000'000;  // no instruction issued for this long = deadlock
  // nullptr: a cold L2 (nothing cached). Else an L2 built for the same config, kept by the caller
  // across launches: back-to-back launches find the data the previous ones left (what CUDA-event
  // timings after warm-up launches measure). The L1s are always cold: a launch invalidates them.
  L2* l2 = nullptr;
  // Sampled simulation (sampling.h): off by default. Traced and checked launches run in full.
  SamplingOptions sampling;
};

struct MemoryTable {
  MemoryCounters l1;  // summed over SMs (Nsight names in l1tex.h)
  uint64_t l2_read_sector_hits = 0, l2_read_sector_misses = 0, l2_write_sectors = 0;
  uint64_t l2_atomic_requests = 0;
  uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  uint64_t dram_row_hits = 0;     // DRAM accesses to an already open row (dram.h)
  uint64_t dram_activations = 0;  // rows opened (closed bank or row miss); no Nsight equivalent
  double global_ld_sectors_per_request() const;
  double global_st_sectors_per_request() const;
  double l1_hit_rate() const;  // global load sectors, in [0, 1]
  double l2_hit_rate() const;  // L2 read sectors, in [0, 1]
};

struct Metric {
  std::string name;  // Nsight Compute name where one means the same
  double value = 0;
  std::string unit;
};

// The L1 data capacity a launch has: config.l1.size_bytes, or, when l1.unified_bytes is set and
// the resident blocks need a larger shared-memory carve-out, what that carve-out leaves.
int64_t l1_bytes_for_launch(const GpuConfig& config, const Occupancy& occ);

struct TimingResult {
  std::string kernel;
  std::string config;         // preset name
  uint64_t cycles = 0;        // first dispatch to last warp done, SM cycles
  double clock_mhz = 0;       // the SM clock the launch ran at (sm_clock.h)
  double kernel_time_us = 0;  // cycles / clock_mhz
  double time_us = 0;         // kernel_time_us + launch overhead (compares to CUDA events)
  double ipc = 0;             // warp instructions per cycle per active SM
  double gpu_ipc = 0;         // warp instructions per cycle, whole GPU
  func::LaunchStats stats;    // instruction counts (by class, per line), as functional mode
  std::optional<func::LaunchFault> fault;
  std::vector<func::Hazard> hazards;  // synccheck/racecheck (LaunchConfig turns them on)
  Occupancy occupancy;                // theoretical: limits and blocks per SM
  double achieved_occupancy = 0;      // average resident warps / max warps over active SM cycles
  double waves = 0;
  int64_t l1_bytes = 0;           // the L1 data capacity this launch had (after the carve-out)
  int registers_per_thread = 0;   // the figure used
  WarpStateCycles warp_states{};  // warp-cycles per state, all warps
  std::map<int32_t, WarpStateCycles> warp_states_by_ptx_line;
  std::map<std::pair<int32_t, int32_t>, WarpStateCycles> warp_states_by_src_line;  // (file, line)
  MemoryTable memory;
  double dram_bytes_per_second = 0;  // achieved (read + written) over kernel_time_us
  double peak_dram_bytes_per_second = 0;
  Trace trace;              // empty unless TimingOptions::trace.enabled
  SamplingReport sampling;  // what sampled simulation did (requested = false: a full run)
  // How the host ran it (not part of the results): cycles whose SMs ticked on several threads,
  // and whether a fault in one made run_timing simulate the launch again on one thread.
  uint64_t parallel_cycles = 0;
  bool redone_on_one_thread = false;
  // In those cycles (parallel_loop.h): SM ticks, and those that took the turn at what the SMs
  // share; L2 load and store requests an SM's L1 held to the cycle's end (l2_queue.h) and those
  // it asked in its turn.
  uint64_t parallel_sm_ticks = 0, turn_sm_ticks = 0;
  uint64_t held_l2_reads = 0, turn_l2_reads = 0, held_l2_writes = 0, turn_l2_writes = 0;
  // SM ticks of those cycles that waited for their turn at a functional step that touches device
  // memory (TimingOptions::log_touches), in the parallel simulation (a redone launch's too).
  uint64_t touch_turns = 0;
  // Block launches whose work ran on the SM's own thread (sm_launch.cpp), in that simulation.
  uint64_t deferred_launches = 0;
  // TimingOptions::profile_loop: where the host time went (the attempt that gave the result).
  LoopProfile loop_profile;

  std::vector<Metric> metrics() const;
};

Expected<TimingResult> run_timing(const func::Program& program, func::DeviceMemory& memory,
                                  const func::LaunchConfig& launch, const GpuConfig& config,
                                  const TimingOptions& options = {});

}  // namespace warplab::timing
