#include "sim/timing/async_copy.h"

#include <algorithm>
#include <bit>

namespace warplab::timing {

using ptx::Opcode;

namespace {
// Groups a warp keeps track of; older ones have landed long before any wait looks at them.
constexpr size_t kMaxGroups = 64;
}  // namespace

void AsyncCopyUnit::Groups::commit() {
  closed.push_back(open);
  open = 0;
  if (closed.size() > kMaxGroups) closed.erase(closed.begin());
}

uint64_t AsyncCopyUnit::Groups::wait(uint32_t newest_pending) {
  uint64_t until = 0;
  if (closed.size() <= newest_pending) return until;
  const auto done = closed.end() - newest_pending;  // the groups it waits for
  for (auto g = closed.begin(); g != done; ++g) until = std::max(until, *g);
  closed.erase(closed.begin(), done);
  return until;
}

uint64_t AsyncCopyUnit::Groups::latest() const {
  uint64_t t = open;
  for (uint64_t c : closed) t = std::max(t, c);
  return t;
}

AsyncCopyUnit::AsyncCopyUnit(const AsyncConfig& cfg, int warp_slots, L2* l2, int64_t line_bytes,
                             UnitTrace unit_trace)
    : cfg_(cfg),
      tma_(cfg, l2, line_bytes),
      slots_(static_cast<size_t>(warp_slots)),
      trace_(unit_trace) {}

uint64_t AsyncCopyUnit::issue(int slot, const void* block, const func::StepInfo& in, uint64_t now,
                              uint64_t data_ready, WarpState& state) {
  Slot& s = slots_[slot];
  const ptx::Instruction& inst = *in.inst;
  uint64_t& mbar = mbarrier_ready_[{block, in.mbarrier}];
  state = WarpState::Mbarrier;
  using Kind = AsyncRecord::Kind;
  auto record = [&](Kind kind, uint64_t end, uint64_t bytes, uint64_t done = 0) {
    trace_.record({0, slot, kind, now, end, done, bytes, inst.ptx_line});
  };
  switch (inst.op) {
    case Opcode::CpAsync:
      if (in.exec_mask) {
        const uint64_t landed = data_ready + static_cast<uint64_t>(cfg_.cp_async_fill);
        s.copies.open = std::max(s.copies.open, landed);
        record(Kind::CpAsync, landed, uint64_t(std::popcount(in.exec_mask)) * in.access_bytes);
      }
      return 0;
    case Opcode::CpAsyncCommit:
      s.copies.commit();
      return 0;
    case Opcode::CpAsyncWait:
      if (inst.mod.full) s.copies.commit();  // wait_all
      return s.copies.wait(inst.mod.full ? 0 : static_cast<uint32_t>(inst.ops[0].bits));
    case Opcode::CpAsyncMbarrierArrive:
      if (in.exec_mask) mbar = std::max(mbar, s.copies.latest());
      return 0;
    case Opcode::CpAsyncBulk: {
      if (!in.exec_mask || !in.bulk_bytes) return 0;
      const uint64_t global = in.addr[std::countr_zero(in.exec_mask)];
      const bool to_shared = inst.space == ptx::Space::Shared;
      const uint64_t done = tma_.copy(now, in.bulk_bytes, global, to_shared);
      record(to_shared ? Kind::TmaLoad : Kind::TmaStore, done, in.bulk_bytes);
      if (inst.space == ptx::Space::Shared)
        mbar = std::max(mbar, done);
      else
        s.bulk.open = std::max(s.bulk.open, done);
      return 0;
    }
    case Opcode::CpAsyncBulkTensor: {
      if (!in.exec_mask || !in.bulk_bytes || !in.tma_ranges) return 0;
      const bool to_shared = inst.space == ptx::Space::Shared;
      const uint64_t done = tma_.copy_tensor(now, *in.tma_ranges, in.bulk_bytes, to_shared, in.tma_map);
      record(to_shared ? Kind::TmaLoad : Kind::TmaStore, done, in.bulk_bytes);
      if (to_shared)
        mbar = std::max(mbar, done);
      else
        s.bulk.open = std::max(s.bulk.open, done);
      return 0;
    }
    case Opcode::CpAsyncBulkPrefetchTensor:
      if (in.exec_mask && in.tma_ranges)
        record(Kind::TmaPrefetch, tma_.prefetch_tensor(now, *in.tma_ranges, in.tma_map),
               in.bulk_bytes);
      return 0;
    case Opcode::PrefetchTensormap:
      if (in.exec_mask) tma_.descriptor(now, in.tma_map);
      return 0;
    case Opcode::TensormapCpFenceproxy:
      if (in.exec_mask) tma_.forget(in.tma_map);
      return 0;
    case Opcode::CpAsyncBulkCommit:
      s.bulk.commit();
      return 0;
    case Opcode::CpAsyncBulkWait:
      return s.bulk.wait(static_cast<uint32_t>(inst.ops[0].bits));
    case Opcode::Mbarrier: {
      const ptx::MbarOp op = inst.mod.mbar;
      if (op != ptx::MbarOp::TestWait && op != ptx::MbarOp::TryWait) return 0;
      // A phase that completed: the warp goes on once its asynchronous work has landed and the
      // SYNCS unit has answered.
      if (!in.wait_failed) {
        const uint64_t release = std::max(mbar, now + static_cast<uint64_t>(cfg_.try_wait_latency));
        record(Kind::MbarrierWait, release, 0, mbar);
        return release;
      }
      return op == ptx::MbarOp::TryWait ? now + static_cast<uint64_t>(cfg_.try_wait_suspend) : 0;
    }
    default:
      return 0;
  }
}

}  // namespace warplab::timing
