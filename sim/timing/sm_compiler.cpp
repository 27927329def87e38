// What ptxas moves, replayed on the PTX as a warp runs (see sm.h's opening comment for the
// whole list; this file holds the Sm member functions that decide it).
//
// The H100 runs SASS, not PTX, and ptxas reorders and rewrites the PTX it is given. Where that
// changes the time a warp takes, the model replays it on the window of fetched instructions:
//  - unrolled loops (schedule.h: unrolls): the backward branch and compare of all but the last
//    copy of an unrolled body are not in the SASS (drop_unrolled, unrolled_branch);
//  - compares that feed a branch: ptxas gives ISETP a fixed stall before the branch reads its
//    predicate (predicate_branch_ready, pipes.predicate_branch_latency);
//  - shared loads of adjacent bytes from one base register become one LDS.64/.128
//    (vectorize, vector_issued);
//  - loads move above earlier instructions, within one unrolled body, up to the register share
//    the compiler keeps for them (find_hoist, hoist_now; hold_loaded and read_loaded track the
//    registers loaded results occupy; compiler.* in the preset);
//  - but not above a conditional branch that stays in the SASS (guarded_branch): ptxas does not
//    speculate loads;
//  - a load whose address comes from an earlier load's result moves once that result is back
//    (depend, loaded_ready): ldmatrix chains, indices loaded before the loads they index.
// Simplified: these are rules read off ptxas's output for the kernels measured
// (scripts/microbench/loops.cu, expansion.cu and the corpus's SASS), not ptxas's own algorithm;
// a kernel that ptxas schedules differently is timed as if it followed them.
#include <algorithm>
#include <bit>
#include <cstddef>

#include "sim/timing/schedule.h"
#include "sim/timing/sm.h"
#include "sim/timing/sm_warp.h"

namespace warplab::timing {

using ptx::Opcode;
using ptx::Space;
using ptx::UnitClass;

namespace {

// A load's or store's address operand ([%r + offset]), or nullptr.
const ptx::Operand* address_operand(const ptx::Instruction& i) {
  for (const ptx::Operand& o : i.ops)
    if (o.kind == ptx::Operand::Kind::Addr) return &o;
  return nullptr;
}

}  // namespace

// An unrolled loop's branch at `k`, closing an innermost loop (ptxas leaves a loop that holds
// another, such as a spin on a flag, rolled).
bool Sm::unrolled_branch(int32_t function, size_t k) const {
  const auto& u = ctx_.unrolled_loops;
  if (function < 0 || function >= static_cast<int32_t>(u.size())) return false;
  const auto& ins = ctx_.program.module().functions[function].instructions;
  const auto& loop = u[function];
  if (k >= loop.size() || !loop[k]) return false;
  for (int32_t j = ins[k].ops.back().label; j >= 0 && size_t(j) < k; ++j)
    if (ins[j].op == Opcode::Bra && !ins[j].ops.empty() &&
        ins[j].ops.back().kind == ptx::Operand::Kind::Label && ins[j].ops.back().label <= j)
      return false;
  return true;
}

// ptxas unrolls a loop (schedule.h: unrolls()) into a body of `unroll` copies with one compare and
// branch at its end: the backward branch of the other copies, taken by every active lane, is not
// in the SASS, nor is the compare that decides it (loops.cu's loop_const: one BRA per 16 FFMAs).
// Both are dropped from the window: no issue slot, no wait for their operands, no branch to
// resolve. The counter's update stays (later copies' addresses read it). A compare is dropped in
// the copies whose branch will be (it is fetched before its branch: it decides the loop when the
// next branch after it reads its predicate).
void Sm::drop_unrolled(Warp&, Ahead& e) {
  const func::StepInfo& in = e.info;
  const uint32_t unroll = static_cast<uint32_t>(ctx_.config.compiler.unroll);
  const auto& u = ctx_.unrolled_loops;
  if (unroll <= 1 || (e.back_edges + 1) % unroll == 0 || in.function < 0 ||
      in.function >= static_cast<int32_t>(u.size()) || in.pc < 0)
    return guarded_branch(e);
  const auto& ins = ctx_.program.module().functions[in.function].instructions;
  const Opcode op = in.inst->op;
  if (op == Opcode::Bra) {
    e.dropped = !in.diverged && in.exec_mask != 0 && in.exec_mask == in.active_mask &&
                unrolled_branch(in.function, size_t(in.pc));
    guarded_branch(e);
  } else if (op == Opcode::Setp && in.inst->guard < 0 && !in.inst->ops.empty() &&
             in.inst->ops[0].kind == ptx::Operand::Kind::Reg) {
    for (size_t k = in.pc + 1; k < ins.size() && k <= size_t(in.pc) + 8; ++k) {
      if (ins[k].op != Opcode::Bra) continue;
      e.dropped = ins[k].guard == in.inst->ops[0].reg && unrolled_branch(in.function, k);
      break;
    }
  }
}

// ptxas does not speculate a load above a conditional branch that stays in the SASS: a load
// the branch may skip could fault, so it stays below the @P BRA. Lesson 17's mma matmul shows it
// (scripts/microbench/h100-l17-mma-2026-11-27.sass): NVVM peels the copy loop's remainder
// iterations, each ended by `@p bra` out of the loop, and each iteration's LDGs issue only after
// the branch before them (one global round trip per iteration), where the LDGs of one iteration
// issue together. A short forward branch (at most compiler.predicate_max_instructions, no branch
// among them) is no branch in the SASS: ptxas predicates the instructions it skips (lesson 5's
// bounds-checked tile loads are predicated LDGs), and loads move across it as before. Neither
// does an unrolled copy's dropped back edge or a uniform `bra.uni` stop them. A guarded branch
// that stays is a fence for find_hoist.
void Sm::guarded_branch(Ahead& e) const {
  const func::StepInfo& in = e.info;
  const ptx::Instruction& i = *in.inst;
  if (i.op != Opcode::Bra || i.guard < 0 || e.dropped || i.ops.empty() ||
      i.ops.back().kind != ptx::Operand::Kind::Label || in.function < 0 || in.pc < 0)
    return;
  const int32_t target = i.ops.back().label;
  const auto& ins = ctx_.program.module().functions[in.function].instructions;
  if (target > in.pc && target - in.pc - 1 <= ctx_.config.compiler.predicate_max_instructions) {
    bool predicated = true;
    for (int32_t k = in.pc + 1; k < target && size_t(k) < ins.size(); ++k)
      predicated &= ins[k].op != Opcode::Bra;
    if (predicated) return;
  }
  e.fence = true;
}

// ptxas gives a compare (ISETP/FSETP) a stall of pipes.predicate_branch_latency cycles before a
// branch that reads its predicate (loops.cu's SASS: 13 on the H100), where a dependent ALU
// instruction waits the compare's latency. It places the compare as early as it can: where the
// code since the last branch has work that does not need the predicate, that work hides the
// wait. Modelled so: the wait runs from the compare's earliest place, one ALU latency after the
// warp fetched again past its last branch (its integer operands computed first), or when its
// loaded, SFU or shuffled operands arrived if later. A loop's body of few instructions (a
// loop ptxas keeps rolled) pays it in full; a long body, a loop ptxas unrolls, or one that holds
// another loop (the compare goes above the inner loop) does not.
uint64_t Sm::predicate_branch_ready(const Warp& w, const func::StepInfo& in) const {
  const ptx::Instruction& i = *in.inst;
  const PipesConfig& p = ctx_.config.pipes;
  if (p.predicate_branch_latency <= 0 || i.op != Opcode::Setp || i.ops.empty() ||
      i.ops[0].kind != ptx::Operand::Kind::Reg || in.function < 0 || in.pc < 0)
    return 0;
  const auto& ins = ctx_.program.module().functions[in.function].instructions;
  // A compare of a predicate turned into an integer (selp 1, 0, p; setp.ne r, 0) is folded by
  // ptxas: the branch reads the first predicate (a try_wait's, a vote's) and no ISETP issues.
  for (size_t k = size_t(in.pc); k-- > 0 && k + 4 >= size_t(in.pc);) {
    const ptx::Instruction& w_k = ins[k];
    if (w_k.ops.empty() || w_k.ops[0].kind != ptx::Operand::Kind::Reg) continue;
    bool feeds = false;
    for (size_t o = 1; o < i.ops.size(); ++o)
      feeds |= i.ops[o].kind == ptx::Operand::Kind::Reg && i.ops[o].reg == w_k.ops[0].reg;
    if (!feeds) continue;
    if (w_k.op == Opcode::Selp) return 0;
    break;
  }
  for (size_t k = in.pc + 1; k < ins.size() && k <= size_t(in.pc) + 8; ++k) {
    if (ins[k].op != Opcode::Bra) continue;
    if (ins[k].guard != i.ops[0].reg) break;
    if (ctx_.config.compiler.unroll > 1 && unrolled_branch(in.function, k)) return 0;
    // The backward branch of a loop that holds another: its compare moves above the inner loop.
    const int32_t target = ins[k].ops.empty() ? -1 : ins[k].ops.back().label;
    for (int32_t j = target; j >= 0 && size_t(j) < k; ++j)
      if (ins[j].op == Opcode::Bra && !ins[j].ops.empty() &&
          ins[j].ops.back().kind == ptx::Operand::Kind::Label && ins[j].ops.back().label <= j)
        return 0;
    break;
  }
  const uint64_t earliest =
      std::max(w.block_start + static_cast<uint64_t>(p.integer.latency), w.long_operands);
  return earliest + static_cast<uint64_t>(p.predicate_branch_latency);
}

void Sm::vectorize(Warp& w, Ahead& e) {
  const func::StepInfo& in = e.info;
  if (!(e.load && in.space == Space::Shared)) {
    if (e.fence || (e.writes & kMemShared) || (in.is_memory && in.space == Space::Shared))
      w.vec_bytes = 0;
    return;
  }
  // 1. Does it continue the open group: the same lanes, each reading the bytes right after the
  //    group's, all within one aligned 16-byte piece?
  //    ptxas sees that only in the code: the same base register, the offset right after the
  //    group's (`[%rd3]`, `[%rd3+4]`, ...). Addresses that merely happen to be adjacent at run
  //    time (computed apart, as in a strided or wrapped index) stay separate loads.
  const ptx::Operand* where = address_operand(*in.inst);
  const int32_t base = where ? where->reg : -1;
  const int64_t offset = where ? where->offset : 0;
  bool joins = w.vec_bytes > 0 && w.vec_mask == in.exec_mask && w.vec_function == in.function &&
               w.vec_bytes + in.access_bytes <= 16 && base >= 0 && base == w.vec_base &&
               offset == w.vec_offset + static_cast<int64_t>(w.vec_bytes);
  for (uint32_t m = in.exec_mask; joins && m; m &= m - 1) {
    const int l = std::countr_zero(m);
    joins = in.addr[l] == w.vec_start[l] + w.vec_bytes;
  }
  if (joins) {
    e.merged = true;
    w.vec_bytes += in.access_bytes;
    if (w.vec_issued) {
      e.stamped = true;
      e.ready = w.vec_ready;
      e.kind = WarpState::ShortScoreboard;
    }
    return;
  }
  // 2. Else it may start a group: every lane's address 16-byte aligned, room left to grow.
  bool aligned = in.access_bytes < 16;
  for (uint32_t m = in.exec_mask; aligned && m; m &= m - 1)
    aligned = in.addr[std::countr_zero(m)] % 16 == 0;
  if (!aligned) return;  // another load between the group's members leaves the group open
  if (base < 0) return;
  e.leader = true;
  e.group = ++w.vec_group;
  w.vec_base = base;
  w.vec_offset = offset;
  w.vec_start = in.addr;
  w.vec_bytes = in.access_bytes;
  w.vec_mask = in.exec_mask;
  w.vec_function = in.function;
  w.vec_issued = false;
}

void Sm::vector_issued(Warp& w, size_t k, uint64_t ready) {
  const Ahead& lead = w.win.at(k);
  if (!lead.leader) return;
  // Its members already fetched take its data time; later ones will when they are fetched.
  for (size_t j = k + 1; j < w.win.count && !w.win.at(j).leader; ++j) {
    Ahead& m = w.win.at(j);
    if (m.merged && !m.stamped) {
      m.stamped = true;
      m.ready = ready;
      m.kind = WarpState::ShortScoreboard;
    }
  }
  if (lead.group == w.vec_group) {
    w.vec_issued = true;
    w.vec_ready = ready;
  }
}

// Dependences within the window: each operand's latest writer before this instruction. Address
// arithmetic (`chain`) passes on the registers it reads; an ldmatrix's result, and registers
// written before the window, are checked when a load is about to be hoisted: against the
// ldmatrix still in the window (issued ahead, its data back) or the scoreboard, plus the address
// arithmetic between (chain_cycles). So an ldmatrix whose address comes from an earlier one moves
// once that one's data is back, as the scoreboard lets the SASS's next LDSM issue (t.ldmatrix's
// four address chains a warp overlap on the H100: 2 cycles an x1 an SM, the shared pipe's rate).
// Anything else computed from a load keeps it dependent: for plain loads the rule gave pointer
// chases (tests/320) 7 cycles a step less than the in-order chain and the H100; why is open.
void Sm::depend(Warp& w, Ahead& e) {
  const func::StepInfo& in = e.info;
  const int32_t fkey = in.function << 20;
  e.chain_cycles = 0;
  auto add_key = [&e](int32_t key) {
    if (std::find(e.ext.begin(), e.ext.begin() + e.ext_count, key) != e.ext.begin() + e.ext_count)
      return;
    if (e.ext_count == e.ext.size()) {
      e.indep = false;
      return;
    }
    e.ext[e.ext_count++] = key;
  };
  auto operand = [&](int32_t reg) {
    if (!e.indep) return;
    const Ahead* writer = nullptr;
    for (size_t j = w.win.count - 1; j-- > 0 && !writer;) {
      const Ahead& p = w.win.at(j);
      if (p.info.function != in.function) continue;
      for (int d = 0; d < p.info.dst_count; ++d)
        if (p.info.dst_regs[d] == reg) writer = &p;
    }
    if (writer && writer->chain) {
      e.via_load |= writer->via_load;
      e.chain_cycles = std::max(e.chain_cycles, writer->chain_cycles);
      for (int x = 0; x < writer->ext_count && e.indep; ++x) add_key(writer->ext[x]);
    } else if (writer && !(writer->load && writer->info.inst->op == Opcode::Ldmatrix)) {
      e.indep = false;
    } else {
      e.via_load |= writer != nullptr;
      add_key(fkey | reg);
    }
  };
  for (int i = 0; i < in.src_count; ++i) operand(in.src_regs[i]);
  if (in.inst->guard >= 0) operand(in.inst->guard);
}

int Sm::find_hoist(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  const CompilerConfig& cc = ctx_.config.compiler;
  if (w.hoist_at != 0) return w.hoist_at > 0 ? hoist_now(w, sp, now, wake) : 0;
  // `none`: no load to hoist until the warp issues (what decided it stays as it is till then).
  auto none = [&w] { return w.hoist_at = -1, 0; };
  if (!cc.hoist_loads || w.hoisted >= cc.max_hoisted_loads) return none();
  // A warp waiting at a conditional branch (for its predicate) moves no load above it.
  if (w.win.first->fence && w.win.first->info.inst->op == Opcode::Bra) return none();
  // Registers: results of loads still in flight (issued ahead, or reached and not yet back)
  // each hold a register; the compiler keeps only part of the thread's registers for them.
  if (w.hoisted_regs + static_cast<int>(w.unread.size()) >= load_registers_) return none();
  // Loads move only within one unrolled body: `unroll` consecutive iterations of a loop.
  const uint32_t body = w.win.first->back_edges / static_cast<uint32_t>(cc.unroll);
  // Memory that stores between the waiting instruction and the load may write.
  uint8_t blocked = w.win.stores | w.win.first->writes;
  for (size_t k = w.win.passed;; ++k) {
    if (k == w.win.count) {
      // Look further ahead (fetch runs the instruction functionally, as fetching always does).
      const Ahead& last = w.win.at(k - 1);
      if (k >= static_cast<size_t>(cc.window) || last.fence ||
          last.back_edges / static_cast<uint32_t>(cc.unroll) != body ||
          blocks_[w.block].cta->next_is_cluster_barrier(w.index))
        return none();
      if (!fetch(w, now)) return 0;
      if (k == w.win.count) return 0;  // the warp exited or waits at a barrier functionally
    }
    Ahead& e = w.win.at(k);
    if (e.back_edges / static_cast<uint32_t>(cc.unroll) != body) return none();
    if (!e.hoisted && !e.merged && e.indep && e.load && !(e.reads & blocked)) {
      // Its address must be computable now: no register it needs is still being written.
      // A register's value then takes the address arithmetic between (chain_cycles) to reach
      // it (a pointer chase's IMAD.WIDE and IADD); the warp is looked at again when it has.
      for (int x = 0; x < e.ext_count; ++x)
        for (const Pending& p : w.pending)
          if (p.key == e.ext[x] && p.ready + e.chain_cycles > now)
            return wake = std::min(wake, p.ready + e.chain_cycles), 0;
      // A load in the window writes a register it needs: it must have issued, its data back.
      const int from_load = e.via_load ? loaded_ready(w, k, now, wake) : 1;
      if (from_load < 0) return 0;
      if (from_load > 0) {
        // It stays the load to hoist until the warp issues (its registers stay ready, and what
        // the scan passed over stays as it was).
        w.hoist_at = static_cast<int32_t>(k);
        w.hoist_shared = e.info.space == Space::Shared;
        return hoist_now(w, sp, now, wake);
      }
    }
    if (e.fence) return none();
    blocked |= e.writes;
    w.win.stores |= e.writes;
    w.win.passed = k + 1;  // passed over, and will be at every later look
  }
}

// For the load at w.win.at(k) whose address needs a load of the window (depend: via_load): 1
// when every such load has issued (hoisted) and its data is back and through the address
// arithmetic (chain_cycles); -1 when one has issued and that has not happened yet (wake then); 0
// when one has not issued (the load is dependent: passed over).
int Sm::loaded_ready(const Warp& w, size_t k, uint64_t now, uint64_t& wake) const {
  const Ahead& e = w.win.at(k);
  const int32_t fkey = e.info.function << 20;
  int answer = 1;
  for (int x = 0; x < e.ext_count; ++x)
    for (size_t j = k; j-- > 0;) {
      const Ahead& p = w.win.at(j);
      if (!p.load || p.info.function != e.info.function) continue;
      bool writes = false;
      for (int d = 0; d < p.info.dst_count; ++d) writes |= (fkey | p.info.dst_regs[d]) == e.ext[x];
      if (!writes) continue;
      if (!p.hoisted) return 0;
      if (p.ready + e.chain_cycles > now) answer = -1, wake = std::min(wake, p.ready + e.chain_cycles);
      break;
    }
  return answer;
}

int Sm::hoist_now(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  // Loads leave in program order: this one takes the load/store pipe and the LSU queue.
  const uint64_t free = pipe_free_[sp][static_cast<int>(UnitClass::Ldst)];
  if (free > now) {
    wake = std::min(wake, free);
    return 0;
  }
  uint64_t qwake = kNever;
  const bool ok = w.hoist_shared ? l1tex_.can_accept_shared(now, qwake)
                                 : l1tex_.can_accept_global(now, qwake);
  if (!ok) {
    wake = std::min(wake, qwake);
    return 0;
  }
  return w.hoist_at;
}

// Registers that hold loaded results (find_hoist counts them against the compiler's share).
void Sm::hold_loaded(Warp& w, const func::StepInfo& in) {
  const int32_t fkey = in.function << 20;
  for (int i = 0; i < in.dst_count; ++i) {
    w.unread.push_back(fkey | in.dst_regs[i]);
    w.unread_regs |= 1ull << (in.dst_regs[i] & 63);
  }
}

void Sm::read_loaded(Warp& w, const func::StepInfo& in) {
  if (w.unread.empty()) return;
  uint64_t named = 0;  // the registers `in` names, as unread_regs holds them
  for (int i = 0; i < in.src_count; ++i) named |= 1ull << (in.src_regs[i] & 63);
  for (int i = 0; i < in.dst_count; ++i) named |= 1ull << (in.dst_regs[i] & 63);
  if (!(named & w.unread_regs)) return;
  std::erase_if(w.unread, [&](int32_t key) {
    if ((key >> 20) != in.function) return false;
    const int32_t reg = key & ((1 << 20) - 1);
    for (int i = 0; i < in.src_count; ++i)
      if (in.src_regs[i] == reg) return true;
    for (int i = 0; i < in.dst_count; ++i)
      if (in.dst_regs[i] == reg) return true;
    return false;
  });
  w.unread_regs = 0;
  for (const int32_t key : w.unread) w.unread_regs |= 1ull << (key & 63);
}

}  // namespace warplab::timing
