// Streaming multiprocessor: see sm.h.
#include "sim/timing/sm.h"

#include <algorithm>
#include <bit>
#include <cstddef>

#include "sim/timing/issue_pipe.h"
#include "sim/timing/schedule.h"
#include "sim/timing/sm_ready.h"
#include "sim/timing/tensor_pipe.h"
#include "sim/timing/wake_scan.h"

namespace warplab::timing {

using ptx::Opcode;
using ptx::Space;
using ptx::Type;
using ptx::UnitClass;

namespace {

constexpr int unit_index(UnitClass u) { return static_cast<int>(u); }

bool is_global_like(Space s) {
  return s == Space::Global || s == Space::Local || s == Space::Generic;
}

bool is_memory_op(Opcode op) { return ptx::is_lsu_access(op); }  // isa.h

// A load the compiler may move above earlier instructions: a plain (weak, non-volatile) load
// from global, local or shared memory, or another block's shared memory through a generic or
// shared::cluster address (ptxas schedules a generic LD like any load: the H100 overlaps
// c.dsmem_neighbor's four remote loads a body, 98-176 cycles a load against 219 for one alone).
bool hoistable_load(const func::StepInfo& in) {
  const ptx::Instruction& i = *in.inst;
  return (i.op == Opcode::Ld || i.op == Opcode::Ldu || i.op == Opcode::Ldmatrix) && in.is_memory &&
         !in.is_store && !in.is_atomic &&
         (is_global_like(in.space) || in.space == Space::Shared ||
          in.space == Space::SharedCluster) &&
         !i.mod.volatile_ && !i.mod.relaxed_or_acquire;
}

// Address arithmetic: an instruction that computes from registers alone (no memory but kernel
// parameters and constants, no warp-level exchange, no control).
bool arithmetic(const func::StepInfo& in, UnitClass u) {  // u: ptx::unit_of(*in.inst)
  if (in.is_branch || in.is_barrier || in.is_store || in.is_atomic) return false;
  if (in.is_memory && in.space != Space::Param && in.space != Space::Const) return false;
  return u != UnitClass::Warp && u != UnitClass::Barrier && u != UnitClass::Branch;
}

// No load is moved across this instruction: atomics, barriers, fences, calls, exits, ordered or
// volatile loads and stores, branches that split the warp, and IEEE float divisions, reciprocals
// and square roots (schedule.h: calls_slow_path). A plain store holds back only the loads of the
// memory it may write (schedule.h: store_memory).
bool schedule_barrier(const func::StepInfo& in, bool slow_path) {  // calls_slow_path(*in.inst)
  const ptx::Instruction& i = *in.inst;
  if (in.is_store && store_memory(i) == 0) return true;  // 0 for atomics too
  if (in.is_atomic || in.is_barrier || in.diverged || slow_path) return true;
  if (i.op == Opcode::Membar || i.op == Opcode::Fence || i.op == Opcode::Call ||
      i.op == Opcode::Ret || i.op == Opcode::Exit)
    return true;
  return in.is_memory && (i.mod.volatile_ || i.mod.relaxed_or_acquire);
}

}  // namespace

Sm::Sm(int id, LaunchContext& ctx)
    : id_(id),
      ctx_(ctx),
      l1tex_(ctx.config, ctx.l2),
      async_(ctx.config.async, ctx.config.core.max_warps_per_sm, &ctx.l2, ctx.config.l1.line_bytes,
             {ctx.trace, id}),
      wgmma_(ctx.config.pipes.tensor, {ctx.trace, id}),
      dsmem_(ctx.config.cluster, ctx.launch, ctx.program, ctx.config.core.sub_partitions),
      warps_(ctx.config.core.max_warps_per_sm),
      wake_(warps_.size(), kNever),
      age_(warps_.size(), 0),
      blocks_(ctx.occupancy.blocks_per_sm),
      pipe_free_(ctx.config.core.sub_partitions),
      issue_free_(ctx.config.core.sub_partitions, 0),
      issue_pipes_(ctx.config.pipes),
      load_registers_(std::max(
          1, static_cast<int>(ctx.config.compiler.load_register_share *
                              static_cast<double>(ctx.occupancy.registers_per_warp / 32)))) {
  for (int64_t i = 0; i < ctx.config.core.sub_partitions; ++i)
    schedulers_.push_back(make_warp_scheduler(ctx.config.core.warp_scheduler));
  const size_t words = (warps_.size() + 63) / 64;
  due_.assign(words, 0);
  mio_wait_.assign(words, 0);
  ready_.assign(words, 0);
  ready_now_.assign(words, 0);
  keep_.resize(warps_.size());
  sp_slots_.assign(pipe_free_.size(), std::vector<uint64_t>(words, 0));
  for (size_t s = 0; s < warps_.size(); ++s)
    sp_slots_[s % pipe_free_.size()][s / 64] |= 1ull << (s % 64);
}
Sm::Sm(Sm&&) noexcept = default;
Sm::~Sm() = default;

bool Sm::has_room() const {
  return resident_blocks_ < ctx_.occupancy.blocks_per_sm &&
         resident_warps_ + ctx_.occupancy.warps_per_block <= ctx_.config.core.max_warps_per_sm;
}

bool Sm::fetch(Warp& w, uint64_t now) {
  Block& b = blocks_[w.block];
  if (b.cta->status(w.index) != func::WarpStatus::Ready) return true;
  // A barrier.cluster runs (functionally) no earlier than the warp may fetch: an arrive fetched
  // while a cluster wait holds the warp would count before that wait's release (dsmem.h).
  if (w.fetch_ready > now && b.cta->next_is_cluster_barrier(w.index))
    return w.at_barrier = true, w.barrier_release = w.fetch_ready, true;
  const bool logged = ctx_.gate && b.cta->next_touches_device(w.index) && ctx_.gate->before_touch();
  Ahead& e = w.win.push();
  if (!b.cta->step(w.index, e.info, ctx_.stats, b.cta->step_clock(w.index, now, w.fetch_ready))) {
    w.win.pop_back();
    fault_ = b.cta->fault().value_or(func::LaunchFault{});
    return false;
  }
  const func::StepInfo& in = e.info;
  if (logged) ctx_.gate->touched(in);
  if (in.is_store || in.is_atomic) ++ctx_.changes;
  // Loop copies: a taken backward branch just before this instruction starts another iteration.
  // (The branch may have left the window already: drop_unrolled.)
  if (w.branch_pc >= 0 && (w.branch_pc >> 20) == in.function && in.pc <= (w.branch_pc & 0xFFFFF)) {
    const int32_t function = w.branch_pc >> 20, pc = w.branch_pc & 0xFFFFF;
    // Another iteration: of the same unrolled body if ptxas unrolls this loop, else a new one.
    const auto& u = ctx_.compiler_marks;
    const bool unrolled = function < static_cast<int32_t>(u.size()) &&
                          pc < static_cast<int32_t>(u[function].size()) &&
                          (u[function][pc] & kUnrolledBranch);
    w.back_edges += unrolled ? 1 : static_cast<uint32_t>(ctx_.config.compiler.unroll);
  }
  w.branch_pc = in.is_branch && in.pc >= 0 ? (in.function << 20 | in.pc) : -1;
  e.back_edges = w.back_edges;
  e.indep = true;
  e.ext_count = 0;
  e.ext_loaded = 0;
  e.hoisted = e.merged = e.stamped = e.leader = e.dropped = false;
  e.load = in.exec_mask != 0 && hoistable_load(in);
  const IssuePipes::Entry known = issue_pipes_.of(*in.inst, in.function, in.pc);
  e.fence = schedule_barrier(in, known.slow_path);
  e.writes = e.fence ? 0 : store_memory(*in.inst);
  e.reads = e.load ? memory_of(*in.inst) : 0;
  if (!ctx_.config.compiler.hoist_loads) return true;
  drop_unrolled(w, e);
  vectorize(w, e);
  depend(w, e, arithmetic(in, known.unit), known.slow_path);
  return true;
}

void Sm::learn_next(Warp& w) {
  static_assert(offsetof(Warp, win) + offsetof(Window, first_known) < 64,
                "a warp whose next instruction is ready is read from one cache line");
  const func::StepInfo& in = w.win.first->info;
  const bool mem = in.is_memory && in.exec_mask != 0 && is_memory_op(in.inst->op);
  const IssuePipes::Entry& known = issue_pipes_.of(*in.inst, in.function, in.pc);
  w.next_unit = known.unit;
  const IssuePipe& ip = known.pipe;
  w.next_pipe = static_cast<uint8_t>(ip.index);
  w.next_cfg = ip.cfg;
  w.next_holds_port = ip.holds_port;
  w.next_sfu = ip.cfg->sfu_ops > 0;
  w.next_access = !mem                        ? NextAccess::None
                  : is_global_like(in.space)  ? NextAccess::Global
                  : in.space == Space::Shared ? NextAccess::Shared
                                              : NextAccess::None;
  w.next_shared = in.space == Space::Shared;
  w.next_clear = false;
  w.next_warmed = false;
  w.next_line = in.inst->ptx_line;
  w.sb_known = false;
  w.hoist_at = 0;
  w.win.first_known = true;
}

WarpState Sm::evaluate_stalled(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  if (w.exited) {
    wake = w.drain_until;
    return WarpState::Drain;
  }
  if (w.at_barrier) {
    wake = w.barrier_release;
    return WarpState::Barrier;
  }
  if (w.win.count == 0) return WarpState::NoInstruction;  // woken by a barrier release or fetch
  if (w.fetch_ready > now) {
    wake = w.fetch_ready;
    return w.fetch_reason;
  }
  if (!w.win.first_known) learn_next(w);
  // 1. Scoreboard: any source or destination register still being written? (Once none is, none
  //    is until the warp issues this instruction: w.next_clear.)
  if (!w.next_clear) {
    if (!w.sb_known) {  // the latest pending write of its registers (the last to clear)
      PendingWait wait;
      if (!w.pending.empty()) {
        // Kept two integer latencies past ready: find_hoist reads when a load's data came back.
        const uint64_t keep = 2 * static_cast<uint64_t>(ctx_.config.pipes.integer.latency);
        expire_pending(w.pending, w.pending_bits, now, keep);
        wait = latest_pending(w.pending, w.pending_bits, w.win.first->info, now);  // scoreboard.h
      }
      if (wait.until > now && wait.kind != WarpState::Wait)
        w.long_operands = std::max(w.long_operands, wait.until);
      w.sb_until = wait.until;
      w.sb_kind = wait.kind;
      w.sb_known = true;
    }
    if (w.sb_until > now) {
      // While it waits, the compiler's schedule may have a later load to issue.
      wake = w.sb_until;
      if (const int k = find_hoist(w, sp, now, wake)) {
        w.pick = k;
        wake = now;
        return WarpState::NotSelected;
      }
      return w.sb_kind;
    }
    w.next_clear = true;
  }
  return pipe_state(w, sp, now, wake);  // 2. and 3.: the pipe and the memory unit's queues
}

void Sm::prefetch_tick() const {
  const char* from = reinterpret_cast<const char*>(&warps_);
  const char* to = reinterpret_cast<const char*>(&state_cycles_);
  for (const char* p = from; p < to; p += 64) __builtin_prefetch(p);
  const char* wake = reinterpret_cast<const char*>(wake_.data());
  for (size_t b = 0; b < wake_.size() * sizeof(uint64_t); b += 64) __builtin_prefetch(wake + b);
  __builtin_prefetch(due_.data());
  __builtin_prefetch(ready_.data());
  __builtin_prefetch(mio_wait_.data());
}

bool Sm::tick(uint64_t now) {
  Trace* trace = ctx_.trace && ctx_.trace->wants(id_, now) ? ctx_.trace : nullptr;
  // 1. SM-level accounting for the cycles since the last tick.
  if (resident_warps_ > 0 && now > last_account_) {
    active_cycles_ += now - last_account_;
    resident_warp_cycles_ += (now - last_account_) * resident_warps_;
  }
  last_account_ = now;
  // 2. Barrier releases and finished drains (only warps whose wake cycle has come).
  //    The window entries that step 3 reads start loading from the host's memory here, side by
  //    side (all SMs' windows together are far larger than the host's caches).
  //    Which slots are due is found in one pass over wake_ (free slots hold kNever); the others
  //    keep their wake cycle, the earliest of which is where the SM may sleep to (step 5). It
  //    stops at slot_end_: the slots from there on are free.
  //    (wake_scan.h; `later`: the earliest wake of the slots not due, which step 3 leaves as
  //    they are when no warp issues: only an issue releases a barrier, try_release_barrier.)
  const int nwords = static_cast<int>(due_.size());
  uint64_t wake_min = release_wake_, later = kNever;
  for (int wd = 0; wd < nwords; ++wd) {
    const int end = std::clamp(slot_end_ - 64 * wd, 0, 64);
    const WakeScan scan = scan_wakes(wake_.data() + 64 * wd, end, now);
    due_[wd] = scan.due;
    later = std::min(later, scan.later);
  }
  //    The due warps' first lines start loading together, before any is read (not the kept
  //    ready ones: step 3 does not read them, sm_ready.h; nor does this step: they are neither
  //    at a barrier nor exited).
  for (int wd = 0; wd < nwords; ++wd)
    for (uint64_t bits = due_[wd] & ~ready_[wd]; bits; bits &= bits - 1)
      __builtin_prefetch(&warps_[64 * wd + std::countr_zero(bits)]);
  constexpr size_t kAheadHotBytes = offsetof(Ahead, info) + offsetof(func::StepInfo, addr);
  for (int wd = 0; wd < nwords; ++wd)
    for (uint64_t bits = due_[wd] & ~(mio_wait_[wd] | ready_[wd]); bits; bits &= bits - 1) {
      const int s = 64 * wd + std::countr_zero(bits);
      Warp& w = warps_[s];
      const char* next = reinterpret_cast<const char*>(w.win.first);
      // evaluate() reads the entry (and find_hoist the window) unless it knows their answers.
      if (next && !(w.win.first_known && (w.next_clear || (w.sb_known && w.hoist_at != 0)))) {
        for (size_t line = 0; line < kAheadHotBytes; line += 64) __builtin_prefetch(next + line);
        if (w.win.passed < w.win.count) __builtin_prefetch(&w.win.at(w.win.passed));  // find_hoist
      }
      if (w.at_barrier && w.barrier_release <= now) {
        Block& b = blocks_[w.block];
        if (b.cta->status(w.index) == func::WarpStatus::AtBarrier) {
          w.barrier_release = now + 1;  // functional side not released yet: look again next cycle
        } else {
          w.at_barrier = false;
          w.barrier_release = kNever;
          w.fetch_ready = now;
          if (!fetch(w, now)) return false;
        }
      }
      if (w.exited && w.drain_until <= now) {
        account(w, s, now);
        free_warp(s, now);
      }
    }
  // 3. Each sub-partition's scheduler: evaluate its warps, issue one. A warp whose wake cycle
  //    has not come keeps its state: everything that blocks it (its own scoreboard and fetch,
  //    a busy pipe or a full queue that nobody can refill while it is full) holds until then.
  //    (A slot freed in step 2 holds kNever; one a barrier release made due since the pass
  //    above has its bit set by try_release_barrier.)
  bool issued_any = false;
  release_wake_ = kNever;
  const int nsp = static_cast<int>(pipe_free_.size());
  for (int sp = 0; sp < nsp; ++sp) {
    uint64_t ready = 0;  // any bit of ready_now_: this sub-partition's ready warps
    const std::vector<uint64_t>& mine = sp_slots_[sp];
    for (int wd = 0; wd < nwords; ++wd) {
      uint64_t due = due_[wd] & mine[wd], qwake;  // warps held by a full MIO queue first, in brief
      if (const uint64_t held = due & mio_wait_[wd]; held && !mio_accepts(now, qwake))
        mio_wait(sp, wd, held, now, wake_min), due &= ~held;
      // Ready warps kept from the last look: only their pipe and queue are asked (sm_ready.h).
      const uint64_t kept = due & ready_[wd];
      uint64_t go = kept ? still_ready(sp, wd, kept, now) : 0;
      for (uint64_t bits = due & ~go; bits; bits &= bits - 1) {
        const int s = 64 * wd + std::countr_zero(bits);
        if (wake_[s] <= now && !look(s, sp, now, wake_min, go)) return false;  // (> now: freed)
      }
      ready_now_[wd] = go, ready |= go;
    }
    if (ready && issue_free_[sp] > now) {
      // The scheduler is still issuing an expanded instruction's sequence.
      wake_min = std::min(wake_min, issue_free_[sp]);
    } else if (ready) {
      const int pick = schedulers_[sp]->pick({ready_now_, age_.data()});
      schedulers_[sp]->on_issue(pick);
      ready_[unsigned(pick) / 64] &= ~(1ull << (unsigned(pick) % 64));
      account(warps_[pick], pick, now);
      warps_[pick].state = WarpState::Selected;
      wake_[pick] = now;  // look at it again next cycle
      if (!issue(pick, now)) return false;
      issued_any = true;
    }
  }
  // 4. Trace spans for the states just decided.
  if (trace) {
    for (int s = 0; s < static_cast<int>(warps_.size()); ++s) {
      Warp& w = warps_[s];
      if (!w.used) continue;
      if (w.span_state != w.state || w.span_line != w.line) {
        if (w.span_state != WarpState::Count_ && now > w.span_begin && trace->room())
          trace->spans.push_back({id_, s, w.span_state, w.span_begin, now, w.span_line});
        w.span_state = w.state;
        w.span_begin = now;
        w.span_line = w.line;
      }
    }
  }
  // 5. Sleep until something can happen: the next cycle after an issue, else the earliest wake
  //    (of the warps looked at, and of those not due, whose wake cycles step 3 left as they were).
  if (!issued_any) wake_min = std::min(wake_min, later);
  next_wake_ = issued_any ? now + 1 : std::max(std::min(wake_min, release_wake_), now + 1);
  if (resident_warps_ == 0) next_wake_ = kNever;
  return true;
}

uint64_t Sm::access(int slot, const func::StepInfo& in, uint64_t now, WarpState& kind,
                    bool vector_leader) {
  const auto& cfg = ctx_.config;
  Warp& w = warps_[slot];
  const ptx::Instruction& inst = *in.inst;
  uint64_t ready = now;
  Trace* trace = ctx_.trace && ctx_.trace->wants(id_, now) ? ctx_.trace : nullptr;
  AccessRecord rec;
  AccessJourney j;
  rec.sm = id_;
  rec.slot = slot;
  rec.id = ctx_.next_access_id++;
  rec.ptx_line = inst.ptx_line;
  rec.exec_mask = in.exec_mask;
  rec.access_bytes = in.access_bytes;
  rec.first_address = in.addr[std::countr_zero(in.exec_mask)];
  rec.issue = now;
  // Tracing this access: the L1 appends its lines (with sector sources) to the trace directly.
  const bool record =
      trace && (is_global_like(in.space) || in.space == Space::Shared) && trace->room();
  if (record && is_global_like(in.space)) {
    j.lines_out = &trace->access_lines;
    rec.line_begin = static_cast<uint32_t>(trace->access_lines.size());
    const uint64_t line_bytes = static_cast<uint64_t>(cfg.l1.line_bytes);
    const uint64_t sector_bytes = static_cast<uint64_t>(cfg.l1.sector_bytes);
    for (uint32_t m = in.exec_mask; m; m &= m - 1) {
      const int lane = std::countr_zero(m);
      const uint64_t sector = (in.addr[lane] % line_bytes) / sector_bytes;
      rec.lane_sectors |= (sector & 3u) << (2 * lane);
    }
  }
  const bool atomic = in.is_atomic || inst.op == Opcode::Atom || inst.op == Opcode::Red;
  if (is_global_like(in.space)) {
    CoalescedAccess a;
    coalesce(in.addr, in.exec_mask, in.access_bytes, static_cast<uint32_t>(cfg.l1.line_bytes),
             static_cast<uint32_t>(cfg.l1.sector_bytes), a);
    const bool local = in.space == Space::Local;
    if (atomic) {
      const bool float_add = (inst.mod.atom == ptx::AtomOp::Add) && ptx::is_float(inst.type);
      const bool returns = returns_value(in);
      ready = l1tex_.atomic(a, in.addr, in.exec_mask, now, &j, float_add, returns);
      rec.kind = AccessRecord::Kind::Atomic;
      w.drain_until = std::max(w.drain_until, ready);
      if (!returns) ready = now;  // ptxas's RED has no destination: nothing waits for it
    } else if (in.is_store) {
      w.drain_until = std::max(w.drain_until, l1tex_.store(a, local, now, &j, &w.drain_until));
      rec.kind = local ? AccessRecord::Kind::LocalStore : AccessRecord::Kind::GlobalStore;
    } else {
      ready = load(slot, a, local, now, j, inst);
      rec.kind = local ? AccessRecord::Kind::LocalLoad : AccessRecord::Kind::GlobalLoad;
    }
    kind = WarpState::LongScoreboard;
  } else if (in.space == Space::Shared) {
    // A vector load's leader costs the whole vector's wavefronts (LDS.128: 2 for one address).
    uint32_t bytes = in.access_bytes;
    if (vector_leader && in.function >= 0 &&
        in.function < static_cast<int32_t>(ctx_.vector_bytes.size()) && in.pc >= 0 &&
        in.pc < static_cast<int32_t>(ctx_.vector_bytes[in.function].size()))
      bytes = std::max<uint32_t>(bytes, ctx_.vector_bytes[in.function][in.pc]);
    const SharedAccessCost cost = shared_cost_of(inst, in.addr, in.exec_mask, bytes, cfg.shared,
                                                 atomic && !counts_lanes(inst));
    ready = l1tex_.shared(cost, in.is_store, atomic, now);
    mio_asked_ = kNever;  // the MIO queue's answer changes (mio_accepts)
    kind = WarpState::ShortScoreboard;
    rec.kind = in.is_store ? AccessRecord::Kind::SharedStore : AccessRecord::Kind::SharedLoad;
    rec.wavefronts = cost.wavefronts;
    rec.bank_conflicts = cost.bank_conflicts();
    if (record) {  // the lanes' addresses, for the banks view
      rec.line_begin = static_cast<uint32_t>(trace->shared_addresses.size());
      for (uint32_t m = in.exec_mask; m; m &= m - 1)
        trace->shared_addresses.push_back(static_cast<uint32_t>(in.addr[std::countr_zero(m)]));
      rec.line_count = static_cast<uint32_t>(trace->shared_addresses.size()) - rec.line_begin;
    }
    j = AccessJourney{now, now, ready, 0, 0, 0, 0, 0};
  } else if (in.space == Space::SharedCluster) {  // another block's shared memory (dsmem.h)
    ready = dsmem_.access(in, now);
    kind = WarpState::LongScoreboard;
    if (in.is_store || atomic) w.drain_until = std::max(w.drain_until, ready);
    rec.kind = in.is_store ? AccessRecord::Kind::SharedStore : AccessRecord::Kind::SharedLoad;
    j = AccessJourney{now, now, ready, 0, 0, 0, 0, 0};
  } else {
    ready = now + cfg.pipes.misc.latency;  // param/const: constant-cache hit
    j.ready = ready;
    rec.kind = AccessRecord::Kind::GlobalLoad;
  }
  if (record) {
    if (j.lines_out)
      rec.line_count = static_cast<uint32_t>(trace->access_lines.size()) - rec.line_begin;
    rec.tag_stage = j.tag_stage;
    rec.ready = std::max(ready, j.ready);
    rec.lines = j.lines;
    rec.sectors = j.sectors;
    rec.l1_hit_sectors = j.l1_hit_sectors;
    rec.l1_miss_sectors = j.l1_miss_sectors;
    rec.dram_sectors = j.dram_sectors;
    trace->accesses.push_back(rec);
  }
  return ready;
}

void Sm::trace_issue(int slot, const func::StepInfo& in, uint64_t now) {
  Trace* trace = ctx_.trace && ctx_.trace->wants(id_, now) ? ctx_.trace : nullptr;
  if (!trace || !trace->room()) return;
  const Warp& w = warps_[slot];
  const ptx::Instruction& inst = *in.inst;
  IssueRecord r;
  r.sm = id_;
  r.slot = slot;
  r.cycle = now;
  r.ptx_line = inst.ptx_line;
  r.block = static_cast<uint32_t>(blocks_[w.block].linear);
  r.warp_in_block = w.index;
  r.active_mask = in.active_mask;
  r.exec_mask = in.exec_mask;
  r.text =
      trace->intern(inst.text.empty() ? std::string(ptx::opcode_info(inst.op).name) : inst.text);
  trace->issues.push_back(r);
}

bool Sm::issue(int slot, uint64_t now) {
  const auto& cfg = ctx_.config;
  Warp& w = warps_[slot];
  Block& b = blocks_[w.block];
  const int sp = slot % static_cast<int>(pipe_free_.size());
  ++instructions_;
  ++w.issued;
  w.hoist_at = 0;  // the window changes (find_hoist looks afresh)
  // 0. A hoisted load: it leaves now; its result joins the scoreboard when the warp reaches it.
  if (w.pick > 0) {
    const size_t k = static_cast<size_t>(w.pick);
    Ahead& e = w.win.at(k);
    w.pick = 0;
    pipe_free_[sp][unit_index(UnitClass::Ldst)] = now + cfg.pipes.ldst.interval;
    e.kind = WarpState::LongScoreboard;
    e.ready = access(slot, e.info, now, e.kind, e.leader);
    e.hoisted = true;
    ++w.hoisted;
    w.hoisted_regs += e.info.dst_count;
    vector_issued(w, k, e.ready);
    trace_issue(slot, e.info, now);
    return true;
  }
  const func::StepInfo& in = w.win.first->info;  // win.at(0), without reading the ring
  const ptx::Instruction& inst = *in.inst;
  const UnitClass unit = w.next_unit;  // learn_next's summary (tick() keeps it known)
  const IssuePipe ip{w.next_pipe, w.next_cfg, w.next_holds_port};
  // 1. Occupy the pipeline (an expanded instruction: the scheduler's issue port).
  pipe_free_[sp][ip.index] = now + (ip.holds_port ? 1 : ip.cfg->interval);
  if (ip.holds_port) issue_free_[sp] = now + ip.cfg->interval;
  if (ip.cfg->sfu_ops > 0)
    pipe_free_[sp][unit_index(UnitClass::Sfu)] = now + ip.cfg->sfu_ops * cfg.pipes.sfu.interval;
  // 2. When the result is ready, and which scoreboard waits for it.
  uint64_t ready = now + ip.cfg->latency;
  WarpState kind = WarpState::Wait;
  if (unit == UnitClass::Sfu || unit == UnitClass::Warp) kind = WarpState::ShortScoreboard;
  if (in.is_memory && is_memory_op(inst.op) && in.exec_mask != 0) {
    ready = access(slot, in, now, kind, w.win.first->leader);
    vector_issued(w, 0, ready);
  }
  read_loaded(w, in);
  if (in.is_memory && is_memory_op(inst.op) && in.space != Space::Param) hold_loaded(w, in);
  write_pending(w.pending, w.pending_bits, in, ready, kind, predicate_branch_ready(w, in));
  w.long_operands = 0;
  trace_issue(slot, in, now);
  // 3. Control: branches and divergence delay the next fetch.
  w.fetch_ready = now + 1;
  w.fetch_reason = WarpState::NoInstruction;
  if (in.is_branch || in.diverged)
    w.fetch_ready = now + cfg.pipes.branch.latency, w.fetch_reason = WarpState::BranchResolving,
    w.block_start = w.fetch_ready;
  if (inst.op == Opcode::Membar || inst.op == Opcode::Fence)
    w.fetch_ready = std::max(l1tex_.fence(inst, now), w.drain_until),
    w.fetch_reason = WarpState::Membar;
  if (is_async_op(inst.op)) async_.hold(slot, &b, in, now, ready, w.fetch_ready, w.fetch_reason);
  if (is_wgmma_op(inst.op))
    wgmma_.hold(b.linear, w.index, inst, now, w.fetch_ready, w.fetch_reason);
  if (inst.op == Opcode::BarrierCluster)
    dsmem_.hold(in, now, w.drain_until, w.fetch_ready, w.fetch_reason, resident_warps_);
  // (bar.warp.sync, __syncwarp, is not a block barrier: it waits for nothing on a SIMT stack.)
  const bool block_barrier = in.is_barrier && inst.op == Opcode::Bar &&
                             inst.mod.bar != ptx::BarMode::Arrive &&
                             inst.mod.bar != ptx::BarMode::WarpSync;
  w.win.pop();
  // 4. Exit (the window is empty only when nothing follows), barrier, or the next instruction.
  if (w.win.count == 0 && b.cta->status(w.index) == func::WarpStatus::Exited) {
    exit_warp(slot, now);
    return true;
  }
  if (block_barrier) {
    w.at_barrier = true;
    w.barrier_release = kNever;
    ++b.arrived;
    b.barrier.arrive(cfg.pipes, now);
    try_release_barrier(b, now);
    return true;
  }
  return advance(w, now);
}

bool Sm::advance(Warp& w, uint64_t now) {
  for (;;) {
    // Loads issued ahead, and loads folded into a vector load, take no issue slot of their own:
    // their results join the scoreboard as the warp reaches them.
    while (w.win.count > 0 &&
           (w.win.first->hoisted || w.win.first->merged || w.win.first->dropped)) {
      const Ahead& e = *w.win.first;
      if (e.dropped) {
        w.win.pop();
        continue;
      }
      write_pending(w.pending, w.pending_bits, e.info, e.ready, e.kind);
      hold_loaded(w, e.info);
      if (e.hoisted) {
        --w.hoisted;
        w.hoisted_regs -= e.info.dst_count;
      }
      w.win.pop();
    }
    if (w.win.count > 0) return true;
    if (!fetch(w, now)) return false;
    if (w.win.count == 0) return true;  // exited or at a barrier functionally
  }
}

void Sm::try_release_barrier(Block& b, uint64_t now) {
  if (b.arrived == 0 || b.arrived < b.live) return;
  const uint64_t release = b.barrier.release(ctx_.config.pipes, now);
  for (int s : b.slots)
    if (warps_[s].used && warps_[s].at_barrier && warps_[s].barrier_release == kNever) {
      warps_[s].barrier_release = release;
      wake_[s] = std::min(wake_[s], release);
      if (wake_[s] <= now) due_[s / 64] |= 1ull << (s % 64);  // (a barrier latency of 0)
    }
  release_wake_ = std::min(release_wake_, release);
  b.arrived = 0;
  ++ctx_.changes;
}

void Sm::exit_warp(int slot, uint64_t now) {
  Warp& w = warps_[slot];
  Block& b = blocks_[w.block];
  w.exited = true;
  w.win.clear();
  --b.live;
  ++ctx_.changes;
  try_release_barrier(b, now);
  if (w.drain_until <= now) {
    account(w, slot, now + 1);  // the exit instruction's own issue cycle
    free_warp(slot, now + 1);
  }
}

void Sm::free_warp(int slot, uint64_t now) {
  Warp& w = warps_[slot];
  Block& b = blocks_[w.block];
  if (ctx_.trace && w.span_state != WarpState::Count_ && ctx_.trace->wants(id_, w.span_begin) &&
      w.since > w.span_begin && ctx_.trace->room())
    ctx_.trace->spans.push_back({id_, slot, w.span_state, w.span_begin, w.since, w.span_line});
  w.used = false;
  wake_[slot] = kNever;
  mio_wait_[slot / 64] &= ~(1ull << (slot % 64));
  ready_[slot / 64] &= ~(1ull << (slot % 64));
  while (slot_end_ > 0 && !warps_[slot_end_ - 1].used) --slot_end_;
  --resident_warps_;
  if (--b.used_slots == 0) {
    if (ctx_.trace && ctx_.trace->block_room())
      ctx_.trace->blocks.push_back(
          {id_, static_cast<int32_t>(b.slots.size()), b.linear, b.begin, now});
    func::merge_hazards(ctx_.hazards, b.cta->take_hazards());
    b.used = false;
    wgmma_.block_done(b.linear);
    --resident_blocks_;
    ++blocks_completed_;
  }
}

bool Sm::stop(const std::string& what) {
  for (Block& b : blocks_)
    if (b.used && !b.cta->done()) {
      fault_ = b.cta->stop(what);
      if (fault_) return true;
    }
  return false;
}

void Sm::watch_loops(bool on) {
  for (Block& b : blocks_)
    if (b.used) b.cta->watch_loops(on);
}

bool Sm::looping() const {
  bool any = false;
  for (const Block& b : blocks_)
    if (b.used && !b.cta->done()) {
      if (!b.cta->looping()) return false;
      any = true;
    }
  return any;
}

void Sm::collect_hazards() {
  for (Block& b : blocks_)
    if (b.used) func::merge_hazards(ctx_.hazards, b.cta->take_hazards());
}

void Sm::flush(uint64_t now) {
  for (int s = 0; s < static_cast<int>(warps_.size()); ++s)
    if (warps_[s].used) account(warps_[s], s, now);
  if (resident_warps_ > 0 && now > last_account_) {
    active_cycles_ += now - last_account_;
    resident_warp_cycles_ += (now - last_account_) * resident_warps_;
  }
  last_account_ = now;
}

}  // namespace warplab::timing
