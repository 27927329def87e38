// The whole-GPU loop: see gpu_model.h.
#include "sim/timing/gpu_model.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

#include "sim/func/cluster.h"
#include "sim/timing/block_scheduler.h"
#include "sim/timing/fast_forward.h"
#include "sim/timing/l2.h"
#include "sim/timing/parallel_loop.h"
#include "sim/timing/rate_sampler.h"
#include "sim/timing/sampling.h"
#include "sim/timing/schedule.h"
#include "sim/timing/sm.h"
#include "sim/timing/sm_clock.h"
#include "sim/timing/sm_subset.h"
#include "sim/timing/stats_sum.h"
#include "sim/timing/touch_log.h"

namespace warplab::timing {

double MemoryTable::global_ld_sectors_per_request() const {
  return l1.global_ld_requests ? double(l1.global_ld_sectors) / l1.global_ld_requests : 0;
}
double MemoryTable::global_st_sectors_per_request() const {
  return l1.global_st_requests ? double(l1.global_st_sectors) / l1.global_st_requests : 0;
}
double MemoryTable::l1_hit_rate() const {
  return l1.global_ld_sectors ? double(l1.global_ld_sector_hits) / l1.global_ld_sectors : 0;
}
double MemoryTable::l2_hit_rate() const {
  const uint64_t n = l2_read_sector_hits + l2_read_sector_misses;
  return n ? double(l2_read_sector_hits) / n : 0;
}

std::vector<Metric> TimingResult::metrics() const {
  std::vector<Metric> m = {
      {"gpc__cycles_elapsed.max", double(cycles), "cycle"},
      {"gpu__time_duration.sum", kernel_time_us, "us"},
      {"smsp__inst_executed.sum", double(stats.warp_instructions), "inst"},
      {"sm__inst_executed.avg.per_cycle_active", ipc, "inst/cycle"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", 100 * achieved_occupancy, "%"},
      {"sm__maximum_warps_per_active_cycle_pct", 100 * occupancy.theoretical, "%"},
      {"launch__occupancy_limit_blocks", double(occupancy.limit_blocks), "block"},
      {"launch__occupancy_limit_registers", double(occupancy.limit_registers), "block"},
      {"launch__occupancy_limit_shared_mem", double(occupancy.limit_shared), "block"},
      {"launch__occupancy_limit_warps", double(occupancy.limit_warps), "block"},
      {"launch__waves_per_multiprocessor", waves, ""},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", double(memory.l1.global_ld_requests),
       "request"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", double(memory.l1.global_ld_sectors),
       "sector"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.ratio", memory.global_ld_sectors_per_request(),
       "sector/request"},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", double(memory.l1.global_st_requests),
       "request"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", double(memory.l1.global_st_sectors),
       "sector"},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.ratio", memory.global_st_sectors_per_request(),
       "sector/request"},
      {"l1tex__t_sector_hit_rate.pct", 100 * memory.l1_hit_rate(), "%"},
      {"lts__t_sector_hit_rate.pct", 100 * memory.l2_hit_rate(), "%"},
      {"dram__bytes_read.sum", double(memory.dram_bytes_read), "byte"},
      {"dram__bytes_write.sum", double(memory.dram_bytes_written), "byte"},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
       peak_dram_bytes_per_second > 0 ? 100 * dram_bytes_per_second / peak_dram_bytes_per_second
                                      : 0,
       "%"},
      {"warplab__dram_row_hits.sum", double(memory.dram_row_hits), "access"},
      {"warplab__dram_row_activations.sum", double(memory.dram_activations), "activation"},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
       double(memory.l1.shared_ld_wavefronts), "wavefront"},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
       double(memory.l1.shared_st_wavefronts), "wavefront"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum + _op_st.sum",
       double(memory.l1.shared_bank_conflicts), "conflict"},
  };
  for (int s = 0; s < kWarpStateCount; ++s)
    m.push_back({"smsp__pcsamp_warps_issue_" + std::string(warp_state_name(WarpState(s))),
                 double(warp_states[s]), "warp-cycle"});
  return m;
}

int64_t l1_bytes_for_launch(const GpuConfig& config, const Occupancy& occ) {
  const int64_t unified = config.l1.unified_bytes;
  if (unified <= 0) return config.l1.size_bytes;
  const int64_t need = int64_t{occ.blocks_per_sm} * occ.shared_per_block;
  if (need <= unified - config.l1.size_bytes) return config.l1.size_bytes;
  // The smallest carve-out that holds them (at most core.shared_per_sm); whole L1 sets stay.
  int64_t carve = config.core.shared_per_sm;
  for (int64_t kib : {0, 8, 16, 32, 64, 100, 132, 164, 196, 228})
    if (kib * 1024 >= need && kib * 1024 <= carve) {
      carve = kib * 1024;
      break;
    }
  const int64_t set_bytes = config.l1.line_bytes * config.l1.assoc;
  return std::max(set_bytes, (unified - carve) / set_bytes * set_bytes);
}

namespace {

// Cycles with fewer SMs due than this tick on the loop's own thread (parallel_loop.h).
constexpr size_t kMinParallelSms = 8;
// TimingOptions::adapt_threads: of every kTrialEvery stretches of kTrialCycles cycles with
// enough SMs due, the first runs on one thread and the second on the pool; the faster way runs
// the rest.
// The first kTrialWarm cycles of a trial are not timed: they move the SMs' state between the
// host cores' caches (to the pool's threads or back), which the stretch it picks pays only once.
// A one-thread trial costs what the pool would do in threads-fold less time: on 16 threads a
// trial every 32 stretches took 16-23% of the loop (perf17-1, device host: matmul_tiled_512's
// one-thread cycles 943 of 4,149 ms, vec_add_2^24's 401 of 4,687). So while the pool wins by
// more than kTrialMargin, the next trial comes twice as many stretches later (up to
// kTrialEveryMax); a closer result or a loss (a busy host) brings back every kTrialEvery.
constexpr uint64_t kTrialCycles = 64, kTrialEvery = 32, kTrialEveryMax = 1024, kTrialWarm = 16;
constexpr double kTrialMargin = 2;

// The L2's gate for the length of one simulation (unset again however it ends).
struct GateScope {
  L2& l2;
  GateScope(L2& l, TurnGate* g) : l2(l) { l2.set_gate(g); }
  ~GateScope() { l2.set_gate(nullptr); }
  GateScope(const GateScope&) = delete;
  GateScope& operator=(const GateScope&) = delete;
};

// The parallel loop's log of functional device touches for one simulation (touch_log.h).
struct TouchScope {
  ParallelTicks* pool;
  std::optional<TouchLog> log;
  TouchScope(ParallelTicks* p, bool on, const func::DeviceMemory& memory, size_t sms) : pool(p) {
    if (!pool || !on) return;
    log.emplace(memory, sms);
    pool->log_touches(log->ok() ? &*log : nullptr);
  }
  ~TouchScope() {
    if (pool) pool->log_touches(nullptr);
  }
  TouchScope(const TouchScope&) = delete;
  TouchScope& operator=(const TouchScope&) = delete;
};

// A detailed stage of within-wave rate sampling (rate_sampler.h): the watch that may stop it,
// the first block it places, and whether it is the launch's start (its watch looks only when the
// wave sampler may sample the launch).
struct RateRun {
  RateWatch* watch = nullptr;
  uint64_t first_block = 0;
  bool start = true;
  uint64_t end_block = 0;  // > 0: blocks from here on are not placed (SM sampling: sm_subset.h)
};

// One simulation of the launch; `pool` null: the one-thread loop. With a pool, `redo` is set
// (and an Error returned) when a fault inside a parallel cycle makes the result differ from the
// one-thread loop's; run_timing then simulates the launch again on one thread.
Expected<TimingResult> simulate(const func::Program& program, func::DeviceMemory& memory,
                                const func::LaunchConfig& launch, const GpuConfig& config,
                                const TimingOptions& options, ParallelTicks* pool, bool& redo,
                                const RateRun& rate) {
  const auto wall_begin = std::chrono::steady_clock::now();
  const ptx::Function* kernel = program.kernel(launch.kernel);
  if (!kernel) return Error{program.module().path, 0, "unknown kernel '" + launch.kernel + "'"};
  TimingResult r;
  r.kernel = launch.kernel;
  r.config = config.name;
  // 1. Occupancy: how many blocks fit per SM.
  r.registers_per_thread = options.registers_per_thread > 0 ? options.registers_per_thread : 32;
  const uint64_t block_threads = launch.block.count();
  const uint64_t shared =
      uint64_t{program.static_shared_bytes(launch.kernel)} + launch.dynamic_shared_bytes;
  auto occ = compute_occupancy(
      config.core, static_cast<int>(std::min<uint64_t>(block_threads, 1u << 30)),
      r.registers_per_thread, static_cast<int>(std::min<uint64_t>(shared, 1u << 30)));
  if (!occ) return Error{"", 0, "launch of " + launch.kernel + ": " + occ.error().message};
  r.occupancy = *occ;
  r.waves = double(launch.grid.count()) / (double(occ->blocks_per_sm) * config.core.sm_count);
  // The L1 this launch has: what the shared-memory carve-out leaves of the unified array.
  GpuConfig launch_config = config;
  launch_config.l1.size_bytes = l1_bytes_for_launch(config, *occ);
  // The SM clock it runs at (lower while the tensor cores run mma.sync: sm_clock.h).
  launch_config.core.clock_mhz = launch_clock_mhz(config.core, program.module(), *kernel);
  r.clock_mhz = launch_config.core.clock_mhz;
  r.l1_bytes = launch_config.l1.size_bytes;
  // 2. The machine: L2 + DRAM, SMs, block scheduler, per-line state table.
  int32_t max_line = 0;
  for (const auto& f : program.module().functions)
    for (const auto& i : f.instructions) max_line = std::max(max_line, i.ptx_line);
  std::vector<WarpStateCycles> by_line(max_line + 1, WarpStateCycles{});
  std::optional<L2> own_l2;
  if (!options.l2) own_l2.emplace(config);
  L2& l2 = options.l2 ? *options.l2 : *own_l2;
  if (options.l2) l2.begin_launch();
  l2.dram().track_deliveries(options.trace.enabled);
  if (options.trace.enabled) {
    r.trace.options = options.trace;
    r.trace.kernel = launch.kernel;
    r.trace.clock_mhz = r.clock_mhz;
    r.trace.dram_peak_bytes_per_second = config.peak_dram_bytes_per_second();
    r.trace.sm_count = static_cast<int32_t>(config.core.sm_count);
    r.trace.sub_partitions = static_cast<int32_t>(config.core.sub_partitions);
    r.trace.warp_scheduler = config.core.warp_scheduler;
  }
  // With the pool, one context per SM (parallel_loop.h: any thread may tick an SM): each keeps
  // its SM's counts, summed at the end.
  const int contexts = pool ? static_cast<int>(config.core.sm_count) : 1;
  std::deque<func::LaunchStats> more_stats(contexts - 1);
  std::deque<std::vector<WarpStateCycles>> more_lines;
  std::deque<LaunchContext> ctxs;
  ctxs.push_back(LaunchContext{launch_config,
                               program,
                               memory,
                               launch,
                               r.occupancy,
                               r.stats,
                               l2,
                               options.trace.enabled ? &r.trace : nullptr,
                               by_line,
                               0,
                               {},
                               0,
                               {},
                               {},
                               pool});
  LaunchContext& ctx = ctxs.front();
  for (const ptx::Function& f : program.module().functions) {
    auto& u = ctx.compiler_marks.emplace_back(f.instructions.size(), 0);
    const std::vector<uint8_t> serial = serial_copy_stores(f, launch_config.compiler);
    for (size_t i = 0; i < f.instructions.size(); ++i)
      u[i] = (unrolls(f, static_cast<int32_t>(i)) ? kUnrolledBranch : 0) |
             (serial[i] ? kSerialCopyStore : 0);
    ctx.vector_bytes.push_back(shared_vector_bytes(f));
  }
  for (int t = 1; t < contexts; ++t) {
    auto& lines = more_lines.emplace_back(by_line.size(), WarpStateCycles{});
    ctxs.push_back(LaunchContext{launch_config,
                                 program,
                                 memory,
                                 launch,
                                 r.occupancy,
                                 more_stats[t - 1],
                                 l2,
                                 nullptr,
                                 lines,
                                 0,
                                 {},
                                 0,
                                 ctx.compiler_marks,
                                 ctx.vector_bytes,
                                 pool});
  }
  GateScope gate(l2, pool);
  TouchScope touches(pool, options.log_touches && touches_loggable(*kernel), memory,
                     config.core.sm_count);
  std::vector<Sm> sms;
  sms.reserve(config.core.sm_count);
  for (int i = 0; i < config.core.sm_count; ++i) sms.emplace_back(i, ctxs[pool ? i : 0]);
  // The loop reads each SM's glance (parallel_loop.h), refreshed after its ticks and dispatches.
  std::vector<SmGlance> glances(sms.size());
  for (size_t i = 0; i < sms.size(); ++i) glances[i].look(sms[i]);
  // The livelock watch's count of changes (3e). With the pool, the glances' copies, read with
  // the rest of them (every change comes from an SM's launch or tick, each followed by a look):
  // not a cache line of each SM's context that another thread has just written.
  auto changes = [&] {
    uint64_t c = 0;
    if (pool) {
      uint32_t sum = 0;  // modulo 2^32, as the glances keep them
      for (const SmGlance& g : glances) sum += g.changes;
      c = sum;
    } else {
      c = ctx.changes;
    }
    return c;
  };
  std::vector<uint32_t> due;
  due.reserve(sms.size());
  uint64_t eligible = 0;               // cycles with enough SMs due for the pool
  uint64_t stretch = 0;                // adapt_threads: stretches since the last trials began
  uint64_t trial_every = kTrialEvery;  // ... and how many stretches apart they are now
  double trial_ns[2] = {0, 0};         // adapt_threads: [one thread, pool] time in trials
  uint64_t trial_sms[2] = {0, 0};      // ... and the SM ticks they made
  bool use_pool = true;
  // Sampled simulation (sampling.h): at each wave boundary the sampler may fast-forward waves,
  // whose blocks then run here in the functional executor.
  const bool checked = options.trace.enabled || launch.synccheck || launch.racecheck;
  const func::Dim3 cluster = func::effective_cluster(launch, *kernel);
  const uint64_t blocks_per_wave = uint64_t(r.occupancy.blocks_per_sm) * sms.size();
  WaveSampler sampler(options.sampling, launch.grid.count(), blocks_per_wave,
                      checked               ? "a traced or checked launch"
                      : cluster.count() > 1 ? "a launch with clusters"
                                            : "");
  func::LaunchStats skipped_stats;
  std::optional<func::LaunchFault> skipped_fault;
  RateWatch* watch = rate.watch && (!rate.start || sampler.eligible()) ? rate.watch : nullptr;
  // Progress (TimingOptions::progress) and Cancel.
  uint64_t visits = 0;
  double next_report = options.progress_seconds;
  auto report = [&](uint64_t cycle, double seconds) {
    TimingProgress p;
    p.cycle = cycle;
    p.blocks_total = rate.end_block > 0 ? rate.end_block : launch.grid.count();  // (SM sampling)
    p.seconds = seconds;
    for (const Sm& sm : sms) {
      p.blocks_done += sm.blocks_completed();
      p.warp_instructions += sm.instructions();
    }
    p.blocks_done += sampler.skipped_blocks();
    options.progress(p);
  };
  BlockScheduler blocks(launch.grid, config.core.block_dispatch_interval, cluster,
                        static_cast<uint32_t>(block_threads), config.cluster, sms.size());
  // With the pool, an SM's launches run on its own thread (sm_launch.cpp); the cycles that run
  // here run them before the ticks.
  const bool defer_launches = pool && !sampler.active() && Sm::may_defer_launches(*kernel);
  blocks.defer_launches(!defer_launches                                 ? Sm::Defer::None
                        : Sm::may_defer_creates(program, launch.kernel) ? Sm::Defer::All
                                                                        : Sm::Defer::Kept);
  if (rate.end_block > 0)  // SM sampling: the grid's first blocks alone
    blocks.set_skip_hook([end = rate.end_block, total = launch.grid.count()](
                             uint64_t next, uint64_t) { return next >= end ? total : next; });
  if (rate.first_block > 0)  // a rate stage of the launch's last wave: its blocks alone
    blocks.set_skip_hook(
        [first = rate.first_block](uint64_t next, uint64_t) { return std::max(next, first); });
  auto work_so_far = [&] {  // the launch's functional count so far
    uint64_t work = r.stats.warp_instructions;
    for (const func::LaunchStats& s : more_stats) work += s.warp_instructions;
    return work;
  };
  auto lines_so_far = [&] {  // the launch's warp instructions so far per PTX line (the mix)
    int32_t last = 0;
    for (const ptx::Function& f : program.module().functions)
      for (const ptx::Instruction& i : f.instructions) last = std::max(last, i.ptx_line);
    std::vector<uint64_t> lines(size_t(last) + 1, 0);
    auto add = [&](const func::LaunchStats& s) {
      for (const auto& [line, c] : s.by_ptx_line)
        if (line >= 0 && line <= last) lines[size_t(line)] += c.warp_instructions;
    };
    add(r.stats);
    for (const func::LaunchStats& s : more_stats) add(s);
    return lines;
  };
  if (sampler.active())
    blocks.set_skip_hook([&](uint64_t next, uint64_t at) {
      if (skipped_fault || !sampler.is_boundary(next)) return next;
      for (Sm& sm : sms) sm.fill_held();  // the snapshot reads the SMs' state
      const uint64_t to = sampler.at_boundary(next, snapshot(sms, l2, at, work_so_far()));
      if (to == next) return next;
      // The skipped blocks run functionally, a wave at a time, and leave their lines in the L2
      // (fast_forward.h); a wave whose write-backs or work are not the stable waves' ends the
      // skip.
      const uint64_t wave = std::max<uint64_t>(blocks_per_wave, 1);
      for (uint64_t b = next; b < to;) {
        const uint64_t e = std::min(b + wave, to);
        const auto t0 = std::chrono::steady_clock::now();
        auto f = fast_forward(program, memory, launch, b, e, l2,
                              static_cast<uint32_t>(config.l1.line_bytes),
                              static_cast<uint32_t>(config.l1.sector_bytes));
        sampler.add_fast_forward_time(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (f) add_stats(skipped_stats, f->stats);
        if (!f || f->fault) {
          skipped_fault = f ? *f->fault : func::LaunchFault{};
          if (!f) skipped_fault->message = f.error().to_string();
          return launch.grid.count();  // nothing more to place: the launch stops
        }
        b = e;
        // Cancel between skipped waves (a long skip is many waves of functional work): the skip
        // ends here and the loop's own check stops the launch within a few cycles.
        if (b < to && options.cancel && options.cancel->load(std::memory_order_relaxed)) {
          sampler.cut_skip(b);
          return b;
        }
        if (b < to && !sampler.skipped_wave(
                          f->evicted_dirty_sectors * static_cast<uint64_t>(config.l1.sector_bytes),
                          f->stats.warp_instructions, config.peak_dram_bytes_per_cycle())) {
          sampler.cut_skip(b);
          return b;
        }
      }
      return to;
    });
  // Counter samples (trace): interval chosen so a run gives about 2000 samples.
  uint64_t interval = options.trace.counter_interval;
  CounterSample last{};
  uint64_t next_sample = 0;
  auto sample = [&](uint64_t cycle) {
    CounterSample c{cycle, 0, 0, 0, 0};
    for (const auto& sm : sms) {
      c.l1_sectors += sm.l1tex().counters().global_ld_sectors +
                      sm.l1tex().counters().global_st_sectors + sm.l1tex().counters().local_sectors;
      c.warps_issued += sm.instructions();
    }
    c.l2_sectors = l2.counters().read_sector_hits + l2.counters().read_sector_misses +
                   l2.counters().write_sectors;
    c.dram_bytes = l2.dram().bytes_delivered(cycle);  // moved on the buses, not booked
    CounterSample d{cycle, c.l1_sectors - last.l1_sectors, c.l2_sectors - last.l2_sectors,
                    c.dram_bytes - last.dram_bytes, c.warps_issued - last.warps_issued};
    last = c;
    r.trace.counters.push_back(d);
  };
  // 3. The clock: run every SM that has something to do this cycle, then jump to the next cycle
  //    where anything can happen.
  uint64_t now = 0, last_progress = 0, issued_before = 0;
  // TimingOptions::profile_loop (loop_profile.h): the host clock at the section's start.
  LoopProfile& prof = r.loop_profile;
  const bool profiling = options.profile_loop;
  LoopClock laps(profiling);
  struct ProfileScope {  // the pool measures into r only while this simulation runs
    ParallelTicks* pool;
    ~ProfileScope() {
      if (pool) pool->profile(nullptr);
    }
  } profile_scope{profiling ? pool : nullptr};
  if (profile_scope.pool) pool->profile(&prof);
  // Livelock watch (3e): armed after kWatchAfter warp instructions without a change event.
  constexpr uint64_t kWatchAfter = 1 << 20, kWatchCheckEvery = 1 << 14;
  uint64_t seen_changes = ~0ull, quiet_since = 0, watch_checked = 0;
  bool watching = false;
  bool room = true;  // whether an SM has room for a block (3c; at the start, ask them)
  for (;;) {
    // Cancel (another thread sets the flag) and progress, checked every few visited cycles.
    if ((++visits & 7) == 0) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed))
        return Error{"", 0, "cancelled"};
      if (options.progress) {
        const double t =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_begin).count();
        if (t >= next_report) {
          next_report = t + options.progress_seconds;
          report(now, t);
        }
      }
    }
    // Within-wave rate sampling (rate_sampler.h): a look every window; steady: stop here.
    if (watch && watch->armed() && now >= watch->next_look()) {
      std::vector<uint64_t> issued(sms.size());
      std::vector<int> resident(sms.size());
      RateWatch::WarpProgress progress(sms.size());
      uint64_t finished = 0;
      for (size_t i = 0; i < sms.size(); ++i) {
        sms[i].fill_held();
        issued[i] = sms[i].instructions();
        resident[i] = sms[i].resident_blocks();
        finished += sms[i].blocks_completed();
        sms[i].warp_progress(progress[i]);
      }
      const uint64_t wave = std::min(launch.grid.count() - rate.first_block, blocks_per_wave);
      const bool placed = blocks.dispatched() >= rate.first_block + wave;
      const std::vector<uint64_t> lines = lines_so_far();
      if (watch->look(snapshot(sms, l2, now, work_so_far()), issued, resident, placed, finished > 0,
                      &lines, &progress))
        break;
    }
    // 3a. Dispatch blocks that are due (only an SM with room can take one).
    //     (Not while no SM has room, as 3c found at the end of the last cycle: the dispatch would
    //     read every SM's occupancy to find none, cache lines the pool's threads write.)
    laps.start();
    const uint64_t dispatched = blocks.dispatched();
    Status dispatch_status = Ok{};
    if (room) {
      dispatch_status = blocks.dispatch(now, sms, glances);
      for (size_t i : blocks.placed()) glances[i].look(sms[i]);  // (the SMs it changed)
    }
    if (profiling) prof.dispatches += blocks.dispatched() - dispatched;
    laps.lap(prof.dispatch_ns);
    if (!dispatch_status) return dispatch_status.error();
    if (skipped_fault) {
      r.fault = skipped_fault;
      break;
    }
    // 3b. SMs in reverse order (no SM sees another's result of this cycle; they only share L2).
    //     With a pool, the due SMs tick on several threads in this same order of turns at what
    //     they share (parallel_loop.h); a cycle with few of them, or after a dispatch fault,
    //     runs here.
    bool faulted = false, ticked = false;
    int trial = -1;      // adapt_threads: 0 = a one-thread trial cycle, 1 = a pool trial cycle
    bool timed = false;  // ... past the trial's first kTrialWarm cycles
    std::chrono::steady_clock::time_point trial_begin;
    if (pool) {
      due.clear();
      bool pending_fault = false;
      for (size_t i = sms.size(); i-- > 0;) {
        pending_fault = pending_fault || glances[i].fault;
        if (glances[i].due(now)) due.push_back(static_cast<uint32_t>(i));
      }
      laps.lap(prof.due_ns);
      if (!pending_fault && due.size() >= kMinParallelSms) {
        const bool warm = eligible % kTrialCycles >= kTrialWarm;
        const uint64_t phase = stretch;
        if (++eligible % kTrialCycles == 0 && ++stretch == trial_every) stretch = 0;
        if (options.adapt_threads && phase < 2) {
          trial = static_cast<int>(phase);
          timed = warm;
          trial_begin = std::chrono::steady_clock::now();
        }
        if (!options.adapt_threads || (trial >= 0 ? trial == 1 : use_pool)) {
          if (!pool->tick(sms, due, now, glances)) {
            redo = true;
            return Error{"", 0, "internal: a fault in a parallel cycle"};
          }
          ticked = true;
          ++r.parallel_cycles;
          laps.lap(prof.pool_ns);
          prof.pool_cycles += profiling;
        }
      }
    }
    const bool alone = !ticked;
    if (alone && defer_launches && blocks.dispatched() != dispatched)
      for (Sm& sm : sms)
        if (sm.launches_pending())
          if (auto st = sm.run_launches(); !st) return st.error();
    // (`ahead`: the next SM in the order that its glance says is due, whose first lines start
    // loading while this one ticks: Sm::prefetch_tick, a hint; the check below decides.)
    ptrdiff_t ahead = static_cast<ptrdiff_t>(sms.size()) - 1;
    for (auto it = sms.rbegin(); !ticked && it != sms.rend(); ++it) {
      Sm& sm = *it;
      if (sm.busy() && sm.next_wake() <= now) {
        for (ahead = std::min(ahead, static_cast<ptrdiff_t>(sm.id()) - 1); ahead >= 0; --ahead)
          if (glances[ahead].due(now)) {
            sms[ahead].prefetch_tick();
            --ahead;
            break;
          }
        sm.fill_held();  // the answers a parallel cycle's flush left it (sm_held.cpp)
        const bool ok = sm.tick(now);
        glances[sm.id()].look(sm);
        if (!ok) {
          faulted = true;
          r.fault = sm.fault();
          break;
        }
      }
      if (sm.fault()) {
        faulted = true;
        r.fault = sm.fault();
        break;
      }
    }
    if (faulted) break;
    if (alone) {
      laps.lap(prof.one_ns);
      prof.one_cycles += profiling;
    }
    if (trial >= 0) {
      if (timed) {
        trial_ns[trial] +=
            std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - trial_begin)
                .count();
        trial_sms[trial] += due.size();
      }
      if (trial == 1 && eligible % kTrialCycles == 0) {  // both trials done: pick the faster
        use_pool = trial_ns[1] * double(trial_sms[0]) < trial_ns[0] * double(trial_sms[1]);
        const bool wide =
            trial_ns[1] * kTrialMargin * double(trial_sms[0]) < trial_ns[0] * double(trial_sms[1]);
        trial_every = wide ? std::min(trial_every * 2, kTrialEveryMax) : kTrialEvery;
        trial_ns[0] = trial_ns[1] = 0;
        trial_sms[0] = trial_sms[1] = 0;
      }
    }
    // 3c. Done? Otherwise find the next interesting cycle.
    bool any_busy = false;
    uint64_t next = kNever;
    room = false;
    for (const SmGlance& g : glances) {
      if (g.busy) {
        any_busy = true;
        next = std::min(next, g.wake);
      }
      room = room || g.room;
    }
    if (!any_busy && blocks.done()) break;
    if (!blocks.done() && room) next = std::min(next, std::max(blocks.next_due(), now + 1));
    // 3d. Deadlock and limits: no warp issued for too long, or nothing left that could wake.
    uint64_t issued = 0;
    for (const SmGlance& g : glances) issued += g.instructions;
    if (issued != issued_before) {
      issued_before = issued;
      last_progress = now;
    }
    // 3e. Livelock: when no thread has stored, exited or passed a barrier for a while, watch
    //     every resident warp at its loop head; if each comes back in the state it left (memory
    //     unchanged meanwhile), nothing can ever change again: stop now, not at the limits.
    bool livelock = false;
    if (const uint64_t c = changes(); c != seen_changes) {
      seen_changes = c;
      quiet_since = issued;
      if (watching) {
        for (Sm& sm : sms) sm.watch_loops(false);
        watching = false;
      }
    } else if (!watching && issued - quiet_since > kWatchAfter) {
      for (Sm& sm : sms) sm.watch_loops(true);
      watching = true;
      watch_checked = issued;
    } else if (watching && issued - watch_checked > kWatchCheckEvery) {
      watch_checked = issued;
      bool all = true, any = false;
      for (const Sm& sm : sms)
        if (sm.busy()) {
          any = true;
          if (!sm.looping()) {
            all = false;
            break;
          }
        }
      livelock = any && all;
    }
    const bool stuck = next == kNever || now - last_progress > options.deadlock_cycles;
    const bool over = options.max_cycles && now >= options.max_cycles;
    if (livelock) {
      for (Sm& sm : sms)
        if (sm.busy() &&
            sm.stop("repeats the same state in its loop while no thread writes memory (at cycle " +
                    std::to_string(now) + "): it can never leave it")) {
          r.fault = sm.fault();
          break;
        }
      if (r.fault) break;
    }
    if (stuck || over) {
      // Name where it is stuck: the first resident block's deadlock, or its busiest warp's loop.
      const std::string what =
          over ? "was still running at cycle " + std::to_string(now) +
                     ", the limit (--max-cycles, or max_cycles in the experiment)"
               : "issued nothing for " + std::to_string(now - last_progress) +
                     " cycles (at cycle " + std::to_string(now) + ")";
      for (Sm& sm : sms)
        if (sm.busy() && sm.stop(what)) {
          r.fault = sm.fault();
          break;
        }
      if (!r.fault) {
        func::LaunchFault f;
        f.kind = over ? func::LaunchFault::Kind::Hang : func::LaunchFault::Kind::Deadlock;
        f.kernel = launch.kernel;
        f.message = "timing: the launch " + what;
        r.fault = f;
      }
      break;
    }
    laps.lap(prof.after_ns);
    uint64_t target = std::max(next, now + 1);
    if (options.max_cycles && now < options.max_cycles)
      target = std::min(target, options.max_cycles);
    if (options.trace.enabled) {
      if (interval == 0) interval = 256;  // refined below once the run length is known
      while (next_sample + interval <= target) {
        next_sample += interval;
        sample(next_sample);
      }
    }
    now = target;
  }
  // 4. Results.
  for (Sm& sm : sms) sm.fill_held();
  if (watch && (watch->steady() || !rate.start)) watch->end(snapshot(sms, l2, now, work_so_far()));
  if (profiling) prof.loop_ns = laps.total_ns();
  for (Sm& sm : sms) sm.collect_hazards();
  r.hazards = std::move(ctx.hazards);
  for (size_t t = 1; t < ctxs.size(); ++t)
    func::merge_hazards(r.hazards, std::move(ctxs[t].hazards));
  for (const func::LaunchStats& s : more_stats) add_stats(r.stats, s);
  for (const auto& lines : more_lines)
    for (size_t line = 0; line < lines.size(); ++line)
      for (int st = 0; st < kWarpStateCount; ++st) by_line[line][st] += lines[line][st];
  r.cycles = now;
  for (auto& sm : sms) sm.flush(now);
  if (options.trace.enabled) sample(now);
  uint64_t active = 0, resident = 0;
  for (const auto& sm : sms) {
    for (int s = 0; s < kWarpStateCount; ++s) r.warp_states[s] += sm.state_cycles()[s];
    r.memory.l1.add(sm.l1tex().counters());
    const L2QueueCounts& q = sm.l1tex().queue_counts();
    r.held_l2_reads += q.held_reads, r.turn_l2_reads += q.turn_reads;
    r.held_l2_writes += q.held_writes, r.turn_l2_writes += q.turn_writes;
    active += sm.active_cycles();
    resident += sm.resident_warp_cycles();
    r.deferred_launches += sm.launches_deferred();
  }
  r.memory.l2_read_sector_hits = l2.counters().read_sector_hits;
  r.memory.l2_read_sector_misses = l2.counters().read_sector_misses;
  r.memory.l2_write_sectors = l2.counters().write_sectors;
  r.memory.l2_atomic_requests = l2.counters().atomic_requests;
  r.memory.dram_bytes_read = l2.dram().bytes_read();
  r.memory.dram_bytes_written = l2.dram().bytes_written();
  r.memory.dram_row_hits = l2.dram().counters().row_hits;
  r.memory.dram_activations = l2.dram().counters().activations();
  sampler.finish(r, active, resident, by_line);  // the skipped waves, when sampled
  if (r.stats.blocks == 0)  // the count below (blocks dispatched) holds the skipped ones
    skipped_stats.blocks = skipped_stats.warps = skipped_stats.threads = 0;
  add_stats(r.stats, skipped_stats);
  r.achieved_occupancy = active ? double(resident) / active / config.core.max_warps_per_sm : 0;
  r.kernel_time_us = double(r.cycles) / r.clock_mhz;
  r.time_us = r.kernel_time_us + config.core.launch_overhead_us;
  const uint64_t instructions = issued_before + skipped_stats.warp_instructions;
  r.gpu_ipc = r.cycles ? double(instructions) / r.cycles : 0;
  r.ipc = active ? double(instructions) / (double(active)) : 0;
  r.peak_dram_bytes_per_second = config.peak_dram_bytes_per_second();
  r.dram_bytes_per_second = r.kernel_time_us > 0
                                ? double(r.memory.dram_bytes_read + r.memory.dram_bytes_written) /
                                      (r.kernel_time_us * 1e-6)
                                : 0;
  for (size_t line = 0; line < by_line.size(); ++line) {
    const auto& c = by_line[line];
    bool any = false;
    for (auto v : c) any = any || v;
    if (any) r.warp_states_by_ptx_line[static_cast<int32_t>(line)] = c;
  }
  for (const auto& f : program.module().functions)
    for (const auto& i : f.instructions) {
      auto it = r.warp_states_by_ptx_line.find(i.ptx_line);
      if (it == r.warp_states_by_ptx_line.end() || i.user_loc.line <= 0) continue;
      auto& dst = r.warp_states_by_src_line[{i.user_loc.file, i.user_loc.line}];
      for (int s = 0; s < kWarpStateCount; ++s) dst[s] += it->second[s];
    }
  if (r.stats.blocks == 0) {
    r.stats.blocks = blocks.dispatched();
    r.stats.warps = blocks.dispatched() * r.occupancy.warps_per_block;
    r.stats.threads = blocks.dispatched() * block_threads;
  }
  if (options.progress) {
    report(now,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_begin).count());
  }
  return r;
}

}  // namespace

namespace {

// run_timing's detailed simulation of a launch (or of one rate stage): on `threads` host threads
// when it may, else on one.
Expected<TimingResult> simulate_on(const func::Program& program, func::DeviceMemory& memory,
                                   const func::LaunchConfig& launch, const GpuConfig& config,
                                   const TimingOptions& options, int threads, const RateRun& rate) {
  bool redo = false;
  // One thread: the traced and checked launches (their records are kept in the order of the
  // one-thread loop), a kept L2 (it could not be put back after a redo), or asked for.
  // Clusters of more than one block also run on one thread: their blocks on different SMs
  // share shared memory and a barrier (sim/func/cluster.h).
  const ptx::Function* kernel = program.kernel(launch.kernel);
  const bool clusters = kernel && func::effective_cluster(launch, *kernel).count() > 1;
  if (threads <= 1 || options.trace.enabled || options.l2 || launch.synccheck || launch.racecheck ||
      clusters)
    return simulate(program, memory, launch, config, options, nullptr, redo, rate);
  // The starting memory, to simulate again on one thread after a fault in a parallel cycle.
  func::DeviceMemory before = memory;
  uint64_t touch_turns = 0;
  {
    ParallelTicks pool(threads);
    auto r = simulate(program, memory, launch, config, options, &pool, redo, rate);
    if (r) r->parallel_sm_ticks = pool.sm_ticks(), r->turn_sm_ticks = pool.turn_ticks();
    touch_turns = pool.touch_turns();
    if (!redo) {
      if (r) r->touch_turns = touch_turns;
      return r;
    }
  }
  memory = std::move(before);
  if (rate.watch) *rate.watch = RateWatch(options.sampling);  // looks again from the start
  auto r = simulate(program, memory, launch, config, options, nullptr, redo, rate);
  if (r) {
    r->redone_on_one_thread = true;
    r->touch_turns = touch_turns;
  }
  return r;
}

}  // namespace

Expected<TimingResult> run_timing(const func::Program& program, func::DeviceMemory& memory,
                                  const func::LaunchConfig& launch, const GpuConfig& config,
                                  const TimingOptions& options) {
  if (auto st = validate_config(config); !st) return st.error();
  int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = static_cast<int>(std::min<int64_t>(std::max(threads, 1), config.core.sm_count));
  // Within-wave rate sampling (rate_sampler.h) may apply: stage A is the launch's simulation,
  // with a watch that stops it once its first wave's rate is steady.
  const SamplingOptions& so = options.sampling;
  if (!so.enabled || !so.within_wave || options.l2 || options.trace.enabled)
    return simulate_on(program, memory, launch, config, options, threads, RateRun{});
  const auto wall_begin = std::chrono::steady_clock::now();
  const func::DeviceMemory start = memory;  // as the launch found it
  RateWatch watch_a(so);
  auto a = simulate_on(program, memory, launch, config, options, threads, RateRun{&watch_a, 0});
  if (!a || !watch_a.steady()) return a;  // the watch gave up: the run went on (wave sampling)
  // The exact work and stores: the whole launch, functionally, on the starting memory.
  const auto t0 = std::chrono::steady_clock::now();
  memory = start;
  BlockRunWatch run_watch;  // Cancel and progress while it runs (a long grid: tens of seconds)
  run_watch.cancel = options.cancel;
  if (options.progress) {
    run_watch.progress_seconds = options.progress_seconds;
    run_watch.progress = [&](uint64_t done, uint64_t blocks, double seconds) {
      TimingProgress p;
      p.blocks_done = done;
      p.blocks_total = blocks;
      p.seconds = seconds;
      p.phase = "functional pass";
      options.progress(p);
    };
  }
  auto f = run_blocks(program, memory, launch, threads, &start, &run_watch);
  if (!f) return f.error();
  const double ff = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t total = launch.grid.count();
  const uint64_t wave = std::max<uint64_t>(a->sampling.wave_blocks, 1);
  const uint64_t last = (total - 1) / wave * wave;
  const uint64_t waves = (total + wave - 1) / wave;
  const ptx::Function* kernel = program.kernel(launch.kernel);
  const bool exact = kernel && block_work_exact(*kernel);
  // SM sampling (sm_subset.h): a grid of many waves (as many as the wave sampler needs) whose
  // blocks' work is each block's own runs every wave in detail on a subset of the SMs, where the
  // first wave's steady windows loaded the L2 lightly.
  const std::vector<double> rates_a = watch_a.rates();
  const double l2_load =
      (rates_a[l2_counter()] + rates_a[l2_counter() + 1] + rates_a[l2_counter() + 2]) /
      (double(config.l2.slices) * config.l2.sectors_per_cycle_per_slice);
  if (waves >= WaveSampler::waves_needed(so) && exact && !f->fault && so.subset_sms > 0 &&
      so.subset_sms < config.core.sm_count && f->block_work.size() == total &&
      l2_load <= so.subset_l2_load) {
    const int sms = so.subset_sms;
    const uint64_t n = subset_blocks(total, sms, config.core.sm_count);
    TimingOptions os = options;
    os.sampling.enabled = false;
    func::DeviceMemory scratch = start;
    auto s = simulate_on(program, scratch, launch, subset_config(config, sms), os,
                         std::min(threads, sms), RateRun{nullptr, 0, true, n});
    if (!s) return s.error();
    uint64_t work = 0;
    for (uint64_t b = 0; b < n; ++b) work += f->block_work[b];
    TimingResult r = std::move(*s);
    if (r.fault) {  // the subset's blocks faulted in detail: report it, with the exact counts
      r.stats = f->stats;
      return r;
    }
    r.waves = a->waves;
    scale_subset(r, double(f->stats.warp_instructions) / double(std::max<uint64_t>(work, 1)), sms,
                 n, f->stats, config);
    r.sampling.wave_blocks = wave;
    r.sampling.waves = waves;
    r.sampling.fast_forward_wall_s = ff;
    return r;
  }
  // Where the extrapolation would not hold, the launch is simulated again as without within-wave
  // rates, from the memory it found, and the result says why (SamplingReport::rate_refused).
  auto refuse = [&](const std::string& why) -> Expected<TimingResult> {
    memory = start;
    TimingOptions of = options;
    of.sampling.within_wave = false;
    auto full = simulate_on(program, memory, launch, config, of, threads, RateRun{});
    if (full) full->sampling.rate_refused = why;
    return full;
  };
  char why[320];
  // 1. The functional run in grid order faulted: a fault of the kernel, which the run in detail
  //    finds and reports as such, or a block that waits for a later block (a flag, a spin lock),
  //    which in grid order never comes; either way no time can be extrapolated.
  if (f->fault) {
    const std::string& m = f->fault->message;
    return refuse("the launch run functionally in grid order faulted (" +
                  m.substr(0, m.find('\n')) + "): no work to extrapolate");
  }
  // 2. The steady windows must have run the launch's mix of instructions (rate_sampler.h): blocks
  //    of several phases (a fast loop over L2-resident data, then a slow one over DRAM) reach a
  //    steady rate in their first phase, which is not the launch's rate.
  const double mix = mix_distance(watch_a.steady_lines(), f->stats.by_ptx_line);
  if (mix > so.rate_mix_tolerance) {
    std::snprintf(why, sizeof why,
                  "the first wave's steady windows (to cycle %llu) ran another instruction mix "
                  "than the launch (distance %.1f%% > %.1f%%: blocks of several phases)",
                  static_cast<unsigned long long>(watch_a.at_end().cycle), 100 * mix,
                  100 * so.rate_mix_tolerance);
    return refuse(why);
  }
  // 3. A grid of fewer waves than the wave sampler needs is timed by its drains (one wave: the
  //    whole answer), which take each SM's blocks' work from the functional run: where that
  //    work is not each block's own (block_work_exact), the blocks must be alike.
  if (waves < WaveSampler::waves_needed(so) && !exact && !f->block_work.empty()) {
    const auto [lo, hi] = std::minmax_element(f->block_work.begin(), f->block_work.end());
    const double mean = double(f->stats.warp_instructions) / double(f->block_work.size());
    if (mean <= 0 || double(*hi - *lo) > so.rate_tolerance * mean) {
      std::snprintf(why, sizeof why,
                    "%llu wave%s of blocks whose functional work differs (%llu to %llu warp "
                    "instructions) in a kernel whose blocks may share work (atomics, flags): "
                    "their drain cannot be timed from it",
                    static_cast<unsigned long long>(waves), waves == 1 ? "" : "s",
                    static_cast<unsigned long long>(*lo), static_cast<unsigned long long>(*hi));
      return refuse(why);
    }
  }
  // 4. In a grid of fewer waves than the wave sampler needs, the warps of one block must have
  //    issued alike in the windows: where they did not (warps without barriers that a scheduler
  //    favouring older warps runs at unlike speeds: g.gemv_thread's row walks, spread 144%;
  //    lesson 12's matmul 8-10%, lesson 17's SIMT matmul 3%), the wave ends as the favour moves
  //    from warp to warp, which the drain does not model (16.7% fast on g.gemv_thread).
  if (waves < WaveSampler::waves_needed(so) && watch_a.warp_spread() > so.rate_warp_spread) {
    std::snprintf(why, sizeof why,
                  "the warps of a block issued at unlike rates in the steady windows (spread "
                  "%.0f%% > %.0f%%): the end of the wave depends on the scheduler's favour, which "
                  "the drain does not model",
                  100 * watch_a.warp_spread(), 100 * so.rate_warp_spread);
    return refuse(why);
  }
  // 5. And there the steady windows must leave most of the work to extrapolate: when they come
  //    late (the rate settled late), what is left is mostly the wave's end, which the drain does
  //    not time (t.ldmatrix.x2: 98.7% of the work in detail, 2.6% fast; x1: 84%, 3.5% fast).
  const double detailed_share = double(watch_a.at_end().values[work_counter()]) /
                                double(std::max<uint64_t>(f->stats.warp_instructions, 1));
  if (waves < WaveSampler::waves_needed(so) && detailed_share > so.rate_max_detailed) {
    std::snprintf(why, sizeof why,
                  "the rate was steady only after %.0f%% of the work (> %.0f%%): what is left is "
                  "mostly the end of the wave, which the drain does not time",
                  100 * detailed_share, 100 * so.rate_max_detailed);
    return refuse(why);
  }
  TimingResult r = std::move(*a);
  if (waves <= 1) {  // one wave: stage A is the whole grid; its drain ends it
    combine_rate_stages(r, RateStage{&r, &watch_a, 0, total}, RateStage{&r, &watch_a, 0, total},
                        f->block_work, exact, f->stats, config.core.max_warps_per_sm, program,
                        config.peak_dram_bytes_per_second(), config.core.launch_overhead_us);
  } else {
    // Stage B: the last wave's blocks alone, from an idle GPU, on a copy of the starting memory.
    TimingOptions ob = options;
    ob.sampling.enabled = false;
    func::DeviceMemory scratch = start;
    RateWatch watch_b(so);
    auto b =
        simulate_on(program, scratch, launch, config, ob, threads, RateRun{&watch_b, last, false});
    if (!b) return b.error();
    if (b->fault) {  // no time to extrapolate: the last wave faulted
      r.fault = b->fault;
      r.stats = f->stats;
      return r;
    }
    combine_rate_stages(r, RateStage{&r, &watch_a, 0, total},
                        RateStage{&*b, &watch_b, last, total - last}, f->block_work, exact,
                        f->stats, config.core.max_warps_per_sm, program,
                        config.peak_dram_bytes_per_second(), config.core.launch_overhead_us);
  }
  r.sampling.wave_blocks = wave;
  r.sampling.waves = (total + wave - 1) / wave;
  r.sampling.fast_forward_wall_s = ff;
  (void)wall_begin;
  return r;
}

}  // namespace warplab::timing
