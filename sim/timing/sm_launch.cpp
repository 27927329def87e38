// A block's launch on its SM, done on the thread that ticks the SM (the parallel loop's
// deferral; parallel_loop.h).
//
// What the hardware does: the block scheduler picks an SM with room and sends it the block;
// the SM sets up the block's warps (registers, shared memory, barrier) and they start fetching.
// What is modelled: the block scheduler (block_scheduler.h) decides, on the loop's thread and in
// its order, which SM takes which block in which cycle; launch_block (below) then resets the
// kept Cta of the block's slot and runs every warp's first instruction functionally. In a cycle
// the parallel loop ticks on several threads, that second half is the SM's own business: it
// reads the launch's parameters and writes only the SM's state, so it may run on the SM's own
// thread at the start of its tick in the same cycle (an SM that takes a block is due in that
// cycle), in parallel with the other SMs, instead of on the loop's thread before any SM ticks.
// What the loop reads of the SM in between (has_room, busy, next_wake: the glance) is booked at
// once here, with the accounting up to `now` that launch_block does first.
// A block whose slot has no Cta yet (the launch's first wave) is deferred too when the kernel
// references no module variables (may_defer_creates): Cta::create then only reads the launch
// and allocates the block's own state (perf17: ~625,000 TSC cycles a block on the dev host,
// mostly the fresh memory's page faults; 1,056 of them for vec_add's first wave, serial on the
// loop's thread until now).
// Not deferred: a first block of a kernel that references module variables (Cta::create may
// bind them, which allocates device memory), a kernel whose first instruction touches device memory
// (its order against the other SMs' touches in the cycle would change: may_defer_launches), the
// cycles that run on one thread (the loop runs the deferred launches before the ticks, as
// launch_block at once), and launches with a trace, checks, clusters or sampling (one thread).
// A deferred launch that faults (its first instruction) makes the parallel cycle differ from the
// one-thread loop's: run_timing then simulates the launch again on one thread.
#include <algorithm>
#include <memory>
#include <string>

#include "sim/func/decoded.h"
#include "sim/func/executor.h"
#include "sim/timing/sm.h"
#include "sim/timing/sm_warp.h"

namespace warplab::timing {

bool Sm::may_defer_launches(const ptx::Function& kernel) {
  if (kernel.instructions.empty()) return false;
  const ptx::Instruction& i = kernel.instructions.front();
  return !func::touches_device(i.op, i.space);
}

bool Sm::may_defer_creates(const func::Program& program, const std::string& kernel) {
  const func::DecodedKernel* k = program.decoded().find(kernel);
  return k && k->global_vars.empty();
}

Status Sm::launch_block(func::Dim3 index, uint64_t linear, uint64_t now,
                        func::ClusterState* cluster, uint32_t rank) {
  int b = 0;
  while (b < static_cast<int>(blocks_.size()) && blocks_[b].used) ++b;
  if (b == static_cast<int>(blocks_.size())) return Error{"", 0, "internal: no free block slot"};
  Block& block = blocks_[b];
  if (block.cta) {
    if (auto st = block.cta->relaunch(index); !st) return st.error();
  } else {
    auto cta = func::Cta::create(ctx_.program, ctx_.memory, ctx_.launch, index, id_);
    if (!cta) return cta.error();
    block.cta.emplace(std::move(*cta));
  }
  if (cluster) block.cta->join_cluster(cluster, rank);
  block.used = true;
  block.linear = linear;
  block.slots.clear();
  block.arrived = 0;
  block.barrier = {};
  const int n = block.cta->warp_count();
  // SM-level accounting up to now (the resident set changes now). Warps account lazily.
  if (resident_warps_ > 0 && now > last_account_) {
    active_cycles_ += now - last_account_;
    resident_warp_cycles_ += (now - last_account_) * resident_warps_;
  }
  last_account_ = now;
  int slot = 0;
  for (int w = 0; w < n; ++w) {
    while (warps_[slot].used) ++slot;
    Warp& warp = warps_[slot];
    // A fresh warp that keeps the slot's window and scoreboard storage.
    // (Built in place, not assigned from a temporary Warp{}: a cold slot's kilobyte is written
    // once, not a temporary's copy of it; `unread` keeps its storage too.)
    Window win = std::move(warp.win);
    std::vector<Pending> pending = std::move(warp.pending);
    std::vector<int32_t> unread = std::move(warp.unread);
    win.clear();
    pending.clear();
    unread.clear();
    std::destroy_at(&warp);
    std::construct_at(&warp);
    warp.win = std::move(win);
    warp.pending = std::move(pending);
    warp.unread = std::move(unread);
    warp.used = true;
    wake_[slot] = 0;
    warp.block = b;
    warp.index = w;
    age_[slot] = age_counter_++;
    warp.fetch_ready = now + ctx_.config.core.block_launch_latency;
    warp.fetch_reason = WarpState::NoInstruction;
    warp.block_start = warp.fetch_ready;
    warp.since = now;
    warp.span_begin = now;
    block.slots.push_back(slot);
    slot_end_ = std::max(slot_end_, slot + 1);
  }
  block.live = n;
  block.used_slots = n;
  block.begin = now;
  ++resident_blocks_;
  ++ctx_.changes;
  resident_warps_ += n;
  // Fetch every warp's first instruction (the functional executor runs it now).
  for (int s : block.slots)
    if (!fetch(warps_[s], now)) return Ok{};
  next_wake_ = std::min(next_wake_, now);
  return Ok{};
}

Status Sm::place_block(func::Dim3 index, uint64_t linear, uint64_t now, Defer defer) {
  fill_held();  // (the loop's thread, between cycles: the SM is not ticking)
  if (defer != Defer::None) {
    // The slot launch_block will take after the deferred ones: the next free one.
    size_t skip = deferred_.size();
    size_t b = 0;
    for (; b < blocks_.size(); ++b)
      if (!blocks_[b].used && skip-- == 0) break;
    if (b < blocks_.size() && (blocks_[b].cta || defer == Defer::All)) {
      // launch_block's accounting up to now (the resident set changes now), then its counts.
      if (resident_warps_ > 0 && now > last_account_) {
        active_cycles_ += now - last_account_;
        resident_warp_cycles_ += (now - last_account_) * resident_warps_;
      }
      last_account_ = now;
      const int warps =
          blocks_[b].cta ? blocks_[b].cta->warp_count() : ctx_.occupancy.warps_per_block;
      deferred_.push_back(Deferred{index, linear, now, next_wake_, warps});
      ++launches_deferred_;
      ++resident_blocks_;
      resident_warps_ += warps;
      next_wake_ = std::min(next_wake_, now);
      return Ok{};
    }
  }
  if (auto st = run_launches(); !st) return st;
  return launch_block(index, linear, now);
}

Status Sm::run_launches() {
  if (deferred_.empty()) return Ok{};
  // Back to the state before place_block booked them; launch_block books each again (its
  // accounting finds last_account_ == now: nothing to add).
  next_wake_ = deferred_.front().wake_before;
  for (const Deferred& d : deferred_) --resident_blocks_, resident_warps_ -= d.warps;
  Status st = Ok{};
  for (const Deferred& d : deferred_)
    if (st) st = launch_block(d.index, d.linear, d.now);
  deferred_.clear();
  return st;
}

void Sm::warp_progress(std::vector<std::pair<uint64_t, uint64_t>>& out) const {
  out.clear();
  for (const Block& b : blocks_)
    if (b.used)
      for (int slot : b.slots) {
        const Warp& w = warps_[slot];
        out.emplace_back((b.linear << 6 | uint64_t(w.index)) | (w.exited ? uint64_t{1} << 63 : 0),
                         w.issued);
      }
}

}  // namespace warplab::timing
