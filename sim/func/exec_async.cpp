// Handlers of isa.def's "asynchronous copies and barriers": cp.async and its groups, the
// mbarrier operations, cp.async.bulk and its groups, elect.sync.
//
// The copies themselves are held by the block's AsyncCopies (async_copies.h: when their bytes
// land), the mbarrier rules by Mbarrier (mbarrier.h). Here each lane's operands are read, its
// addresses checked (a bad one is a fault at this instruction, as compute-sanitizer reports it),
// and the work handed over. Lanes run in lane order, so the arrivals of one warp instruction on
// one mbarrier are counted one thread at a time, as the hardware's atomic updates are.
// fence.proxy.async and fence.mbarrier_init order memory between proxies; the functional model
// has one memory image, so they do nothing here (exec_control.cpp).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "sim/func/cluster.h"
#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/mbarrier.h"

namespace warplab::func {
namespace {

using ptx::MbarOp;
using ptx::Opcode;
using ptx::Space;

constexpr uint64_t kHasSrcSize = 1, kHasIgnoreSrc = 2;

int thread_of(const Exec& x, int lane) { return x.w->index * 32 + lane; }

uint64_t address(const Exec& x, const DInst& d, int src, int op, int lane) {
  return reg(x, d.s[src], lane) + static_cast<uint64_t>(d.ir->ops[op].offset);
}

// `bytes` bytes at `addr` in `space`, for one lane: a host pointer to all of them, or nullptr
// after raising the fault (outside the space or a buffer, or not `align`-byte aligned).
uint8_t* range(Exec& x, const DInst& d, int lane, uint64_t addr, uint64_t bytes, uint32_t align,
               bool write, Space space, Space& resolved) {
  if (align > 1 && addr % align != 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf,
                  "Address 0x%llx is misaligned (this copy needs %u-byte alignment)",
                  static_cast<unsigned long long>(addr), align);
    x.cta->raise(x, d, LaunchFault::Kind::Misaligned, lane, addr, static_cast<uint32_t>(bytes),
                 write, space, buf);
    return nullptr;
  }
  uint8_t* first = x.cta->access(x, d, lane, addr, 1, write, space, resolved);
  if (!first || bytes <= 1) return first;
  Space r2 = resolved;
  uint8_t* last = x.cta->access(x, d, lane, addr + bytes - 1, 1, write, space, r2);
  if (!last) return nullptr;
  if (r2 != resolved || last != first + (bytes - 1)) {
    x.cta->raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, static_cast<uint32_t>(bytes),
                 write, resolved,
                 "the " + std::to_string(bytes) + "-byte copy runs past the end of its buffer");
    return nullptr;
  }
  return first;
}

// The mbarrier word at operand address `src` (operand `op`), as a shared-memory offset, and its
// host pointer; nullptr after a fault.
uint8_t* mbarrier_at(Exec& x, const DInst& d, int src, int op, int lane, uint64_t& offset) {
  Space resolved = Space::None;
  const uint64_t a = address(x, d, src, op, lane);
  uint8_t* p = x.cta->access(x, d, lane, a, 8, true, d.space, resolved);
  if (!p) return nullptr;
  if (resolved != Space::Shared) {
    x.cta->raise(x, d, LaunchFault::Kind::InvalidAddress, lane, a, 8, true, resolved,
                 "an mbarrier must be in shared memory");
    return nullptr;
  }
  offset = static_cast<uint64_t>(p - x.cta->shared.data());
  return p;
}

Mbarrier load_mbarrier(const uint8_t* p) {
  uint64_t w = 0;
  std::memcpy(&w, p, 8);
  return Mbarrier::decode(w);
}
void store_mbarrier(CtaImpl& cta, uint8_t* p, const Mbarrier& m) {
  const uint64_t w = m.encode();
  std::memcpy(p, &w, 8);
  cta.mbarrier_changed();
}

bool check(Exec& x, const DInst& d, int lane, const std::string& why) {
  if (why.empty()) return true;
  x.cta->raise(x, d, LaunchFault::Kind::Trap, lane, 0, 0, false, Space::Shared,
               "mbarrier error: " + why);
  return false;
}

// ---- cp.async

void cp_async_h(Exec& x, const DInst& d) {
  const uint32_t size = static_cast<uint32_t>(d.ir->ops[2].bits);
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    uint32_t src_size = size;
    if (d.aux & kHasSrcSize) src_size = static_cast<uint32_t>(reg(x, d.s[3], l));
    if ((d.aux & kHasIgnoreSrc) && pred_bit(x, d, 0, l)) src_size = 0;
    if (src_size > size) {
      x.cta->raise(x, d, LaunchFault::Kind::Trap, l, 0, 0, false, Space::Global,
                   "cp.async: src-size " + std::to_string(src_size) +
                       " is larger than the copy size " + std::to_string(size) +
                       " (undefined in the PTX ISA)");
      return;
    }
    Space r = Space::None;
    const uint64_t dst = address(x, d, 0, 0, l), src = address(x, d, 1, 1, l);
    uint8_t* dp = range(x, d, l, dst, size, size, true, Space::Shared, r);
    if (!dp) return;
    const uint8_t* sp = nullptr;
    if (src_size > 0) {
      sp = range(x, d, l, src, src_size, size, false, Space::Global, r);
      if (!sp) return;
    }
    x.cta->async.copy(thread_of(x, l), {dp, sp, src_size, size - src_size});
    if (x.info) x.info->addr[l] = src;
  });
  // For the timing model: an L1TEX read of the sources (LDGSTS), no register written.
  if (x.info) {
    x.info->is_memory = true;
    x.info->space = Space::Global;
    x.info->access_bytes = size;
  }
}

void cp_async_commit_h(Exec& x, const DInst&) {
  for_lanes(x.exec, [&](int l) { x.cta->async.commit(thread_of(x, l)); });
}

void cp_async_wait_h(Exec& x, const DInst& d) {
  const bool all = d.ir->mod.full;
  const auto n = all ? 0u : static_cast<uint32_t>(d.ir->ops[0].bits);
  for_lanes(x.exec, [&](int l) {
    if (all) x.cta->async.commit(thread_of(x, l));
    x.cta->async.wait(thread_of(x, l), n);
  });
}

void cp_async_mbarrier_arrive_h(Exec& x, const DInst& d) {
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    uint64_t off = 0;
    uint8_t* p = mbarrier_at(x, d, 0, 0, l, off);
    if (!p) return;
    Mbarrier m = load_mbarrier(p);
    if (!m.valid) {
      check(x, d, l, "cp.async.mbarrier.arrive on an mbarrier that is not initialised");
      return;
    }
    // Without .noinc the pending count goes up by one now, so that the arrive-on the copies'
    // completion triggers leaves it where it was (a net change of zero).
    if (!d.ir->mod.noinc) {
      if (m.pending >= Mbarrier::kMaxCount) {
        check(x, d, l, "cp.async.mbarrier.arrive takes the pending count past 1048575");
        return;
      }
      ++m.pending;
      store_mbarrier(*x.cta, p, m);
    }
    x.cta->async.arrive_when_done(thread_of(x, l), off);
    if (x.info && !x.info->mbarrier) x.info->mbarrier = off;
  });
}

// ---- mbarrier

void mbarrier_h(Exec& x, const DInst& d) {
  const MbarOp op = d.ir->mod.mbar;
  if (op == MbarOp::PendingCount) {
    for_lanes(x.exec, [&](int l) { reg(x, d.d[0], l) = Mbarrier::pending_of(reg(x, d.s[0], l)); });
    return;
  }
  const bool waits = op == MbarOp::TestWait || op == MbarOp::TryWait;
  const bool arrives = op == MbarOp::Arrive || op == MbarOp::ArriveDrop;
  const int a = arrives || waits ? 1 : 0;  // operand index of the address
  uint32_t done = 0;
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    uint64_t off = 0;
    uint8_t* p = mbarrier_at(x, d, 0, a, l, off);
    if (!p) return;
    if (x.info && !x.info->mbarrier) x.info->mbarrier = off;
    if (waits) {
      x.cta->deliver_async(off);
      const Mbarrier m = load_mbarrier(p);
      if (!m.valid) {
        check(x, d, l, "waiting on an mbarrier that is not initialised");
        return;
      }
      if (m.phase_done(reg(x, d.s[1], l), d.ir->mod.parity)) done |= 1u << l;
      return;
    }
    Mbarrier m = load_mbarrier(p);
    const uint64_t before = m.encode();
    bool completed = false;
    std::string why;
    switch (op) {
      case MbarOp::Init:
        why = m.init(reg(x, d.s[1], l) & 0xFFFFFFFFu);
        break;
      case MbarOp::Arrive:
      case MbarOp::ArriveDrop: {
        uint64_t count = 1;
        if (d.ir->mod.expect_tx)
          why = m.expect_tx(reg(x, d.s[1], l) & 0xFFFFFFFFu);
        else if (d.ns > 1)
          count = reg(x, d.s[1], l) & 0xFFFFFFFFu;
        if (why.empty())
          why = m.arrive(count, op == MbarOp::ArriveDrop, d.ir->mod.no_complete, completed);
        reg(x, d.d[0], l) = before;
        break;
      }
      case MbarOp::ExpectTx:
        why = m.expect_tx(reg(x, d.s[1], l) & 0xFFFFFFFFu);
        break;
      case MbarOp::CompleteTx:
        why = m.complete_tx(reg(x, d.s[1], l) & 0xFFFFFFFFu, completed);
        break;
      case MbarOp::Inval:
        why = m.inval();
        break;
      default:
        break;
    }
    if (!check(x, d, l, why)) return;
    store_mbarrier(*x.cta, p, m);
  });
  if (x.failed || !waits) return;
  write_pred(x, d.d[0], done);
  // A wait that found its phase still running ends the warp's turn in functional mode (run_block),
  // so that the warps it waits for run; the timing model stalls it instead (sm.cpp).
  if ((done & x.exec) != x.exec) {
    if (x.info) x.info->wait_failed = true;
    x.w->mbarrier_wait = true;
    x.w->mbarrier_pc = x.pc;
  }
}

// ---- cp.async.bulk

void cp_async_bulk_h(Exec& x, const DInst& d) {
  const bool to_shared = d.space == Space::Shared;
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    const uint64_t bytes = reg(x, d.s[2], l) & 0xFFFFFFFFu;
    if (bytes == 0 || bytes % 16 != 0) {
      x.cta->raise(x, d, LaunchFault::Kind::Trap, l, 0, 0, false, Space::Shared,
                   "cp.async.bulk: the size " + std::to_string(bytes) +
                       " is not a positive multiple of 16 bytes");
      return;
    }
    Space r = Space::None;
    const uint64_t dst = address(x, d, 0, 0, l), src = address(x, d, 1, 1, l);
    uint8_t* dp =
        range(x, d, l, dst, bytes, 16, true, to_shared ? Space::Shared : Space::Global, r);
    if (!dp) return;
    const uint8_t* sp =
        range(x, d, l, src, bytes, 16, false, to_shared ? Space::Global : Space::Shared, r);
    if (!sp) return;
    const AsyncCopies::Copy c{dp, sp, static_cast<uint32_t>(bytes), 0};
    if (to_shared) {
      uint64_t off = 0;
      if (!mbarrier_at(x, d, 3, 3, l, off)) return;
      x.cta->async.bulk_to_shared(c, off);
      if (x.info) x.info->mbarrier = off;
    } else {
      x.cta->async.bulk_to_global(thread_of(x, l), c);
    }
    if (x.info) {
      x.info->addr[l] = to_shared ? src : dst;
      x.info->bulk_bytes += static_cast<uint32_t>(bytes);
    }
  });
}

void cp_async_bulk_commit_h(Exec& x, const DInst&) {
  for_lanes(x.exec, [&](int l) { x.cta->async.bulk_commit(thread_of(x, l)); });
}

void cp_async_bulk_wait_h(Exec& x, const DInst& d) {
  const auto n = static_cast<uint32_t>(d.ir->ops[0].bits);
  for_lanes(x.exec, [&](int l) { x.cta->async.bulk_wait(thread_of(x, l), n); });
}

// ---- elect.sync d|p, membermask: the lowest executing lane of the mask is the leader.

void elect_h(Exec& x, const DInst& d) {
  uint32_t members = 0;
  for_lanes(x.exec, [&](int l) {
    if ((reg(x, d.s[0], l) >> l) & 1) members |= 1u << l;
  });
  const int leader = members ? std::countr_zero(members) : -1;
  for_lanes(x.exec, [&](int l) {
    if (!(d.dpred & 1)) reg(x, d.d[0], l) = leader < 0 ? 0 : static_cast<uint64_t>(leader);
  });
  write_pred(x, d.d[1], leader < 0 ? 0u : 1u << leader);
}

// ---- mapa d, a, rank: every block is a cluster of one (launches have no cluster shape), so the
// only block there is to map to is rank 0, the executing one: the address is unchanged.

}  // namespace

void CtaImpl::apply_async(const AsyncCopies::MbarrierEvent& e) {
  if ((e.arrives == 0 && e.tx_bytes == 0) || e.mbar + 8 > shared.size()) return;
  uint8_t* p = shared.data() + e.mbar;
  Mbarrier m = load_mbarrier(p);
  // The hardware's own arrive-ons and complete_tx: an mbarrier invalidated meanwhile (undefined
  // in the PTX ISA) is left as it is.
  bool completed = false;
  if (e.tx_bytes && !m.complete_tx(e.tx_bytes, completed).empty()) return;
  for (uint32_t i = 0; i < e.arrives; ++i)
    if (!m.arrive(1, false, false, completed).empty()) return;
  store_mbarrier(*this, p, m);
}

void CtaImpl::deliver_async(uint64_t mbar) { apply_async(async.deliver(mbar)); }

void CtaImpl::mbarrier_changed() {
  ++mbarrier_changes;
  if (watching)
    for (LoopWatch& lw : loop_watch) lw = LoopWatch{};
}

void CtaImpl::mbarrier_deadlock() {
  std::string what =
      "mbarrier deadlock: every live warp of the block waits for an mbarrier phase (or at a "
      "barrier) that can never complete";
  Warp* first = nullptr;
  for (Warp& w : warps) {
    if (w.status == WarpStatus::Exited) continue;
    std::string at;
    if (w.status == WarpStatus::AtBarrier && w.bar_pc >= 0) {
      at = "waits at barrier " + std::to_string(w.bar_id) + " (PTX line " +
           std::to_string(k->code[w.bar_pc].ir->ptx_line) + ")";
    } else if (w.mbarrier_wait && w.mbarrier_pc >= 0) {
      const DInst& d = k->code[w.mbarrier_pc];
      at = "waits on an mbarrier (PTX line " + std::to_string(d.ir->ptx_line) + ": " + d.ir->text +
           ")";
      if (!first) first = &w;
    }
    if (!at.empty()) what += "\n    warp " + std::to_string(w.index) + " " + at;
  }
  if (!first) first = &warps.front();
  const int32_t pc = std::max(0, first->mbarrier_pc);
  Exec x{this, first, first->R, first->P, 0, 0, pc, false, false, false, nullptr, 0};
  raise(x, k->code[pc], LaunchFault::Kind::Deadlock, 0, 0, 0, false, Space::Shared, what);
}

Handler pick_async(const ptx::Instruction& in, DInst& d, std::string& why) {
  d.space = in.space;
  switch (in.op) {
    case Opcode::CpAsync: {
      d.space = in.space;
      // Operands: [dst], [src], size, then src-size (a value) or ignore-src (a predicate), then
      // the cache policy with .L2::cache_hint (read and ignored).
      const size_t n = in.ops.size() - (in.mod.cache_hint ? 1 : 0);
      if (n == 4) d.aux = d.np > 0 ? kHasIgnoreSrc : kHasSrcSize;
      if (d.ns < 3) break;
      return cp_async_h;
    }
    case Opcode::CpAsyncCommit:
      return cp_async_commit_h;
    case Opcode::CpAsyncWait:
      return cp_async_wait_h;
    case Opcode::CpAsyncMbarrierArrive:
      return cp_async_mbarrier_arrive_h;
    case Opcode::CpAsyncBulk:
      if (d.ns < 3) break;
      return cp_async_bulk_h;
    case Opcode::CpAsyncBulkCommit:
      return cp_async_bulk_commit_h;
    case Opcode::CpAsyncBulkWait:
      return cp_async_bulk_wait_h;
    case Opcode::Mbarrier:
      if ((in.mod.mbar == MbarOp::TestWait || in.mod.mbar == MbarOp::TryWait) && !(d.dpred & 1)) {
        why = "mbarrier.test_wait/try_wait needs a predicate destination";
        return nullptr;
      }
      return mbarrier_h;
    case Opcode::Mapa:
      if (d.nd < 1 || d.ns < 2) break;
      return mapa_h;
    case Opcode::Elect:
      if (d.nd < 2 || !(d.dpred & 2)) {
        why = "elect.sync needs 'd|p' with a predicate p";
        return nullptr;
      }
      return elect_h;
    default:
      break;
  }
  if (why.empty()) why = "unsupported asynchronous-copy form";
  return nullptr;
}

}  // namespace warplab::func
