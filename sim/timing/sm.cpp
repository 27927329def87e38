// Streaming multiprocessor: see sm.h.
#include "sim/timing/sm.h"

#include <algorithm>
#include <bit>

namespace warplab::timing {

using ptx::Opcode;
using ptx::Space;
using ptx::UnitClass;

struct Sm::Pending {            // a register write not yet visible
  int32_t key = 0;              // function << 20 | register
  uint64_t ready = 0;
  WarpState kind = WarpState::Wait;
};

struct Sm::Warp {
  bool used = false;
  int block = -1, index = 0;    // block slot, warp index within the block
  uint64_t age = 0;
  func::StepInfo next;          // the fetched (functionally executed) instruction
  bool has_next = false;
  uint64_t fetch_ready = 0;     // cycle `next` can issue at the earliest
  WarpState fetch_reason = WarpState::NoInstruction;
  bool at_barrier = false;
  uint64_t barrier_release = kNever;
  bool exited = false;
  uint64_t drain_until = 0;     // last store's completion
  std::vector<Pending> pending;
  WarpState state = WarpState::NoInstruction;
  uint64_t since = 0;
  int32_t line = 0;
  uint64_t span_begin = 0;      // trace: current span
  WarpState span_state = WarpState::Count_;
  int32_t span_line = 0;
};

struct Sm::Block {
  std::optional<func::Cta> cta;
  std::vector<int> slots;
  uint64_t linear = 0;
  int live = 0;                 // warps not exited (timing view)
  int arrived = 0;              // warps waiting at the barrier
  int used_slots = 0;           // warps still holding a slot (exited ones drain)
};

namespace {

constexpr int unit_index(UnitClass u) { return static_cast<int>(u); }

const PipeConfig& pipe_of(const PipesConfig& p, UnitClass u) {
  switch (u) {
    case UnitClass::Fp32: return p.fp32;
    case UnitClass::Int: case UnitClass::Typed: return p.integer;
    case UnitClass::Fp64: return p.fp64;
    case UnitClass::Half: return p.half;
    case UnitClass::Sfu: return p.sfu;
    case UnitClass::Ldst: return p.ldst;
    case UnitClass::Barrier: return p.barrier;
    case UnitClass::Warp: return p.warp;
    case UnitClass::Branch: return p.branch;
    case UnitClass::Misc: return p.misc;
  }
  return p.misc;
}

bool is_global_like(Space s) { return s == Space::Global || s == Space::Local || s == Space::Generic; }

bool is_memory_op(Opcode op) {
  return op == Opcode::Ld || op == Opcode::Ldu || op == Opcode::St || op == Opcode::Atom ||
         op == Opcode::Red || op == Opcode::Prefetch || op == Opcode::Prefetchu;
}

}  // namespace

Sm::Sm(int id, LaunchContext& ctx)
    : id_(id), ctx_(ctx), l1tex_(ctx.config, ctx.l2),
      warps_(ctx.config.core.max_warps_per_sm), wake_(warps_.size(), kNever), blocks_(ctx.occupancy.blocks_per_sm),
      pipe_free_(ctx.config.core.sub_partitions) {
  for (int64_t i = 0; i < ctx.config.core.sub_partitions; ++i)
    schedulers_.push_back(make_warp_scheduler(ctx.config.core.warp_scheduler));
  for (auto& p : pipe_free_) p.fill(0);
}
Sm::Sm(Sm&&) noexcept = default;
Sm::~Sm() = default;

bool Sm::has_room() const {
  return resident_blocks_ < ctx_.occupancy.blocks_per_sm &&
         resident_warps_ + ctx_.occupancy.warps_per_block <= ctx_.config.core.max_warps_per_sm;
}

Status Sm::launch_block(func::Dim3 index, uint64_t linear, uint64_t now) {
  int b = 0;
  while (b < static_cast<int>(blocks_.size()) && blocks_[b].cta) ++b;
  if (b == static_cast<int>(blocks_.size())) return Error{"", 0, "internal: no free block slot"};
  auto cta = func::Cta::create(ctx_.program, ctx_.memory, ctx_.launch, index, id_);
  if (!cta) return cta.error();
  Block& block = blocks_[b];
  block.cta.emplace(std::move(*cta));
  block.linear = linear;
  block.slots.clear();
  block.arrived = 0;
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
    warp = Warp{};
    warp.used = true;
    wake_[slot] = 0;
    warp.block = b;
    warp.index = w;
    warp.age = age_counter_++;
    warp.fetch_ready = now + ctx_.config.core.block_launch_latency;
    warp.fetch_reason = WarpState::NoInstruction;
    warp.since = now;
    warp.span_begin = now;
    block.slots.push_back(slot);
  }
  block.live = n;
  block.used_slots = n;
  ++resident_blocks_;
  ++ctx_.changes;
  resident_warps_ += n;
  // Fetch every warp's first instruction (the functional executor runs it now).
  for (int s : block.slots)
    if (!fetch(warps_[s], now)) return Ok{};
  next_wake_ = std::min(next_wake_, now);
  return Ok{};
}

bool Sm::fetch(Warp& w, uint64_t now) {
  Block& b = blocks_[w.block];
  if (b.cta->status(w.index) != func::WarpStatus::Ready) {
    w.has_next = false;
    return true;
  }
  if (!b.cta->step(w.index, w.next, ctx_.stats, now)) {
    fault_ = b.cta->fault();
    if (!fault_) fault_ = func::LaunchFault{};
    return false;
  }
  w.has_next = true;
  if (w.next.is_store || w.next.is_atomic) ++ctx_.changes;
  return true;
}

WarpState Sm::evaluate(Warp& w, uint64_t now, uint64_t& wake) {
  wake = kNever;
  if (w.exited) { wake = w.drain_until; return WarpState::Drain; }
  if (w.at_barrier) { wake = w.barrier_release; return WarpState::Barrier; }
  if (!w.has_next) return WarpState::NoInstruction;   // woken by a barrier release or fetch
  if (w.fetch_ready > now) { wake = w.fetch_ready; return w.fetch_reason; }
  const func::StepInfo& in = w.next;
  // 1. Scoreboard: any source or destination register still being written?
  uint64_t blocked = 0;
  WarpState kind = WarpState::Wait;
  const int32_t fkey = in.function << 20;
  auto check = [&](int32_t reg) {
    for (const Pending& p : w.pending)
      if (p.key == (fkey | reg) && p.ready > now && p.ready > blocked) { blocked = p.ready; kind = p.kind; }
  };
  if (!w.pending.empty()) {
    std::erase_if(w.pending, [&](const Pending& p) { return p.ready <= now; });
    for (int i = 0; i < in.src_count; ++i) check(in.src_regs[i]);
    for (int i = 0; i < in.dst_count; ++i) check(in.dst_regs[i]);
    if (in.inst->guard >= 0) check(in.inst->guard);
  }
  if (blocked > now) { wake = blocked; return kind; }
  // 2. The pipeline this instruction needs.
  const UnitClass unit = ptx::unit_of(*in.inst);
  const int sp = static_cast<int>(&w - warps_.data()) % static_cast<int>(pipe_free_.size());
  const uint64_t free = pipe_free_[sp][unit_index(unit)];
  const bool mem = in.is_memory && in.exec_mask != 0 && is_memory_op(in.inst->op);
  if (free > now) {
    wake = free;
    if (unit == UnitClass::Sfu || unit == UnitClass::Warp) return WarpState::MioThrottle;
    if (unit == UnitClass::Ldst) return in.space == Space::Shared ? WarpState::MioThrottle : WarpState::LgThrottle;
    return WarpState::MathPipeThrottle;
  }
  // 3. The memory unit's queues.
  if (mem && is_global_like(in.space)) {
    if (!l1tex_.can_accept_global(now, wake)) return WarpState::LgThrottle;
  } else if (mem && in.space == Space::Shared) {
    if (!l1tex_.can_accept_shared(now, wake)) return WarpState::MioThrottle;
  }
  wake = now;
  return WarpState::NotSelected;   // ready; the scheduler decides
}

void Sm::account(Warp& w, int slot, uint64_t now) {
  if (now <= w.since) return;
  const uint64_t d = now - w.since;
  state_cycles_[static_cast<int>(w.state)] += d;
  if (w.line > 0 && w.line < static_cast<int32_t>(ctx_.by_ptx_line.size()))
    ctx_.by_ptx_line[w.line][static_cast<int>(w.state)] += d;
  w.since = now;
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
  for (int s = 0; s < static_cast<int>(warps_.size()); ++s) {
    if (wake_[s] > now) continue;   // also every free slot (kNever)
    Warp& w = warps_[s];
    if (w.at_barrier && w.barrier_release <= now) {
      Block& b = blocks_[w.block];
      if (b.cta->status(w.index) == func::WarpStatus::AtBarrier) {
        w.barrier_release = now + 1;   // functional side not released yet: look again next cycle
      } else {
        w.at_barrier = false;
        w.barrier_release = kNever;
        w.fetch_ready = now;
        if (!fetch(w, now)) return false;
      }
    }
    if (w.exited && w.drain_until <= now) {
      account(w, s, now);
      free_warp(s);
    }
  }
  // 3. Each sub-partition's scheduler: evaluate its warps, issue one. A warp whose wake cycle
  //    has not come keeps its state: everything that blocks it (its own scoreboard and fetch,
  //    a busy pipe or a full queue that nobody can refill while it is full) holds until then.
  bool issued_any = false;
  uint64_t wake_min = release_wake_;
  release_wake_ = kNever;
  const int nsp = static_cast<int>(pipe_free_.size());
  for (int sp = 0; sp < nsp; ++sp) {
    candidates_.clear();
    for (int s = sp; s < static_cast<int>(warps_.size()); s += nsp) {
      if (wake_[s] > now) { wake_min = std::min(wake_min, wake_[s]); continue; }
      Warp& w = warps_[s];
      account(w, s, now);
      uint64_t wake = kNever;
      w.state = evaluate(w, now, wake);
      wake_[s] = wake;
      w.line = w.has_next && w.next.inst ? w.next.inst->ptx_line : 0;
      if (w.state == WarpState::NotSelected) candidates_.push_back({s, w.age});
      else wake_min = std::min(wake_min, wake);
    }
    if (!candidates_.empty()) {
      const int pick = candidates_[schedulers_[sp]->pick(candidates_)].slot;
      schedulers_[sp]->on_issue(pick);
      warps_[pick].state = WarpState::Selected;
      wake_[pick] = now;   // look at it again next cycle
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
  // 5. Sleep until something can happen.
  next_wake_ = issued_any ? now + 1 : std::max(std::min(wake_min, release_wake_), now + 1);
  if (resident_warps_ == 0) next_wake_ = kNever;
  return true;
}

bool Sm::issue(int slot, uint64_t now) {
  const auto& cfg = ctx_.config;
  Warp& w = warps_[slot];
  Block& b = blocks_[w.block];
  const func::StepInfo& in = w.next;
  const ptx::Instruction& inst = *in.inst;
  const UnitClass unit = ptx::unit_of(inst);
  const int sp = slot % static_cast<int>(pipe_free_.size());
  const PipeConfig& pipe = pipe_of(cfg.pipes, unit);
  ++instructions_;
  // 1. Occupy the pipeline.
  pipe_free_[sp][unit_index(unit)] = now + pipe.interval;
  // 2. When the result is ready, and which scoreboard waits for it.
  uint64_t ready = now + pipe.latency;
  WarpState kind = WarpState::Wait;
  if (unit == UnitClass::Sfu || unit == UnitClass::Warp) kind = WarpState::ShortScoreboard;
  Trace* trace = ctx_.trace && ctx_.trace->wants(id_, now) ? ctx_.trace : nullptr;
  if (in.is_memory && is_memory_op(inst.op) && in.exec_mask != 0) {
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
        ready = l1tex_.atomic(a, in.addr, in.exec_mask, now, &j);
        rec.kind = AccessRecord::Kind::Atomic;
        w.drain_until = std::max(w.drain_until, ready);
      } else if (in.is_store) {
        w.drain_until = std::max(w.drain_until, l1tex_.store(a, local, now, &j));
        rec.kind = local ? AccessRecord::Kind::LocalStore : AccessRecord::Kind::GlobalStore;
      } else {
        ready = l1tex_.load(a, local, now, &j);
        rec.kind = local ? AccessRecord::Kind::LocalLoad : AccessRecord::Kind::GlobalLoad;
      }
      kind = WarpState::LongScoreboard;
    } else if (in.space == Space::Shared) {
      const SharedAccessCost cost =
          shared_access_cost(in.addr, in.exec_mask, in.access_bytes,
                             static_cast<uint32_t>(cfg.shared.banks),
                             static_cast<uint32_t>(cfg.shared.bank_bytes));
      ready = l1tex_.shared(cost, in.is_store, now) + (atomic ? cost.wavefronts : 0);
      kind = WarpState::ShortScoreboard;
      rec.kind = in.is_store ? AccessRecord::Kind::SharedStore : AccessRecord::Kind::SharedLoad;
      rec.wavefronts = cost.wavefronts;
      rec.bank_conflicts = cost.bank_conflicts();
      j = AccessJourney{now, now, ready, 0, 0, 0, 0, 0};
    } else {
      ready = now + cfg.pipes.misc.latency;   // param/const: constant-cache hit
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
  }
  const int32_t fkey = in.function << 20;
  for (int i = 0; i < in.dst_count; ++i) {
    const int32_t key = fkey | in.dst_regs[i];
    std::erase_if(w.pending, [&](const Pending& p) { return p.key == key; });
    w.pending.push_back({key, ready, kind});
  }
  if (trace && trace->room()) {
    IssueRecord r;
    r.sm = id_;
    r.slot = slot;
    r.cycle = now;
    r.ptx_line = inst.ptx_line;
    r.block = static_cast<uint32_t>(b.linear);
    r.warp_in_block = w.index;
    r.active_mask = in.active_mask;
    r.exec_mask = in.exec_mask;
    r.text = trace->intern(inst.text.empty() ? std::string(ptx::opcode_info(inst.op).name) : inst.text);
    trace->issues.push_back(r);
  }
  // 3. Control: branches and divergence delay the next fetch.
  w.fetch_ready = now + 1;
  w.fetch_reason = WarpState::NoInstruction;
  if (in.is_branch || in.diverged) {
    w.fetch_ready = now + cfg.pipes.branch.latency;
    w.fetch_reason = WarpState::BranchResolving;
  }
  if (inst.op == Opcode::Membar || inst.op == Opcode::Fence) {
    w.fetch_ready = std::max(now + 1, w.drain_until);
    w.fetch_reason = WarpState::Membar;
  }
  // 4. Exit, barrier, or fetch the next instruction.
  if (b.cta->status(w.index) == func::WarpStatus::Exited) {
    exit_warp(slot, now);
    return true;
  }
  // (bar.warp.sync, __syncwarp, is not a block barrier: it waits for nothing on a SIMT stack.)
  if (in.is_barrier && inst.op == Opcode::Bar && inst.mod.bar != ptx::BarMode::Arrive &&
      inst.mod.bar != ptx::BarMode::WarpSync) {
    w.at_barrier = true;
    w.has_next = false;
    w.barrier_release = kNever;
    ++b.arrived;
    try_release_barrier(b, now);
    return true;
  }
  return fetch(w, now);
}

void Sm::try_release_barrier(Block& b, uint64_t now) {
  if (b.arrived == 0 || b.arrived < b.live) return;
  const uint64_t release = now + ctx_.config.pipes.barrier.latency;
  for (int s : b.slots)
    if (warps_[s].used && warps_[s].at_barrier && warps_[s].barrier_release == kNever) {
      warps_[s].barrier_release = release;
      wake_[s] = std::min(wake_[s], release);
    }
  release_wake_ = std::min(release_wake_, release);
  b.arrived = 0;
  ++ctx_.changes;
}

void Sm::exit_warp(int slot, uint64_t now) {
  Warp& w = warps_[slot];
  Block& b = blocks_[w.block];
  w.exited = true;
  w.has_next = false;
  --b.live;
  ++ctx_.changes;
  try_release_barrier(b, now);
  if (w.drain_until <= now) {
    account(w, slot, now + 1);   // the exit instruction's own issue cycle
    free_warp(slot);
  }
}

void Sm::free_warp(int slot) {
  Warp& w = warps_[slot];
  Block& b = blocks_[w.block];
  if (ctx_.trace && w.span_state != WarpState::Count_ && ctx_.trace->wants(id_, w.span_begin) &&
      w.since > w.span_begin && ctx_.trace->room())
    ctx_.trace->spans.push_back({id_, slot, w.span_state, w.span_begin, w.since, w.span_line});
  w.used = false;
  wake_[slot] = kNever;
  --resident_warps_;
  if (--b.used_slots == 0) {
    func::merge_hazards(ctx_.hazards, b.cta->take_hazards());
    b.cta.reset();
    --resident_blocks_;
    ++blocks_completed_;
  }
}

bool Sm::stop(const std::string& what) {
  for (Block& b : blocks_)
    if (b.cta && !b.cta->done()) {
      fault_ = b.cta->stop(what);
      if (fault_) return true;
    }
  return false;
}

void Sm::watch_loops(bool on) {
  for (Block& b : blocks_)
    if (b.cta) b.cta->watch_loops(on);
}

bool Sm::looping() const {
  bool any = false;
  for (const Block& b : blocks_)
    if (b.cta && !b.cta->done()) {
      if (!b.cta->looping()) return false;
      any = true;
    }
  return any;
}

void Sm::collect_hazards() {
  for (Block& b : blocks_)
    if (b.cta) func::merge_hazards(ctx_.hazards, b.cta->take_hazards());
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
