#include "sim/func/decode.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sim/func/cfg.h"
#include "sim/func/cluster.h"
#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"
#include "sim/func/reg_init.h"
#include "sim/func/reg_share.h"

namespace warplab::func {
namespace {

using ptx::Opcode;
using ptx::Operand;
using ptx::Space;
using ptx::Type;
using Kind = Operand::Kind;

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

bool is_dynamic_special(ptx::SpecialReg r) {
  return r == ptx::SpecialReg::Clock || r == ptx::SpecialReg::Clock64 ||
         r == ptx::SpecialReg::Globaltimer;
}

// Number of destination operands at the front of Instruction::ops.
int dest_count(const ptx::Instruction& in) {
  switch (in.op) {
    case Opcode::St:
    case Opcode::Stmatrix:
    case Opcode::Red:
    case Opcode::Bra:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Exit:
    case Opcode::Ret:
    case Opcode::Trap:
    case Opcode::Nanosleep:
    case Opcode::Call:
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::CpAsyncWait:
    case Opcode::CpAsyncMbarrierArrive:
    case Opcode::CpAsyncBulk:
    case Opcode::CpAsyncBulkCommit:
    case Opcode::CpAsyncBulkWait:
    case Opcode::CpAsyncBulkTensor:
    case Opcode::CpAsyncBulkPrefetchTensor:
    case Opcode::PrefetchTensormap:
    case Opcode::TensormapReplace:
    case Opcode::TensormapCpFenceproxy:
    case Opcode::Wgmma:  // its accumulators: decode_wgmma_operands
    case Opcode::WgmmaFence:
    case Opcode::WgmmaCommit:
    case Opcode::WgmmaWait:
    case Opcode::BarrierCluster:
    case Opcode::Setmaxnreg:
      return 0;
    case Opcode::Mbarrier:  // arrive: the state; test/try_wait: the predicate; pending_count
      switch (in.mod.mbar) {
        case ptx::MbarOp::Arrive:
        case ptx::MbarOp::ArriveDrop:
        case ptx::MbarOp::TestWait:
        case ptx::MbarOp::TryWait:
        case ptx::MbarOp::PendingCount:
          return 1;
        default:
          return 0;
      }
    case Opcode::Bar:
      return in.mod.bar == ptx::BarMode::Red ? 1 : 0;
    default:
      return in.ops.empty() ? 0 : 1 + (in.pair_dest ? 1 : 0);
  }
}

// The float type immediates of this instruction's sources are read as (None: integers/bits).
Type source_float_type(const ptx::Instruction& in) {
  Type t =
      (in.op == Opcode::Cvt || in.op == Opcode::Set || in.op == Opcode::Slct) ? in.type2 : in.type;
  return (t == Type::F32 || t == Type::F64) ? t : Type::None;
}

Handler pick_handler(const ptx::Instruction& in, DInst& d, std::string& why) {
  switch (in.op) {
    case Opcode::Mov:
    case Opcode::Cvt:
    case Opcode::Cvta:
    case Opcode::Isspacep:
      return pick_move(in, d, why);
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Atom:
    case Opcode::Red:
      return pick_memory(in, d, why);
    case Opcode::Bra:
    case Opcode::Call:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
    case Opcode::Bar:
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Nanosleep:
      return pick_control(in, d, why);
    case Opcode::Shfl:
    case Opcode::Vote:
    case Opcode::Match:
    case Opcode::Redux:
    case Opcode::Activemask:
      return pick_warp(in, d, why);
    case Opcode::Mma:
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
    case Opcode::Movmatrix:
      return pick_tensor(in, d, why);
    case Opcode::CpAsync:
    case Opcode::CpAsyncCommit:
    case Opcode::CpAsyncWait:
    case Opcode::CpAsyncMbarrierArrive:
    case Opcode::CpAsyncBulk:
    case Opcode::CpAsyncBulkCommit:
    case Opcode::CpAsyncBulkWait:
    case Opcode::Mbarrier:
    case Opcode::Elect:
    case Opcode::Mapa:
      return pick_async(in, d, why);
    case Opcode::CpAsyncBulkTensor:
    case Opcode::CpAsyncBulkPrefetchTensor:
    case Opcode::PrefetchTensormap:
    case Opcode::TensormapReplace:
    case Opcode::TensormapCpFenceproxy:
      return pick_tma(in, d, why);
    case Opcode::BarrierCluster:  // sim/func/cluster.h
      return barrier_cluster_h;
    case Opcode::Setmaxnreg:  // sim/func/exec_setmaxnreg.cpp
      return setmaxnreg_h;
    case Opcode::Wgmma:
    case Opcode::WgmmaFence:
    case Opcode::WgmmaCommit:
    case Opcode::WgmmaWait:
      return pick_wgmma(in, d, why);
    case Opcode::Fma:
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Lg2:
    case Opcode::Ex2:
    case Opcode::Tanh:
    case Opcode::Copysign:
    case Opcode::Testp:
      return pick_float(in, d, why);
    case Opcode::Set:
    case Opcode::Slct:
      return ptx::is_float(in.type2) ? pick_float(in, d, why) : pick_int(in, d, why);
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Mad:
    case Opcode::Div:
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::Setp:
      return ptx::is_float(in.type) ? pick_float(in, d, why) : pick_int(in, d, why);
    default:
      return pick_int(in, d, why);
  }
}

StepHead step_head(const DecodedKernel& k, const DInst& d) {
  StepHead h;
  if (!d.ir) return h;
  const auto op = d.ir->op;
  h.function = k.funcs[d.func].module_index;
  h.cls = static_cast<uint8_t>(ptx::class_of(*d.ir));
  h.is_memory = op == ptx::Opcode::Ld || op == ptx::Opcode::Ldu || op == ptx::Opcode::St ||
                op == ptx::Opcode::Atom || op == ptx::Opcode::Red || op == ptx::Opcode::Prefetch ||
                op == ptx::Opcode::Prefetchu || op == ptx::Opcode::Ldmatrix ||
                op == ptx::Opcode::Stmatrix;
  h.is_store = op == ptx::Opcode::St || op == ptx::Opcode::Stmatrix;
  h.is_atomic = op == ptx::Opcode::Atom || op == ptx::Opcode::Red;
  h.access_bytes = h.is_memory ? static_cast<uint32_t>(d.size) * d.vec : 0;
  h.is_branch = op == ptx::Opcode::Bra || op == ptx::Opcode::Call || op == ptx::Opcode::Ret ||
                op == ptx::Opcode::Exit;
  h.is_barrier = op == ptx::Opcode::Bar || ptx::is_async_op(op) ||
                 op == ptx::Opcode::BarrierCluster || op == ptx::Opcode::Setmaxnreg;
  for (int i = 0; i < d.nd && h.dst_count < 8; ++i) {
    const int32_t r = (d.dpred >> i) & 1 ? k.pred_reg[d.d[i]] : k.slot_reg[d.d[i]];
    if (r >= 0) h.dst_regs[h.dst_count++] = r;
  }
  for (int i = 0; i < d.ns && h.src_count < 12; ++i)
    if (k.slot_reg[d.s[i]] >= 0) h.src_regs[h.src_count++] = k.slot_reg[d.s[i]];
  for (int i = 0; i < d.np && h.src_count < 12; ++i)
    if (k.pred_reg[d.p[i]] >= 0) h.src_regs[h.src_count++] = k.pred_reg[d.p[i]];
  if (d.guard >= 0 && h.src_count < 12 && k.pred_reg[d.guard] >= 0)
    h.src_regs[h.src_count++] = k.pred_reg[d.guard];
  return h;
}

class KernelBuilder {
 public:
  KernelBuilder(const ptx::Module& m, DecodedKernel& k, int32_t root) : m_(m), k_(k), root_(root) {}

  Status build() {
    const auto& rf = m_.functions[root_];
    k_.name = rf.name;
    k_.module_index = root_;
    k_.param_bytes = rf.param_bytes;
    if (auto s = collect(root_); !s) return s;
    // The parser holds each function to the register limit; a kernel and the functions it calls
    // together are held to it as well (every register is 8 bytes per thread of every block).
    uint64_t declared = 0;
    for (const auto& f : k_.funcs) declared += m_.functions[f.module_index].regs.size();
    if (declared > ptx::limits::kRegistersPerFunction)
      return Error{m_.path, m_.functions[root_].ptx_line,
                   "kernel '" + k_.name + "' and the functions it calls declare " +
                       std::to_string(declared) + " registers; at most " +
                       std::to_string(ptx::limits::kRegistersPerFunction) + " in all"};
    if (auto s = find_recursion(); !s) return s;
    layout_registers();
    if (auto s = layout_variables(); !s) return s;
    // Code layout: each function's instructions, then one implicit return.
    int32_t pc = 0;
    for (auto& f : k_.funcs) {
      f.entry_pc = pc;
      pc += static_cast<int32_t>(m_.functions[f.module_index].instructions.size()) + 1;
    }
    k_.code.resize(pc);
    for (size_t fi = 0; fi < k_.funcs.size(); ++fi)
      if (auto s = decode_function(static_cast<int32_t>(fi)); !s) return s;
    k_.first_const_slot = first_const_;
    k_.data_slots = next_data_;
    k_.pred_slots = next_pred_;
    k_.reg_width.resize(next_data_, 64);
    k_.slot_reg.assign(next_data_, -1);
    k_.pred_reg.assign(next_pred_, -1);
    for (size_t fi = 0; fi < k_.funcs.size(); ++fi) {
      const auto& f = m_.functions[k_.funcs[fi].module_index];
      for (size_t r = 0; r < f.regs.size(); ++r) {
        if (f.regs[r].type == Type::Pred) {
          k_.pred_reg[slot_of_[fi][r]] = static_cast<int32_t>(r);
        } else {
          k_.reg_width[slot_of_[fi][r]] = std::max(8, ptx::type_bits(f.regs[r].type));
          k_.slot_reg[slot_of_[fi][r]] = static_cast<int32_t>(r);
        }
      }
    }
    k_.heads.resize(k_.code.size());
    for (size_t pc = 0; pc < k_.code.size(); ++pc) k_.heads[pc] = step_head(k_, k_.code[pc]);
    k_.zero_slots = slots_read_before_written(k_);
    share_register_slots(k_);  // after the heads: they keep the registers' own indices
    return Ok{};
  }

 private:
  // "kernel 'k'", or "function 'f' (called from kernel 'k')".
  std::string where(int32_t module_fn) const {
    if (module_fn < 0 || module_fn == root_) return "kernel '" + k_.name + "'";
    return "function '" + m_.functions[module_fn].name + "' (called from kernel '" + k_.name + "')";
  }
  // " (CUDA file.cu:12)" for an instruction with a .loc, else "".
  std::string cuda_line(const ptx::SourceLoc& user, const ptx::SourceLoc& loc) const {
    const auto& l = user.line > 0 ? user : loc;
    if (l.line <= 0 || l.file < 0 || l.file >= static_cast<int32_t>(m_.files.size())) return "";
    return " (CUDA " + m_.files[l.file] + ":" + std::to_string(l.line) + ")";
  }
  Error error(const ptx::Instruction& in, const std::string& why) const {
    return Error{m_.path, in.ptx_line,
                 "unsupported instruction '" + in.text + "' in " + where(cur_fn_) +
                     cuda_line(in.user_loc, in.loc) + (why.empty() ? "" : ": " + why)};
  }

  // Functions reachable from the kernel, in DFS order, rejecting extern calls.
  Status collect(int32_t fi) {
    std::vector<int> state(m_.functions.size(), 0);  // 0 new, 1 on the DFS path, 2 done
    return visit(fi, state);
  }
  Status visit(int32_t fi, std::vector<int>& state) {
    state[fi] = 1;
    cur_fn_ = fi;
    func_pos_[fi] = static_cast<int32_t>(k_.funcs.size());
    k_.funcs.push_back(DFunc{fi});
    if (const auto& bad = m_.functions[fi].unsupported; !bad.empty()) {
      const ptx::UnsupportedCode& u = bad.front();
      std::string msg = u.message;
      if (fi != root_) msg += " (called from kernel '" + k_.name + "')";
      return Error{m_.path, u.ptx_line, msg + cuda_line(u.user_loc, u.loc)};
    }
    for (const auto& in : m_.functions[fi].instructions) {
      if (in.op != Opcode::Call) continue;
      if (in.callee < 0 || in.callee >= static_cast<int32_t>(m_.functions.size()))
        return error(in, "indirect calls (function pointers) are not supported");
      const auto& callee = m_.functions[in.callee];
      if (calls_builtin(in)) continue;  // exec_printf.cpp
      if (callee.is_extern || (callee.instructions.empty() && callee.ptx_line == 0))
        return error(in, "'" + callee.name +
                             "' is an external device function (malloc, free, ...); WarpLab runs "
                             "functions whose PTX is in the module, and printf and assert");
      if (callee.is_entry) return error(in, "calling a kernel from device code is not supported");
      // A callee already on the DFS path is a recursive call: allowed (call_frames.h saves the
      // callee's frame at such a call); find_recursion() marks every call that needs it.
      if (state[in.callee] == 0)
        if (auto s = visit(in.callee, state); !s) return s;
      cur_fn_ = fi;
    }
    state[fi] = 2;
    return Ok{};
  }

  // Which calls are recursive: a call from function `fi` to `ci` (indices into k_.funcs) where
  // `ci` can reach `fi` again through calls, so that `ci` may already be running below it on the
  // warp's call stack. exec_control.cpp saves the callee's frame at those calls (call_frames.h).
  // A recursive function's .local variables would be shared by all its activations (WarpLab
  // gives each function one fixed frame), so such a function is refused, naming the access.
  Status find_recursion() {
    const size_t n = k_.funcs.size();
    std::vector<std::vector<int32_t>> callees(n);
    for (size_t fi = 0; fi < n; ++fi)
      for (const auto& in : m_.functions[k_.funcs[fi].module_index].instructions)
        if (in.op == Opcode::Call && !calls_builtin(in))
          callees[fi].push_back(func_pos_[in.callee]);
    reaches_.assign(n, std::vector<bool>(n, false));
    for (size_t from = 0; from < n; ++from) {
      std::vector<int32_t> todo = callees[from];
      while (!todo.empty()) {
        const int32_t c = todo.back();
        todo.pop_back();
        if (reaches_[from][c]) continue;
        reaches_[from][c] = true;
        for (int32_t next : callees[c]) todo.push_back(next);
      }
    }
    for (size_t fi = 0; fi < n; ++fi) {
      k_.funcs[fi].recursive = reaches_[fi][fi];
      if (!k_.funcs[fi].recursive) continue;
      cur_fn_ = k_.funcs[fi].module_index;
      const auto& f = m_.functions[cur_fn_];
      for (const auto& in : f.instructions)
        for (const auto& o : in.ops)
          if ((o.kind == Kind::Addr || o.kind == Kind::Symbol) &&
              o.scope == Operand::Scope::Variable && o.symbol >= 0 &&
              o.symbol < static_cast<int32_t>(m_.variables.size()) &&
              m_.variables[o.symbol].space == Space::Local)
            return Error{m_.path, in.ptx_line,
                         where(cur_fn_) + " is recursive and keeps .local memory ('" +
                             m_.variables[o.symbol].name + "', used by '" + in.text +
                             "': a local array, or a variable whose address is taken); WarpLab "
                             "runs recursive device functions whose frames are registers and "
                             ".param only" +
                             cuda_line(in.user_loc, in.loc)};
    }
    return Ok{};
  }
  // Call from k_.funcs[caller] to k_.funcs[callee] is recursive (see find_recursion).
  bool recursive_call(int32_t caller, int32_t callee) const {
    return caller == callee || reaches_[callee][caller];
  }

  void layout_registers() {
    slot_of_.resize(k_.funcs.size());
    uint32_t lane_params = 0;
    auto place = [&](const std::vector<ptx::Param>& ps) {
      uint64_t base = 0, end = 0;
      for (const auto& p : ps) end = std::max(end, p.offset + p.size);
      base = align_up(lane_params, 8);
      lane_params = static_cast<uint32_t>(base + align_up(end, 8));
      return static_cast<uint32_t>(base);
    };
    for (size_t fi = 0; fi < k_.funcs.size(); ++fi) {
      auto& df = k_.funcs[fi];
      const auto& f = m_.functions[df.module_index];
      df.reg_base = next_data_;
      df.pred_base = next_pred_;
      slot_of_[fi].resize(f.regs.size());
      for (size_t r = 0; r < f.regs.size(); ++r)
        slot_of_[fi][r] = f.regs[r].type == Type::Pred ? next_pred_++ : next_data_++;
      df.reg_count = next_data_ - df.reg_base;
      df.pred_count = next_pred_ - df.pred_base;
      df.area_begin = static_cast<uint32_t>(align_up(lane_params, 8));
      if (fi != 0) {
        df.param_base = place(f.params);
        df.return_base = place(f.returns);
      }
      // Call-scope .param slots: offsets are relative to each slot's own start.
      uint64_t base = align_up(lane_params, 8);
      df.call_param_base = static_cast<uint32_t>(base);
      for (const auto& p : f.call_params) {
        call_param_off_[{static_cast<int32_t>(fi), &p - f.call_params.data()}] = base;
        base = align_up(base + p.size, 8);
      }
      lane_params = static_cast<uint32_t>(base);
      df.area_end = std::max(lane_params, df.area_begin);
    }
    k_.lane_param_bytes = lane_params;
    cc_slot_ = next_data_++;
    k_.sink_slot = next_data_++;
    k_.sink_pred = next_pred_++;
    first_const_ = next_data_;
  }

  Status layout_variables() {
    std::set<int32_t> used;
    for (const auto& df : k_.funcs)
      for (const auto& in : m_.functions[df.module_index].instructions)
        for (const auto& o : in.ops)
          if ((o.kind == Kind::Addr || o.kind == Kind::Symbol) &&
              o.scope == Operand::Scope::Variable && o.symbol >= 0 &&
              o.symbol < static_cast<int32_t>(m_.variables.size()))
            used.insert(o.symbol);
    uint64_t shared = 0, local = 0;
    uint32_t dyn_align = 16;
    std::vector<int32_t> dynamic;
    for (int32_t v : used) {
      const auto& var = m_.variables[v];
      const uint64_t a = std::max<uint32_t>(var.align, 1);
      if (var.space == Space::Shared) {
        if (var.is_extern || var.size == 0) {
          dynamic.push_back(v);
          dyn_align = std::max<uint32_t>(dyn_align, static_cast<uint32_t>(a));
        } else {
          shared = align_up(shared, a);
          var_off_[v] = shared;
          shared += var.size;
        }
      } else if (var.space == Space::Local) {
        local = align_up(local, a);
        var_off_[v] = local;
        local += var.size;
      } else if (var.space == Space::Global || var.space == Space::Const) {
        k_.global_vars.push_back(v);
      }
    }
    const uint64_t dyn_base = align_up(shared, dyn_align);
    for (int32_t v : dynamic) var_off_[v] = dyn_base;
    k_.static_shared_bytes = shared;
    k_.dynamic_shared_align = dyn_align;
    k_.local_bytes = align_up(local, 8);
    // Each variable is within its limit (the parser checks); the kernel's totals are checked here.
    const int32_t line = m_.functions[root_].ptx_line;
    if (shared > ptx::limits::kStaticSharedBytes)
      return Error{m_.path, line,
                   "kernel '" + k_.name + "' declares " + std::to_string(shared) +
                       " bytes of static .shared memory; ptxas allows at most " +
                       std::to_string(ptx::limits::kStaticSharedBytes) +
                       " (more needs dynamic shared memory)"};
    if (k_.local_bytes > ptx::limits::kLocalBytesPerThread)
      return Error{m_.path, line,
                   "kernel '" + k_.name + "' declares " + std::to_string(k_.local_bytes) +
                       " bytes of .local memory per thread; CUDA allows at most " +
                       std::to_string(ptx::limits::kLocalBytesPerThread)};
    return Ok{};
  }

  int32_t const_slot(const ConstSlot& c) {
    auto key = std::make_tuple(static_cast<int>(c.kind), c.value, static_cast<int>(c.special),
                               static_cast<int>(c.component), c.variable);
    auto it = const_map_.find(key);
    if (it != const_map_.end()) return it->second;
    const int32_t slot = next_data_++;
    k_.consts.push_back(c);
    const_map_[key] = slot;
    return slot;
  }
  int32_t value_slot(uint64_t v) { return const_slot(ConstSlot{ConstSlot::Kind::Value, v}); }

  // The slot holding the address of a symbol operand (as seen by an instruction in `space`).
  // `own_space`: a symbol used as a value (mov %rd, smem) is its address in its own state space;
  // in a generic address expression ([smem+4] of ld without a space) it is its generic address.
  bool symbol_slot(int32_t fi, const ptx::Instruction& in, const Operand& o, Space space,
                   bool own_space, int32_t& slot, bool& kernel_param, std::string& why) {
    const auto& df = k_.funcs[fi];
    const auto& f = m_.functions[df.module_index];
    const bool generic = space == Space::Generic || space == Space::None;
    switch (o.scope) {
      case Operand::Scope::Variable: {
        if (o.symbol < 0 || o.symbol >= static_cast<int32_t>(m_.variables.size())) {
          why = "unresolved symbol";
          return false;
        }
        const auto& var = m_.variables[o.symbol];
        if (var.space == Space::Global || var.space == Space::Const) {
          slot = const_slot(
              ConstSlot{ConstSlot::Kind::GlobalVar, 0, ptx::SpecialReg::None, 0, o.symbol});
          return true;
        }
        if (var.space == Space::Shared || var.space == Space::Local) {
          uint64_t v = var_off_[o.symbol];
          if (generic && !own_space) v += var.space == Space::Shared ? kSharedWindow : kLocalWindow;
          slot = value_slot(v);
          return true;
        }
        why = "variables in the ." + std::string(ptx::space_name(var.space)) +
              " space are not supported";
        return false;
      }
      case Operand::Scope::Param:
        if (o.symbol < 0 || o.symbol >= static_cast<int32_t>(f.params.size())) break;
        if (f.is_entry) {
          kernel_param = true;
          slot = value_slot(f.params[o.symbol].offset);
        } else {
          slot = value_slot(df.param_base + f.params[o.symbol].offset);
        }
        return true;
      case Operand::Scope::Return:
        if (o.symbol < 0 || o.symbol >= static_cast<int32_t>(f.returns.size())) break;
        slot = value_slot(df.return_base + f.returns[o.symbol].offset);
        return true;
      case Operand::Scope::CallParam: {
        auto it = call_param_off_.find({fi, o.symbol});
        if (it == call_param_off_.end()) break;
        slot = value_slot(it->second);
        return true;
      }
      case Operand::Scope::Function:
        why = "function addresses (indirect calls) are not supported";
        return false;
    }
    why = "unresolved parameter symbol";
    return false;
  }

  int32_t imm_slot(const Operand& o, Type ft) {
    uint64_t bits = o.bits;
    if (ft == Type::F32) {
      if (o.imm_kind == Operand::ImmKind::F64)
        bits = num::bits_f32(static_cast<float>(num::as_f64(o.bits)));
      else if (o.imm_kind == Operand::ImmKind::Int)
        bits = num::bits_f32(static_cast<float>(static_cast<int64_t>(o.bits)));
    } else if (ft == Type::F64) {
      if (o.imm_kind == Operand::ImmKind::F32)
        bits = num::bits_f64(static_cast<double>(num::as_f32(static_cast<uint32_t>(o.bits))));
      else if (o.imm_kind == Operand::ImmKind::Int)
        bits = num::bits_f64(static_cast<double>(static_cast<int64_t>(o.bits)));
    }
    return value_slot(bits);
  }

  Status decode_function(int32_t fi) {
    const auto& df = k_.funcs[fi];
    const auto& f = m_.functions[df.module_index];
    cur_fn_ = df.module_index;
    const auto rpc = reconvergence_points(f);
    const int32_t n = static_cast<int32_t>(f.instructions.size());
    for (int32_t i = 0; i < n; ++i) {
      const auto& in = f.instructions[i];
      DInst& d = k_.code[df.entry_pc + i];
      d.ir = &in;
      d.local_pc = i;
      d.func = fi;
      d.cls = static_cast<uint8_t>(ptx::class_of(in));
      if (in.guard >= 0) {
        if (in.guard >= static_cast<int32_t>(f.regs.size()) || f.regs[in.guard].type != Type::Pred)
          return error(in, "guard is not a predicate register");
        d.guard = slot_of_[fi][in.guard];
        d.guard_neg = in.guard_neg;
      }
      std::string why;
      if (!(in.op == Opcode::Wgmma ? decode_wgmma_operands(fi, in, d, why)
                                   : decode_operands(fi, in, d, why)))
        return error(in, why);
      if (in.op == Opcode::Bra) {
        if (d.target < 0) return error(in, "branch without a label target");
        d.target += df.entry_pc;
        d.rpc = rpc[i] == kNoPc || rpc[i] < 0 ? kNoPc : rpc[i] + df.entry_pc;
      }
      if (in.op == Opcode::Call && calls_builtin(in)) {
        if (!decode_builtin_call(fi, in, d, why)) return error(in, why);
        continue;
      }
      if (in.op == Opcode::Call) {
        auto it = func_pos_.find(in.callee);
        d.callee = it->second;
        d.target = k_.funcs[d.callee].entry_pc;
        if (!decode_call(fi, in, d, why)) return error(in, why);
      }
      Handler h = pick_handler(in, d, why);
      if (!h)
        return error(in,
                     why.empty() ? "this type/modifier/operand combination is not supported" : why);
      d.fn = h;
      if (in.op == Opcode::BarrierCluster) k_.uses_cluster_barrier = true;
    }
    // The implicit return after the last instruction (a function that runs off its end returns).
    auto syn = std::make_unique<ptx::Instruction>();
    syn->op = fi == 0 ? Opcode::Exit : Opcode::Ret;
    syn->ptx_line = n ? f.instructions[n - 1].ptx_line : f.ptx_line;
    if (n) syn->loc = f.instructions[n - 1].loc, syn->user_loc = f.instructions[n - 1].user_loc;
    syn->text = "(end of " + f.name + ")";
    DInst& d = k_.code[df.entry_pc + n];
    d.ir = syn.get();
    d.local_pc = n;
    d.func = fi;
    d.cls = static_cast<uint8_t>(ptx::InstClass::Control);
    std::string why;
    d.fn = pick_control(*syn, d, why);
    synthetic_.push_back(std::move(syn));
    return Ok{};
  }

  // Parameter passing of a call: the caller's call-scope .param slots (st.param before the call,
  // ld.param after it) are copied into the callee's parameters and back from its return values.
  bool decode_call(int32_t fi, const ptx::Instruction& in, DInst& d, std::string& why) {
    const DFunc& callee = k_.funcs[d.callee];
    const auto& cf = m_.functions[callee.module_index];
    if (in.call_args.size() != cf.params.size() || in.call_returns.size() != cf.returns.size()) {
      why = "call passes " + std::to_string(in.call_args.size()) + " arguments and " +
            std::to_string(in.call_returns.size()) + " return values; '" + cf.name + "' takes " +
            std::to_string(cf.params.size()) + " and " + std::to_string(cf.returns.size());
      return false;
    }
    CallSite cs;
    cs.callee = d.callee;
    cs.recursive = recursive_call(fi, d.callee);
    for (size_t i = 0; i < in.call_args.size(); ++i) {
      uint64_t off = 0;
      if (!call_slot(fi, in.call_args[i], off)) {
        why = "call arguments must be call-scope .param";
        return false;
      }
      cs.args.push_back({static_cast<uint32_t>(off),
                         static_cast<uint32_t>(callee.param_base + cf.params[i].offset),
                         static_cast<uint32_t>(cf.params[i].size)});
    }
    for (size_t i = 0; i < in.call_returns.size(); ++i) {
      uint64_t off = 0;
      if (!call_slot(fi, in.call_returns[i], off)) {
        why = "call return values must be call-scope .param";
        return false;
      }
      cs.returns.push_back({static_cast<uint32_t>(callee.return_base + cf.returns[i].offset),
                            static_cast<uint32_t>(off), static_cast<uint32_t>(cf.returns[i].size)});
    }
    d.aux = k_.calls.size();
    k_.calls.push_back(std::move(cs));
    return true;
  }

  // A call of a function the simulator provides (declared without a body in the module).
  bool calls_builtin(const ptx::Instruction& in) const {
    const auto& callee = m_.functions[in.callee];
    return callee.instructions.empty() && is_builtin(callee.name);
  }

  // The offset of call-scope .param operand `o` of function fi in the per-lane .param area.
  bool call_slot(int32_t fi, const Operand& o, uint64_t& off) const {
    if (o.kind != Kind::Symbol || o.scope != Operand::Scope::CallParam) return false;
    auto it = call_param_off_.find({fi, o.symbol});
    if (it == call_param_off_.end()) return false;
    off = it->second;
    return true;
  }

  // A call of a function the simulator provides (vprintf, __assertfail): the CallSite holds the
  // caller's call-scope .param offsets (args[k].from, returns[k].to) for the handler to read.
  bool decode_builtin_call(int32_t fi, const ptx::Instruction& in, DInst& d, std::string& why) {
    const auto& params = m_.functions[k_.funcs[fi].module_index].call_params;
    CallSite cs;
    uint64_t off = 0;
    for (const Operand& o : in.call_args) {
      if (!call_slot(fi, o, off)) {
        why = "call arguments must be call-scope .param";
        return false;
      }
      cs.args.push_back(
          {static_cast<uint32_t>(off), 0, static_cast<uint32_t>(params[o.symbol].size)});
    }
    for (const Operand& o : in.call_returns) {
      if (!call_slot(fi, o, off)) {
        why = "call return values must be call-scope .param";
        return false;
      }
      cs.returns.push_back(
          {0, static_cast<uint32_t>(off), static_cast<uint32_t>(params[o.symbol].size)});
    }
    d.fn = builtin_handler(m_.functions[in.callee].name, cs.args.size(), cs.returns.size(), why);
    if (!d.fn) return false;
    d.aux = k_.calls.size();
    k_.calls.push_back(std::move(cs));
    return true;
  }

  // wgmma.mma_async d, a, b, scale-d, ...: the accumulators (up to 128 registers) go to a slot
  // list of their own (DecodedKernel::slot_lists[d.aux]); s[] holds A (4 registers or the
  // descriptor) then B's descriptor; p[0] is scale-d, or s[] holds it when it is a constant. The
  // immediates after scale-d are in the instruction's TensorMods (parse_wgmma.cpp). D is not in
  // d[]: the instruction writes it asynchronously, and wgmma.wait_group, not the scoreboard, says
  // when it may be read.
  bool decode_wgmma_operands(int32_t fi, const ptx::Instruction& in, DInst& d, std::string& why) {
    const auto& f = m_.functions[k_.funcs[fi].module_index];
    auto data_reg = [&](int32_t r) {
      return r >= 0 && r < static_cast<int32_t>(f.regs.size()) && f.regs[r].type != Type::Pred;
    };
    const Operand& dv = in.ops[0];
    std::vector<int32_t> list;
    for (int e = 0; e < dv.vec_count; ++e) {
      const int32_t r = dv.wide.empty() ? dv.vec[e] : dv.wide[e];
      if (!data_reg(r) || ptx::type_bits(f.regs[r].type) != 32) {
        why = "wgmma's accumulators must be 32-bit registers (no '_')";
        return false;
      }
      list.push_back(slot_of_[fi][r]);
    }
    d.aux = k_.slot_lists.size();
    k_.slot_lists.push_back(std::move(list));
    const Operand& a = in.ops[1];
    if (a.kind == Kind::Vec) {
      for (int e = 0; e < 4; ++e) {
        if (!data_reg(a.vec[e])) {
          why = "wgmma's A registers must be data registers (no '_')";
          return false;
        }
        d.s[d.ns++] = slot_of_[fi][a.vec[e]];
      }
    }
    for (const Operand* o : {&a, &in.ops[2]}) {
      if (o->kind != Kind::Reg) continue;
      if (!data_reg(o->reg) || ptx::type_bits(f.regs[o->reg].type) != 64) {
        why = "a wgmma matrix descriptor is a 64-bit register";
        return false;
      }
      d.s[d.ns++] = slot_of_[fi][o->reg];
    }
    const Operand& sd = in.ops[3];
    if (sd.kind == Kind::Imm) {
      d.s[d.ns++] = value_slot(sd.bits != 0 ? 1 : 0);
    } else {
      if (sd.reg < 0 || sd.reg >= static_cast<int32_t>(f.regs.size()) ||
          f.regs[sd.reg].type != Type::Pred) {
        why = "wgmma's scale-d is a predicate or a constant";
        return false;
      }
      if (sd.neg) d.pneg |= 1u;
      d.p[d.np++] = slot_of_[fi][sd.reg];
    }
    return true;
  }

  bool decode_operands(int32_t fi, const ptx::Instruction& in, DInst& d, std::string& why) {
    const auto& f = m_.functions[k_.funcs[fi].module_index];
    const int nd = dest_count(in);
    const Type ft = source_float_type(in);
    auto reg_ok = [&](int32_t r) { return r >= 0 && r < static_cast<int32_t>(f.regs.size()); };
    auto is_pred = [&](int32_t r) { return f.regs[r].type == Type::Pred; };
    for (int i = 0; i < static_cast<int>(in.ops.size()); ++i) {
      const Operand& o = in.ops[i];
      const bool dest = i < nd;
      if (dest) {
        auto add_dest = [&](int32_t r) {
          if (d.nd >= 4) return false;
          if (r < 0) {
            d.d[d.nd++] = k_.sink_slot;
          } else {
            if (!reg_ok(r)) return false;
            if (is_pred(r)) d.dpred |= 1u << d.nd;
            if (!is_pred(r)) d.dmask = num::width_mask(std::max(8, ptx::type_bits(f.regs[r].type)));
            d.d[d.nd++] = slot_of_[fi][r];
          }
          return true;
        };
        bool ok = true;
        if (o.kind == Kind::Reg)
          ok = add_dest(o.reg);
        else if (o.kind == Kind::Sink) {
          // A sink stands in for a predicate in "_|%p" and for data elsewhere.
          const bool pred_sink = in.pair_dest && (in.op == Opcode::Setp || i == 1);
          if (pred_sink)
            d.dpred |= 1u << d.nd, d.d[d.nd++] = k_.sink_pred;
          else
            d.d[d.nd++] = k_.sink_slot;
        } else if (o.kind == Kind::Vec) {
          for (int e = 0; e < o.vec_count && ok; ++e) ok = add_dest(o.vec[e]);
          d.vec = o.vec_count;
        } else if (o.kind == Kind::Addr && in.op == Opcode::Bar) {
          ok = false;
        } else {
          ok = false;
        }
        if (!ok) {
          why = "unsupported destination operand";
          return false;
        }
        // "d|p": what follows the bar is a predicate (setp's first destination is one too, the
        // other instructions' a data register); handlers write them as such.
        if (in.pair_dest && i == 1) {
          if (!(d.dpred & 2u)) {
            why = "the destination after '|' must be a predicate register";
            return false;
          }
          if (in.op != Opcode::Setp && (d.dpred & 1u)) {
            why = "the destination before '|' must be a data register, not a predicate";
            return false;
          }
        }
        continue;
      }
      switch (o.kind) {
        case Kind::Reg:
          if (!reg_ok(o.reg)) {
            why = "bad register";
            return false;
          }
          if (is_pred(o.reg)) {
            if (d.np >= 3) {
              why = "too many predicate operands";
              return false;
            }
            if (o.neg) d.pneg |= 1u << d.np;
            d.p[d.np++] = slot_of_[fi][o.reg];
          } else {
            if (d.ns >= DInst::kMaxSources) {
              why = "too many operands";
              return false;
            }
            d.s[d.ns++] = slot_of_[fi][o.reg];
          }
          break;
        case Kind::Imm:
          if (d.ns >= DInst::kMaxSources) {
            why = "too many operands";
            return false;
          }
          d.s[d.ns++] = imm_slot(o, ft);
          break;
        case Kind::Special:
          if (is_dynamic_special(o.special)) {
            if (in.op != Opcode::Mov) {
              why = std::string(ptx::special_reg_name(o.special)) + " may only be read by mov";
              return false;
            }
            d.aux = static_cast<uint64_t>(o.special);
            k_.uses_clock = true;
          } else {
            if (o.special >= ptx::SpecialReg::ReservedSmemBegin &&
                o.special <= ptx::SpecialReg::ReservedSmemOffset1)
              k_.uses_reserved_smem = true;
            d.s[d.ns++] =
                const_slot(ConstSlot{ConstSlot::Kind::Special, 0, o.special, o.component, -1});
          }
          break;
        case Kind::Addr: {
          if (d.ns >= DInst::kMaxSources) {
            why = "too many operands";
            return false;
          }
          int32_t slot = -1;
          if (o.reg >= 0) {
            if (!reg_ok(o.reg) || is_pred(o.reg)) {
              why = "bad address register";
              return false;
            }
            slot = slot_of_[fi][o.reg];
            if (in.space == Space::Param && f.is_entry) d.kernel_param = true;
          } else if (o.symbol >= 0) {
            if (!symbol_slot(fi, in, o, in.space, false, slot, d.kernel_param, why)) return false;
          } else {
            slot = value_slot(0);
          }
          d.s[d.ns++] = slot;
          d.offset = o.offset;
          break;
        }
        case Kind::Symbol: {
          if (d.ns >= DInst::kMaxSources) {
            why = "too many operands";
            return false;
          }
          int32_t slot = -1;
          bool kp = false;
          if (!symbol_slot(fi, in, o, Space::None, true, slot, kp, why)) return false;
          d.s[d.ns++] = slot;
          break;
        }
        case Kind::Vec:
          for (int e = 0; e < o.vec_count; ++e) {
            if (d.ns >= DInst::kMaxSources) {
              why = "too many operands";
              return false;
            }
            const int32_t r = o.wide.empty() ? o.vec[e] : o.wide[e];
            if (r < 0) {
              d.s[d.ns++] = value_slot(0);
              continue;
            }
            if (!reg_ok(r) || is_pred(r)) {
              why = "bad vector element";
              return false;
            }
            d.s[d.ns++] = slot_of_[fi][r];
          }
          d.vec = o.vec_count;
          break;
        case Kind::Label:
          d.target = o.label;
          break;
        case Kind::Sink:
          d.s[d.ns++] = k_.sink_slot;
          break;
        case Kind::None:
          break;
      }
    }
    if (in.mod.carry_out || in.op == Opcode::Addc || in.op == Opcode::Subc || in.op == Opcode::Madc)
      d.aux = static_cast<uint64_t>(cc_slot_);
    return true;
  }

  const ptx::Module& m_;
  DecodedKernel& k_;
  int32_t root_;
  int32_t cur_fn_ = -1;  // module index of the function being collected or decoded (errors)
  std::vector<std::vector<int32_t>> slot_of_;
  std::map<int32_t, int32_t> func_pos_;
  // [a][b]: k_.funcs[a] can call k_.funcs[b], directly or through others (find_recursion).
  std::vector<std::vector<bool>> reaches_;
  std::map<std::pair<int32_t, ptrdiff_t>, uint64_t> call_param_off_;
  std::map<int32_t, uint64_t> var_off_;
  std::map<std::tuple<int, uint64_t, int, int, int32_t>, int32_t> const_map_;
  int32_t next_data_ = 0, next_pred_ = 0, cc_slot_ = 0, first_const_ = 0;

 public:
  std::vector<std::unique_ptr<ptx::Instruction>> synthetic_;
};

}  // namespace

Expected<std::shared_ptr<const DecodedModule>> decode_module(ptx::Module module) {
  auto dm = std::make_shared<DecodedModule>();
  dm->module = std::move(module);
  const auto& m = dm->module;
  // Each kernel with the functions it calls. A kernel that cannot be decoded keeps its error
  // (reported when it is launched); functions no kernel calls are never decoded.
  for (int32_t fi = 0; fi < static_cast<int32_t>(m.functions.size()); ++fi) {
    const auto& f = m.functions[fi];
    if (f.is_extern || !f.is_entry) continue;
    DecodedKernel k;
    KernelBuilder b(m, k, fi);
    if (auto s = b.build(); !s) {
      dm->kernel_errors.emplace(f.name, s.error());
      continue;
    }
    k.synthetic = std::move(b.synthetic_);
    dm->kernel_index[f.name] = static_cast<int32_t>(dm->kernels.size());
    dm->kernels.push_back(std::move(k));
  }
  return std::shared_ptr<const DecodedModule>(std::move(dm));
}

}  // namespace warplab::func
