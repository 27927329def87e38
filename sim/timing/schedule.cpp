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

bool calls_slow_path(const ptx::Instruction& i) {
  if (!ptx::is_float(i.type) || i.mod.approx) return false;
  return (i.op == ptx::Opcode::Div && !i.mod.full) || i.op == ptx::Opcode::Rcp ||
         i.op == ptx::Opcode::Sqrt;
}

uint8_t memory_of(const ptx::Instruction& i) {
  switch (i.space) {
    case ptx::Space::Global: return kMemGlobal;
    case ptx::Space::Shared:
    case ptx::Space::SharedCluster: return kMemShared;
    case ptx::Space::Local: return kMemLocal;
    default: return kMemAny;
  }
}

uint8_t store_memory(const ptx::Instruction& i) {
  if (i.op != ptx::Opcode::St || i.mod.volatile_ || i.mod.relaxed_or_acquire) return 0;
  return memory_of(i);
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
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::CpAsyncWait:
    case Opcode::CpAsyncMbarrierArrive:
    case Opcode::CpAsyncBulk:
    case Opcode::CpAsyncBulkCommit:
    case Opcode::CpAsyncBulkWait:
    case Opcode::BarrierCluster:
    case Opcode::Setmaxnreg:
      return false;
    case Opcode::Mbarrier:  // the state, predicate or count it returns, when it has one
      return !i.ops.empty() && i.ops[0].kind == Operand::Kind::Reg;
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

// A load the model moves (sm.cpp: hoistable_load): a plain load or an ldmatrix (LDSM), which
// t.ldmatrix shows streaming with four dependent address chains a warp overlapping.
bool movable_load(const ptx::Instruction& i) { return plain_load(i) || i.op == Opcode::Ldmatrix; }

// The memory whose loads may not move across `i` (kMem*): all for atomics, barriers, fences,
// calls, exits, ordered or volatile accesses; a plain store's own (store_memory); else none.
uint8_t stops_loads(const ptx::Instruction& i) {
  if (const uint8_t m = store_memory(i)) return m;
  const bool stops = i.op == Opcode::St || i.op == Opcode::Atom || i.op == Opcode::Red ||
                     i.op == Opcode::Bar || i.op == Opcode::Membar || i.op == Opcode::Fence ||
                     i.op == Opcode::Call || i.op == Opcode::Ret || i.op == Opcode::Exit ||
                     ptx::is_async_op(i.op) || i.op == Opcode::BarrierCluster ||
                     i.op == Opcode::Setmaxnreg ||
                     ((i.op == Opcode::Ld || i.op == Opcode::Ldu) &&
                      (i.mod.volatile_ || i.mod.relaxed_or_acquire));
  return stops ? kMemAny : 0;
}

// A plain shared load's address operand, or nullptr.
const Operand* shared_load_address(const ptx::Instruction& i) {
  if (!plain_load(i) || i.space != Space::Shared) return nullptr;
  for (const Operand& o : i.ops)
    if (o.kind == Operand::Kind::Addr && o.reg >= 0) return &o;
  return nullptr;
}

uint32_t load_bytes(const ptx::Instruction& i) {
  const uint32_t lanes = !i.ops.empty() && i.ops[0].kind == Operand::Kind::Vec
                             ? static_cast<uint32_t>(i.ops[0].vec_count)
                             : 1u;
  return static_cast<uint32_t>(ptx::type_bits(i.type) / 8) * lanes;
}

}  // namespace

bool result_read(const ptx::Function& f, size_t pc) {
  if (pc >= f.instructions.size()) return false;
  const ptx::Instruction& at = f.instructions[pc];
  if (at.ops.empty() || at.ops[0].kind != ptx::Operand::Kind::Reg) return false;
  const int32_t reg = at.ops[0].reg;
  for (size_t k = 0; k < f.instructions.size(); ++k) {
    const ptx::Instruction& i = f.instructions[k];
    if (k != pc && i.guard == reg) return true;
    for (size_t o = (k == pc || writes_register(i)) ? 1 : 0; o < i.ops.size(); ++o) {
      const ptx::Operand& x = i.ops[o];
      if ((x.kind == ptx::Operand::Kind::Reg || x.kind == ptx::Operand::Kind::Addr) && x.reg == reg)
        return true;
      if (x.kind == ptx::Operand::Kind::Vec)
        for (int v = 0; v < x.vec_count; ++v)
          if (x.vec[v] == reg) return true;
    }
  }
  return false;
}

std::vector<uint8_t> shared_vector_bytes(const ptx::Function& f) {
  const auto& ins = f.instructions;
  std::vector<uint8_t> out(ins.size(), 0);
  std::vector<uint8_t> target(ins.size() + 1, 0);
  for (const auto& [name, at] : f.labels)
    if (at >= 0 && at < static_cast<int32_t>(target.size())) target[at] = 1;
  for (size_t k = 0; k < ins.size(); ++k) {
    const Operand* a = shared_load_address(ins[k]);
    if (!a) continue;
    uint32_t bytes = load_bytes(ins[k]);
    if (bytes == 0 || bytes >= 16) continue;
    const uint32_t first = bytes;
    for (size_t j = k + 1; j < ins.size() && j < k + 64 && bytes < 16 && !target[j]; ++j) {
      const ptx::Instruction& i = ins[j];
      if (const Operand* b = shared_load_address(i); b && b->reg == a->reg) {
        if (b->offset == a->offset + static_cast<int64_t>(bytes) && bytes + load_bytes(i) <= 16)
          bytes += load_bytes(i);
        continue;
      }
      if (i.op == Opcode::Bra || stops_loads(i) & kMemShared) break;
      if (writes_register(i) && i.ops[0].kind == Operand::Kind::Reg && i.ops[0].reg == a->reg)
        break;
    }
    if (bytes > first) out[k] = static_cast<uint8_t>(bytes);
  }
  return out;
}

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

bool kept_branch(const ptx::Function& f, int32_t pc, const CompilerConfig& compiler) {
  const auto& ins = f.instructions;
  if (pc < 0 || pc >= static_cast<int32_t>(ins.size())) return false;
  const ptx::Instruction& i = ins[pc];
  if (i.op != Opcode::Bra || i.guard < 0 || i.ops.empty() ||
      i.ops.back().kind != Operand::Kind::Label)
    return false;
  const int32_t target = i.ops.back().label;
  if (target > pc && target - pc - 1 <= compiler.predicate_max_instructions) {
    bool predicated = true;
    for (int32_t k = pc + 1; k < target && size_t(k) < ins.size(); ++k)
      predicated &= ins[k].op != Opcode::Bra;
    if (predicated) return false;
  }
  return true;
}

std::vector<uint8_t> serial_copy_stores(const ptx::Function& f, const CompilerConfig& compiler) {
  const auto& ins = f.instructions;
  const int32_t n = static_cast<int32_t>(ins.size());
  std::vector<uint8_t> out(ins.size(), 0);
  if (compiler.peeled_copy_serial_bytes <= 0) return out;
  std::vector<uint8_t> target(ins.size() + 1, 0);
  for (const auto& [name, at] : f.labels)
    if (at >= 0 && at < static_cast<int32_t>(target.size())) target[at] = 1;
  auto forward = [&](int32_t k) {  // a conditional forward branch's target, else -1
    const ptx::Instruction& i = ins[k];
    if (i.op != Opcode::Bra || i.guard < 0 || i.ops.empty() ||
        i.ops.back().kind != Operand::Kind::Label || i.ops.back().label <= k)
      return -1;
    return i.ops.back().label;
  };
  // The next branch after `k`, with no label in between (straight-line code), or -1.
  auto next_branch = [&](int32_t k) {
    for (int32_t j = k + 1; j < n; ++j) {
      if (target[j]) return -1;
      if (ins[j].op == Opcode::Bra) return j;
    }
    return -1;
  };
  int32_t chained_to = -1;  // the label the copy chain just passed skips to
  for (int32_t k = 0; k < n; ++k) {
    const int32_t t = forward(k);
    if (t < 0) continue;
    const bool first = t != chained_to;
    chained_to = -1;
    const int32_t j = next_branch(k);
    if (j < 0 || forward(j) != t) continue;
    chained_to = t;
    if (!first) continue;
    // 1. Inside an outer loop: a backward branch after the chain jumps to before it.
    bool inside = false;
    for (int32_t b = t; b < n && !inside; ++b)
      inside = ins[b].op == Opcode::Bra && !ins[b].ops.empty() &&
               ins[b].ops.back().kind == Operand::Kind::Label && ins[b].ops.back().label <= k;
    if (!inside) continue;
    // 2. The first copy (k, j): a store of a wide load's data holds back the loads after it.
    bool loaded = false;
    for (int32_t c = k + 1; c < j; ++c) {
      loaded |= plain_load(ins[c]) && load_bytes(ins[c]) >= compiler.peeled_copy_serial_bytes;
      if (loaded && store_memory(ins[c])) out[c] = 1;
    }
  }
  return out;
}

std::vector<BranchSchedule> branch_schedules(const ptx::Function& f,
                                             const CompilerConfig& compiler) {
  const auto& ins = f.instructions;
  std::vector<uint8_t> target(ins.size() + 1, 0);
  for (const auto& [name, at] : f.labels)
    if (at >= 0 && at < static_cast<int32_t>(target.size())) target[at] = 1;
  std::vector<BranchSchedule> out;
  for (int32_t pc = 0; pc < static_cast<int32_t>(ins.size()); ++pc) {
    const ptx::Instruction& i = ins[pc];
    if (i.op != Opcode::Bra || i.guard < 0 || i.ops.empty() ||
        i.ops.back().kind != Operand::Kind::Label || i.ops.back().label <= pc)
      continue;
    BranchSchedule b;
    b.pc = pc;
    b.line = i.ptx_line;
    b.loc = i.user_loc.line > 0 ? i.user_loc : i.loc;
    b.skipped = i.ops.back().label - pc - 1;
    b.kept = kept_branch(f, pc, compiler);
    for (int32_t k = pc + 1; k < static_cast<int32_t>(ins.size()) && !target[k] &&
                             ins[k].op != Opcode::Bra;
         ++k)
      b.loads_below += movable_load(ins[k]);
    out.push_back(b);
  }
  return out;
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
                       i.op == Opcode::Shfl || i.op == Opcode::Vote || i.op == Opcode::Ldmatrix;
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
    // 2. The loads, and what may move: atomics, barriers and fences cut the body into stretches
    //    that loads do not leave; a store cuts those of loads from its own memory.
    int widest = 0;
    int stretch[3] = {0, 0, 0};  // per memory (kMem* bit): movable loads since its last cut
    for (int32_t k = head; k <= b; ++k) {
      const ptx::Instruction& i = ins[k];
      if (const uint8_t stop = stops_loads(i)) {
        for (int m = 0; m < 3; ++m)
          if (stop & (1 << m)) stretch[m] = 0;
      }
      if (i.op == Opcode::Bra && kept_branch(f, k, compiler) && k != b) ++l.kept_branches;
      if (!movable_load(i)) continue;
      ++l.loads;
      l.ldmatrix += i.op == Opcode::Ldmatrix;
      std::vector<int32_t> addr;
      for (size_t o = 1; o < i.ops.size(); ++o) regs_of(i.ops[o], addr);
      if (i.guard >= 0) addr.push_back(i.guard);
      if (std::none_of(addr.begin(), addr.end(),
                       [&](int32_t r) { return from_load.count(r) > 0; })) {
        ++l.movable;
        for (int m = 0; m < 3; ++m)
          if (memory_of(i) & (1 << m)) widest = std::max(widest, ++stretch[m]);
      }
    }
    // The first cut that holds back a load of the body (before it, or after it: the next
    // iteration's copy of the load).
    uint8_t loaded = 0;  // memory the body's loads read
    for (int32_t k = head; k <= b; ++k)
      if (movable_load(ins[k])) loaded |= memory_of(ins[k]);
    for (int32_t s = head; s <= b && l.stop_line == 0; ++s)
      if (stops_loads(ins[s]) & loaded) l.stop_line = ins[s].ptx_line;
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
