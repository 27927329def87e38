// Fast-forwarding blocks for sampled simulation: see fast_forward.h.
#include "sim/timing/fast_forward.h"

#include <algorithm>

#include "sim/func/cta.h"
#include "sim/timing/coalescer.h"
#include "sim/timing/l2.h"

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
  func::StepInfo info;
  CoalescedAccess scratch;
  for (uint64_t b = first; b < end; ++b) {
    if (b > first)
      if (auto s = cta.relaunch(block_index(launch, b)); !s) return s.error();
    // Each warp in turn runs until it exits, waits at a barrier, fails an mbarrier wait (the
    // warps it waits for run meanwhile) or has run a quantum (run_functional's order). A pass in
    // which nothing but failed waits ran while warps are left changed nothing: it never ends.
    int idle = 0;
    while (!cta.done()) {
      bool progress = false;
      for (int w = 0; w < cta.warp_count(); ++w)
        for (int turn = 0; turn < kQuantum && cta.status(w) == func::WarpStatus::Ready; ++turn) {
          if (!cta.step(w, info, r.stats, 0)) {
            r.fault = cta.fault();
            return r;
          }
          replay(info, l2, line_bytes, sector_bytes, scratch, r);
          if (info.wait_failed) break;
          progress = true;
        }
      idle = progress ? 0 : idle + 1;
      if (idle >= 2) {
        r.fault = cta.stop("fast-forwarded block");
        if (!r.fault) {
          r.fault = func::LaunchFault{};
          r.fault->kind = func::LaunchFault::Kind::Deadlock;
          r.fault->message = "fast-forwarded block: its warps wait for each other forever";
        }
        return r;
      }
    }
  }
  return r;
}

}  // namespace warplab::timing
