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
//    (depend, loaded_operands_ready): ldmatrix chains, indices loaded before the loads they index.
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

// The address arithmetic between a loaded register and the address made from it: in the PTX a
// mul.wide and an add, two integer latencies (ptxas's one IMAD.WIDE and the LDG's issue).
uint64_t address_arithmetic(const GpuConfig& c) {
  return 2 * static_cast<uint64_t>(c.pipes.integer.latency);
}

}  // namespace

// An unrolled loop's branch at `k`, closing an innermost loop (ptxas leaves a loop that holds
// another, such as a spin on a flag, rolled).
bool Sm::unrolled_branch(int32_t function, size_t k) const {
  const auto& u = ctx_.compiler_marks;
  if (function < 0 || function >= static_cast<int32_t>(u.size())) return false;
  const auto& ins = ctx_.program.module().functions[function].instructions;
  const auto& loop = u[function];
  if (k >= loop.size() || !(loop[k] & kUnrolledBranch)) return false;
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
  if (in.inst->op == Opcode::St) return guarded_branch(e);  // a store of a serial copy
  const uint32_t unroll = static_cast<uint32_t>(ctx_.config.compiler.unroll);
  const auto& u = ctx_.compiler_marks;
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
//
// A store of a loop's first peeled copy (schedule.h: serial_copy_stores) is a fence too: ptxas
// loads that copy through one register set, so its next load waits for the store that reads the
// register (lesson 17's LDG -> STS -> LDG -> STS).
void Sm::guarded_branch(Ahead& e) const {
  const func::StepInfo& in = e.info;
  if (in.function < 0 || in.pc < 0) return;
  if (in.inst->op == Opcode::St) {
    const auto& u = ctx_.compiler_marks;
    if (in.function < static_cast<int32_t>(u.size()) && size_t(in.pc) < u[in.function].size() &&
        (u[in.function][in.pc] & kSerialCopyStore))
      e.fence = true;
    return;
  }
  if (in.inst->op != Opcode::Bra || e.dropped) return;
  // The rule itself is schedule.h's kept_branch, which `warplab ptx --schedule` lists.
  if (kept_branch(ctx_.program.module().functions[in.function], in.pc, ctx_.config.compiler))
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
  if (joins && in.exec_mask == ~0u) {  // a full warp: one pass, no branch per lane
    uint64_t differ = 0;
    for (int l = 0; l < 32; ++l) differ |= in.addr[l] ^ (w.vec_start[l] + w.vec_bytes);
    joins = differ == 0;
  }
  for (uint32_t m = in.exec_mask; joins && m && m != ~0u; m &= m - 1) {
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
  if (aligned && in.exec_mask == ~0u) {
    uint64_t bits = 0;
    for (int l = 0; l < 32; ++l) bits |= in.addr[l];
    aligned = bits % 16 == 0;
  }
  for (uint32_t m = in.exec_mask; aligned && m && m != ~0u; m &= m - 1)
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

// Dependences within the window (a fetched entry `e`; `arithmetic`: it computes from registers
// alone): each operand's latest writer before it. Address arithmetic passes on its own operands;
// a hoistable load's result is an operand to wait for (ext_loaded: find_hoist looks whether that
// load has issued and its data is back, as the SASS's per-load scoreboard does: gen2's
// spmv_csr_warp issues a body's column and value loads together once the row's bounds are back,
// and each x[col] load when its column is); anything else computed in the window makes it
// dependent. Registers written before the window are checked against the scoreboard when a load
// is about to be hoisted. A load after an IEEE division, reciprocal or square root also waits for
// its result: ptxas keeps loads below the slow path's BSYNC (schedule.h: calls_slow_path).
void Sm::depend(Warp& w, Ahead& e, bool arithmetic, bool slow_path) {
  const func::StepInfo& in = e.info;
  const int32_t fkey = in.function << 20;
  auto add_ext = [&](int32_t key, bool loaded) {
    for (int x = 0; x < e.ext_count; ++x)
      if (e.ext[x] == key) {
        if (loaded) e.ext_loaded |= uint8_t(1u << x);
        return;
      }
    if (e.ext_count == e.ext.size()) {
      e.indep = false;
      return;
    }
    if (loaded) e.ext_loaded |= uint8_t(1u << e.ext_count);
    e.ext[e.ext_count++] = key;
  };
  e.dst_bits = 0;
  for (int d = 0; d < in.dst_count; ++d) e.dst_bits |= 1ull << (in.dst_regs[d] & 63);
  // The window's entries before e (at(count - 1)) that may write `reg` lie at or below its
  // bucket's latest writer (Window::writer): the scan starts there, or finds none at once.
  const Window& win = w.win;
  auto operand = [&](int32_t reg) {
    if (!e.indep) return;
    const uint64_t last = win.writer[reg & 63];
    const size_t below = last > win.base ? std::min<size_t>(last - win.base, win.count - 1) : 0;
    for (size_t j = below; j-- > 0;) {
      const Ahead& p = w.win.at(j);
      if (!((p.dst_bits >> (reg & 63)) & 1) || p.info.function != in.function) continue;
      for (int d = 0; d < p.info.dst_count; ++d)
        if (p.info.dst_regs[d] == reg) {
          if (p.load) return add_ext(fkey | reg, true);
          if (!p.chain) {
            e.indep = false;
            return;
          }
          for (int x = 0; x < p.ext_count && e.indep; ++x)
            add_ext(p.ext[x], (p.ext_loaded >> x) & 1u);
          return;
        }
    }
    add_ext(fkey | reg, false);
  };
  for (int i = 0; i < in.src_count; ++i) operand(in.src_regs[i]);
  if (in.inst->guard >= 0) operand(in.inst->guard);
  if (e.load && w.slow_key >= 0 && e.indep) add_ext(w.slow_key, false);
  if (slow_path && in.dst_count > 0) w.slow_key = fkey | in.dst_regs[0];
  e.chain = e.indep && arithmetic;
  for (uint64_t b = e.dst_bits; b; b &= b - 1)
    w.win.writer[std::countr_zero(b)] = w.win.base + w.win.count;  // 1 + e's number
}

// An atomic whose old value some instruction reads (an ATOMG; ptxas makes the others REDs),
// looked up once per instruction (schedule.h: result_read).
bool Sm::returns_value(const func::StepInfo& in) {
  if (in.function < 0 || in.pc < 0 || in.dst_count == 0) return false;
  const auto& fs = ctx_.program.module().functions;
  if (returns_.size() < fs.size()) returns_.resize(fs.size());
  auto& r = returns_[in.function];
  if (r.empty()) r.assign(fs[in.function].instructions.size(), -1);
  int8_t& known = r[in.pc];
  if (known < 0) known = result_read(fs[in.function], size_t(in.pc)) ? 1 : 0;
  return known == 1;
}

int Sm::scan_hoist(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  const CompilerConfig& cc = ctx_.config.compiler;
  // Whether every entry so far will be passed over at every later look (none waits for data).
  bool settled = true;
  // `none`: no load to hoist until the warp issues (what decided it stays as it is till then),
  // unless a load passed over waits for data (then its wake time is in `wake`).
  auto none = [&w, &settled] { return settled ? (w.hoist_at = -1, 0) : 0; };
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
          blocks_[w.block].cta->next_is_cluster_barrier(w.index) ||
          blocks_[w.block].cta->next_reads_clock(w.index))
        return none();
      if (!fetch(w, now)) return 0;
      if (k == w.win.count) return 0;  // the warp exited or waits at a barrier functionally
    }
    Ahead& e = w.win.at(k);
    if (e.back_edges / static_cast<uint32_t>(cc.unroll) != body) return none();
    if (!e.hoisted && !e.merged && e.indep && e.load && !(e.reads & blocked)) {
      // Its address must be computable now: no register it needs is still being written.
      // The warp is looked at again when it is written (t.ldmatrix: an address from the last
      // ldmatrix's result, which left the window when it issued).
      for (int x = 0; x < e.ext_count; ++x)
        if (!((e.ext_loaded >> x) & 1u) && (w.pending_bits & pending_bit(e.ext[x])))
          for (const Pending& p : w.pending)
            if (p.key == e.ext[x] && p.ready > now) return wake = std::min(wake, p.ready), 0;
      // A loaded register the address needs, read through arithmetic fetched after the load
      // had left the window, is a load's result all the same: it waits for the arithmetic too.
      const uint64_t arithmetic = address_arithmetic(ctx_.config);
      for (int x = 0; x < e.ext_count; ++x)
        if (!((e.ext_loaded >> x) & 1u) && (w.pending_bits & pending_bit(e.ext[x])))
          for (const Pending& p : w.pending)
            if (p.key == e.ext[x] && p.kind != WarpState::Wait && p.ready + arithmetic > now &&
                !(e.info.src_count == 1 && e.info.src_regs[0] == (e.ext[x] & 0xFFFFF))) {
              wake = std::min(wake, p.ready + arithmetic);
              return 0;
            }
      // An address from a load of the window (a gather's index, a row's bounds) waits for that
      // load's data and the address arithmetic; the loads after it may go first meanwhile.
      const uint64_t data = e.ext_loaded ? loaded_operands_ready(w, e, k) : 0;
      if (data > now) {
        wake = std::min(wake, data);
        settled = false;
      } else {
        // It stays the load to hoist until the warp issues (its registers stay ready, and what
        // the scan passed over stays as it was).
        w.hoist_at = static_cast<int32_t>(k);
        w.hoist_shared = e.info.space == Space::Shared;
        return hoist_now(w, sp, now, wake);
      }
    }
    if (e.fence) return none();
    blocked |= e.writes;
    w.win.stores |= settled ? e.writes : 0;
    if (settled) w.win.passed = k + 1;  // passed over, and will be at every later look
  }
}

// The cycle a window entry's address can be formed when it depends on loads of the window
// (ext_loaded): each such load's data time (kNever while it has not issued; the scoreboard once
// it has left the window), plus the address arithmetic after it (address_arithmetic). Test 320's
// pointer chases (each address the previous load's data) stay at the H100's 28.8 / 41.6 cycles a
// step.
uint64_t Sm::loaded_operands_ready(const Warp& w, const Ahead& e, size_t k) const {
  const uint64_t arithmetic = address_arithmetic(ctx_.config);
  uint64_t ready = 0;
  for (int x = 0; x < e.ext_count; ++x) {
    if (!((e.ext_loaded >> x) & 1u)) continue;
    const int32_t reg = e.ext[x] & ((1 << 20) - 1), function = e.ext[x] >> 20;
    bool found = false;
    for (size_t j = k; j-- > 0 && !found;) {
      const Ahead& p = w.win.at(j);
      if (p.info.function != function) continue;
      for (int d = 0; d < p.info.dst_count && !found; ++d)
        if (p.info.dst_regs[d] == reg) {
          found = true;
          ready = std::max(ready, p.hoisted ? p.ready + arithmetic : kNever);
        }
    }
    if (found || !(w.pending_bits & pending_bit(e.ext[x]))) continue;
    for (const Pending& p : w.pending)
      if (p.key == e.ext[x]) ready = std::max(ready, p.ready + arithmetic);
  }
  return ready;
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
