// Fast-forwarding blocks for sampled simulation: see fast_forward.h.
#include "sim/timing/fast_forward.h"

#include <algorithm>
#include <bitset>
#include <chrono>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "sim/func/cta.h"
#include "sim/timing/coalescer.h"
#include "sim/timing/l2.h"
#include "sim/timing/stats_sum.h"
#include "sim/timing/touch_log.h"

namespace warplab::timing {

namespace {

constexpr int kQuantum = 256;  // instructions a warp runs before the next one's turn

func::Dim3 block_index(const func::LaunchConfig& launch, uint64_t i) {
  return {static_cast<uint32_t>(i % launch.grid.x),
          static_cast<uint32_t>(i / launch.grid.x % launch.grid.y),
          static_cast<uint32_t>(i / (uint64_t{launch.grid.x} * launch.grid.y))};
}

// The L2 requests of one executed warp instruction: its global lanes' lines and sectors.
void replay(const func::StepInfo& info, L2& l2, uint32_t line_bytes, uint32_t sector_bytes,
            CoalescedAccess& scratch, FastForwardResult& r) {
  if (!info.is_memory || info.space != ptx::Space::Global || !info.exec_mask) return;
  if (info.inst->op == ptx::Opcode::Prefetch || info.inst->op == ptx::Opcode::Prefetchu) return;
  coalesce(info.addr, info.exec_mask, info.access_bytes, line_bytes, sector_bytes, scratch);
  const L2::Replay kind = info.is_atomic  ? L2::Replay::Atomic
                          : info.is_store ? L2::Replay::Store
                                          : L2::Replay::Read;
  for (int i = 0; i < scratch.line_count; ++i) {
    const LineRequest& q = scratch.lines[i];
    r.evicted_dirty_sectors += l2.replay(q.line, q.sector_mask, q.full_mask, q.word_mask, kind);
    ++r.l2_requests;
  }
}

// Runs the block in `cta` to its end: each warp in turn runs until it exits, waits at a
// barrier, fails an mbarrier wait (the warps it waits for run meanwhile) or has run a quantum
// (run_functional's order); `seen(info)` after each step. A pass in which nothing but failed
// waits ran while warps are left changed nothing: it never ends. False: the block faulted
// (`fault` set).
template <typename Seen>
bool run_block(func::Cta& cta, func::LaunchStats& stats, std::optional<func::LaunchFault>& fault,
               Seen&& seen) {
  func::StepInfo info;
  int idle = 0;
  while (!cta.done()) {
    bool progress = false;
    for (int w = 0; w < cta.warp_count(); ++w)
      for (int turn = 0; turn < kQuantum && cta.status(w) == func::WarpStatus::Ready; ++turn) {
        if (!cta.step(w, info, stats, 0)) {
          fault = cta.fault();
          return false;
        }
        seen(info);
        if (info.wait_failed) break;
        progress = true;
      }
    idle = progress ? 0 : idle + 1;
    if (idle >= 2) {
      fault = cta.stop("fast-forwarded block");
      if (!fault) {
        fault = func::LaunchFault{};
        fault->kind = func::LaunchFault::Kind::Deadlock;
        fault->message = "fast-forwarded block: its warps wait for each other forever";
      }
      return false;
    }
  }
  return true;
}

}  // namespace

Expected<FastForwardResult> fast_forward(const func::Program& program, func::DeviceMemory& memory,
                                         const func::LaunchConfig& launch, uint64_t first,
                                         uint64_t end, L2& l2, uint32_t line_bytes,
                                         uint32_t sector_bytes) {
  FastForwardResult r;
  end = std::min(end, launch.grid.count());
  if (first >= end) return r;
  auto made = func::Cta::create(program, memory, launch, block_index(launch, first), 0);
  if (!made) return made.error();
  func::Cta& cta = *made;
  CoalescedAccess scratch;
  for (uint64_t b = first; b < end; ++b) {
    if (b > first)
      if (auto s = cta.relaunch(block_index(launch, b)); !s) return s.error();
    if (!run_block(cta, r.stats, r.fault, [&](const func::StepInfo& info) {
          replay(info, l2, line_bytes, sector_bytes, scratch, r);
        }))
      return r;
  }
  return r;
}

namespace {

// One range's device touches (run_blocks): the 4 KiB pages it loaded, and per page it stored,
// the 4-byte words it stored.
struct RangeTouches {
  static constexpr int kPageBits = 12;
  std::unordered_set<uint64_t> loaded;
  std::unordered_map<uint64_t, std::bitset<1024>> stored;
  uint64_t last_loaded[2] = {~0ull, ~0ull};  // the pages loaded last (a two-entry cache)
  void load_page(uint64_t page) {
    if (page == last_loaded[0] || page == last_loaded[1]) return;
    last_loaded[1] = last_loaded[0];
    last_loaded[0] = page;
    loaded.insert(page);
  }
  void see(const func::StepInfo& info) {
    if (!info.is_memory || info.space != ptx::Space::Global || !info.exec_mask) return;
    if (info.inst->op == ptx::Opcode::Prefetch || info.inst->op == ptx::Opcode::Prefetchu) return;
    const uint64_t bytes = std::max<uint32_t>(info.access_bytes, 1);
    for (uint32_t m = info.exec_mask; m; m &= m - 1) {
      const uint64_t a = info.addr[__builtin_ctz(m)];
      if (!info.is_store) {
        load_page(a >> kPageBits);
        if ((a + bytes - 1) >> kPageBits != a >> kPageBits) load_page((a + bytes - 1) >> kPageBits);
        continue;
      }
      for (uint64_t w = a >> 2; w <= (a + bytes - 1) >> 2; ++w)
        stored[w >> (kPageBits - 2)].set(w & 1023);
    }
  }
};

// Whether two ranges' touches may make the result depend on their order: a page one stored
// that another loaded, or a word both stored.
bool ranges_meet(const std::vector<RangeTouches>& t) {
  for (size_t i = 0; i < t.size(); ++i)
    for (const auto& [page, words] : t[i].stored)
      for (size_t j = 0; j < t.size(); ++j) {
        if (j == i) continue;
        if (t[j].loaded.count(page)) return true;
        if (j > i)
          if (auto it = t[j].stored.find(page);
              it != t[j].stored.end() && (it->second & words).any())
            return true;
      }
  return false;
}

// What a range does around each block: `cancel` is read before it, `done` counts it after it,
// and `after` (the calling thread's range only) runs after it.
struct RangeControl {
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<uint64_t>* done = nullptr;
  const std::function<void()>* after = nullptr;
};

// Blocks [first, end) on one Cta, in order; their counts into `stats` and `work`.
Status run_range(const func::Program& program, func::DeviceMemory& memory,
                 const func::LaunchConfig& launch, uint64_t first, uint64_t end,
                 std::optional<func::Cta>& cta, func::LaunchStats& stats,
                 std::vector<uint64_t>& work, std::optional<func::LaunchFault>& fault,
                 RangeTouches* touches, const RangeControl& control) {
  for (uint64_t b = first; b < end; ++b) {
    if (control.cancel && control.cancel->load(std::memory_order_relaxed))
      return Error{"", 0, "cancelled"};
    if (!cta) {
      auto made = func::Cta::create(program, memory, launch, block_index(launch, b), 0);
      if (!made) return made.error();
      cta.emplace(std::move(*made));
    } else if (b > first) {
      if (auto s = cta->relaunch(block_index(launch, b)); !s) return s;
    }
    const uint64_t before = stats.warp_instructions;
    const bool ok = touches ? run_block(*cta, stats, fault,
                                        [&](const func::StepInfo& info) { touches->see(info); })
                            : run_block(*cta, stats, fault, [](const func::StepInfo&) {});
    work[b] = stats.warp_instructions - before;
    if (control.done) control.done->fetch_add(1, std::memory_order_relaxed);
    if (control.after) (*control.after)();
    if (!ok) return Ok{};
  }
  return Ok{};
}

}  // namespace

Expected<BlockRunResult> run_blocks(const func::Program& program, func::DeviceMemory& memory,
                                    const func::LaunchConfig& launch, int threads,
                                    const func::DeviceMemory* before, const BlockRunWatch* watch) {
  BlockRunResult r;
  const uint64_t n = launch.grid.count();
  // Progress and Cancel (BlockRunWatch): the blocks done by every range, reported from the
  // calling thread only (the one-thread run's loop, or the wait for the ranges below).
  const auto begin = std::chrono::steady_clock::now();
  std::atomic<uint64_t> done{0};
  double next_report = watch ? watch->progress_seconds : 0;
  const std::function<void()> report = [&] {
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (t < next_report) return;
    next_report = t + watch->progress_seconds;
    watch->progress(done.load(std::memory_order_relaxed), n, t);
  };
  const bool reports = watch && watch->progress;
  RangeControl control{watch ? watch->cancel : nullptr, &done, nullptr};
  r.block_work.assign(n, 0);
  const ptx::Function* kernel = program.kernel(launch.kernel);
  if (!kernel) return Error{program.module().path, 0, "unknown kernel '" + launch.kernel + "'"};
  const uint64_t t = std::min<uint64_t>(std::max(threads, 1), n);
  if (t > 1 && !before)
    r.why_one_thread = "no copy of the memory to go back to";
  else if (t > 1 && !touches_loggable(*kernel))
    r.why_one_thread = "device touches other than plain global loads and stores";
  if (t > 1 && r.why_one_thread.empty()) {
    // 1. One Cta per range, made here (a block's first launch may bind module variables), then
    //    the ranges at once.
    std::vector<std::optional<func::Cta>> ctas(t);
    std::vector<func::LaunchStats> stats(t);
    std::vector<std::optional<func::LaunchFault>> faults(t);
    std::vector<RangeTouches> touches(t);
    std::vector<Status> status(t, Ok{});
    auto first = [&](uint64_t k) { return n * k / t; };
    for (uint64_t k = 0; k < t; ++k) {
      auto made = func::Cta::create(program, memory, launch, block_index(launch, first(k)), 0);
      if (!made) return made.error();
      ctas[k].emplace(std::move(*made));
    }
    std::vector<std::thread> pool;
    std::atomic<uint64_t> ended{0};
    for (uint64_t k = 0; k < t; ++k)
      pool.emplace_back([&, k] {
        status[k] = run_range(program, memory, launch, first(k), first(k + 1), ctas[k], stats[k],
                              r.block_work, faults[k], &touches[k], control);
        ended.fetch_add(1, std::memory_order_release);
      });
    // The calling thread reports progress while the ranges run (a short sleep between looks).
    if (reports)
      while (ended.load(std::memory_order_acquire) < t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        report();
      }
    for (std::thread& th : pool) th.join();
    // 2. Kept when no range faulted and none met another's bytes; else the one-thread run.
    bool clean = true;
    for (uint64_t k = 0; k < t; ++k) {
      if (!status[k]) return status[k].error();
      clean = clean && !faults[k];
    }
    if (!clean)
      r.why_one_thread = "a block faulted";
    else if (ranges_meet(touches))
      r.why_one_thread = "ranges of blocks touched the same bytes";
    if (clean && r.why_one_thread.empty()) {
      for (const func::LaunchStats& s : stats) add_stats(r.stats, s);
      r.threads = static_cast<int>(t);
      return r;
    }
    memory = *before;
    r.block_work.assign(n, 0);
    done.store(0, std::memory_order_relaxed);
  }
  std::optional<func::Cta> cta;
  if (reports) control.after = &report;
  if (auto s = run_range(program, memory, launch, 0, n, cta, r.stats, r.block_work, r.fault,
                         nullptr, control);
      !s)
    return s.error();
  return r;
}

}  // namespace warplab::timing
