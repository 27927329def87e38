// The compiler's schedule, statically: see schedule.h.
#include "sim/timing/schedule.h"

#include <algorithm>
#include <set>

namespace warplab::timing {

const PipeConfig* expansion_of(const PipesConfig& p, const ptx::Instruction& i) {
  const ptx::Type t = i.type;
  const bool integer = !ptx::is_float(t) && t != ptx::Type::Pred;
  switch (i.op) {
    case ptx::Opcode::Div:
    case ptx::Opcode::Rem:
      if (integer) return ptx::is_signed_int(t) ? &p.div_s32 : &p.div_u32;
      if (i.op == ptx::Opcode::Div && !i.mod.approx && !i.mod.full) {
        if (t == ptx::Type::F32) return &p.div_f32;
        if (t == ptx::Type::F64) return &p.div_f64;
      }
      return nullptr;
    case ptx::Opcode::Rcp:
      if (i.mod.approx) return nullptr;
      return t == ptx::Type::F32 ? &p.rcp_f32 : t == ptx::Type::F64 ? &p.div_f64 : nullptr;
    case ptx::Opcode::Sqrt:
      if (i.mod.approx) return nullptr;
      return t == ptx::Type::F32 ? &p.sqrt_f32 : t == ptx::Type::F64 ? &p.sqrt_f64 : nullptr;
    default:
      return nullptr;
  }
}

namespace {

using ptx::Opcode;
using ptx::Operand;
using ptx::Space;

bool writes_register(const ptx::Instruction& i) {
  switch (i.op) {
    case Opcode::St:
    case Opcode::Red:
    case Opcode::Bar:
    case Opcode::Bra:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Call:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Membar:
    case Opcode::Fence:
      return false;
    default:
      return !i.ops.empty();
  }
}

// Registers an operand names (a vector's elements, an address's base).
void regs_of(const Operand& o, std::vector<int32_t>& out) {
  if ((o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Addr) && o.reg >= 0)
    out.push_back(o.reg);
  if (o.kind == Operand::Kind::Vec)
    for (int k = 0; k < o.vec_count; ++k)
      if (o.vec[k] >= 0) out.push_back(o.vec[k]);
}

bool plain_load(const ptx::Instruction& i) {
  return (i.op == Opcode::Ld || i.op == Opcode::Ldu) && i.space != Space::Param &&
         i.space != Space::Const && !i.mod.volatile_ && !i.mod.relaxed_or_acquire;
}

bool stops_loads(const ptx::Instruction& i) {
  return i.op == Opcode::St || i.op == Opcode::Atom || i.op == Opcode::Red || i.op == Opcode::Bar ||
         i.op == Opcode::Membar || i.op == Opcode::Fence || i.op == Opcode::Call ||
         i.op == Opcode::Ret || i.op == Opcode::Exit ||
         ((i.op == Opcode::Ld || i.op == Opcode::Ldu) &&
          (i.mod.volatile_ || i.mod.relaxed_or_acquire));
}

}  // namespace

bool unrolls(const ptx::Function& f, int32_t branch) {
  const auto& ins = f.instructions;
  if (branch < 0 || branch >= static_cast<int32_t>(ins.size())) return false;
  const ptx::Instruction& br = ins[branch];
  if (br.op != Opcode::Bra || br.guard < 0 || br.ops.empty() ||
      br.ops.back().kind != Operand::Kind::Label)
    return false;
  const int32_t head = br.ops.back().label;
  if (head < 0 || head > branch) return false;
  for (int32_t n : f.nounroll)
    if (n >= head && n <= branch) return false;
  // 1. The comparison that decides the branch.
  int32_t cmp = -1;
  for (int32_t k = branch - 1; k >= head && cmp < 0; --k)
    if (ins[k].op == Opcode::Setp && !ins[k].ops.empty() && ins[k].ops[0].reg == br.guard) cmp = k;
  if (cmp < 0) return false;
  // 2. Its operands that the body changes: the loop counter and how it steps.
  bool constant = false;
  for (size_t o = ins[cmp].pair_dest ? 2 : 1; o < ins[cmp].ops.size(); ++o) {
    const Operand& v = ins[cmp].ops[o];
    if (v.kind != Operand::Kind::Reg) continue;
    for (int32_t k = cmp - 1; k >= head; --k) {
      const ptx::Instruction& w = ins[k];
      if (!writes_register(w) || w.ops[0].kind != Operand::Kind::Reg || w.ops[0].reg != v.reg)
        continue;
      if (w.op != Opcode::Add && w.op != Opcode::Sub) return false;
      if (std::none_of(w.ops.begin() + 1, w.ops.end(),
                       [](const Operand& x) { return x.kind == Operand::Kind::Imm; }))
        return false;  // steps by a register
      constant = true;
      break;
    }
  }
  return constant;
}

std::vector<LoopSchedule> loop_schedules(const ptx::Function& f, const CompilerConfig& compiler,
                                         int registers_per_thread) {
  const int64_t load_registers = std::max<int64_t>(
      1, static_cast<int64_t>(compiler.load_register_share * registers_per_thread));
  std::vector<LoopSchedule> out;
  const auto& ins = f.instructions;
  for (int32_t b = 0; b < static_cast<int32_t>(ins.size()); ++b) {
    const ptx::Instruction& br = ins[b];
    if (br.op != Opcode::Bra || br.ops.empty() || br.ops.back().kind != Operand::Kind::Label)
      continue;
    const int32_t head = br.ops.back().label;
    if (head < 0 || head > b) continue;  // a forward branch: no loop
    LoopSchedule l;
    l.first = head;
    l.last = b;
    l.first_line = ins[head].ptx_line;
    l.last_line = br.ptx_line;
    l.loc = ins[head].user_loc.line > 0 ? ins[head].user_loc : ins[head].loc;
    // 1. Registers whose value comes from a load in the body (to a fixed point: loop-carried
    //    values flow around the back edge).
    std::set<int32_t> from_load;
    for (bool changed = true; changed;) {
      changed = false;
      for (int32_t k = head; k <= b; ++k) {
        const ptx::Instruction& i = ins[k];
        if (!writes_register(i)) continue;
        const size_t ndst = i.pair_dest ? 2 : 1;
        bool derived = i.op == Opcode::Ld || i.op == Opcode::Ldu || i.op == Opcode::Atom ||
                       i.op == Opcode::Shfl || i.op == Opcode::Vote;
        std::vector<int32_t> src;
        for (size_t o = ndst; o < i.ops.size(); ++o) regs_of(i.ops[o], src);
        if (i.op == Opcode::Ld || i.op == Opcode::Ldu)
          derived = !(i.space == Space::Param || i.space == Space::Const);
        for (int32_t r : src) derived = derived || from_load.count(r);
        if (!derived) continue;
        std::vector<int32_t> dst;
        for (size_t o = 0; o < ndst && o < i.ops.size(); ++o) regs_of(i.ops[o], dst);
        for (int32_t r : dst) changed = from_load.insert(r).second || changed;
      }
    }
    // 2. The loads, and what may move: stores, atomics, barriers and fences cut the body into
    //    stretches that loads do not leave.
    int stretch = 0, widest = 0;
    for (int32_t k = head; k <= b; ++k) {
      const ptx::Instruction& i = ins[k];
      if (stops_loads(i)) {
        if (l.stop_line == 0) l.stop_line = i.ptx_line;
        stretch = 0;
      }
      if (!plain_load(i)) continue;
      ++l.loads;
      std::vector<int32_t> addr;
      for (size_t o = 1; o < i.ops.size(); ++o) regs_of(i.ops[o], addr);
      if (i.guard >= 0) addr.push_back(i.guard);
      if (std::none_of(addr.begin(), addr.end(),
                       [&](int32_t r) { return from_load.count(r) > 0; })) {
        ++l.movable;
        widest = std::max(widest, ++stretch);
      }
    }
    // 3. Loads ahead: a whole unrolled body's movable loads when nothing stops them at the
    //    iteration's edge, else the widest stretch; bounded by the registers that hold them.
    l.unrolled = unrolls(f, b);
    const int64_t ahead = l.stop_line ? widest : l.movable * (l.unrolled ? compiler.unroll : 1);
    l.ahead = compiler.hoist_loads
                  ? static_cast<int>(std::min<int64_t>(
                        {ahead, compiler.max_hoisted_loads + 1, load_registers}))
                  : std::min(l.loads, 1);
    out.push_back(l);
  }
  std::sort(out.begin(), out.end(), [](const LoopSchedule& a, const LoopSchedule& b) {
    return a.first != b.first ? a.first > b.first : a.last < b.last;
  });
  return out;
}

}  // namespace warplab::timing
