#include "sim/ptx/disasm.h"

#include <cinttypes>
#include <cstdio>

namespace warplab::ptx {
namespace {

std::string hex(uint64_t v, int digits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*" PRIX64, digits, v);
  return buf;
}

std::string symbol_name(const Module& m, const Function& f, Operand::Scope scope, int32_t i) {
  const auto at = [i](const auto& v) -> std::string {
    return i >= 0 && static_cast<size_t>(i) < v.size() ? v[static_cast<size_t>(i)].name : "?";
  };
  switch (scope) {
    case Operand::Scope::Variable: {
      // Function-scope variables are written under their PTX name inside their function.
      std::string name = at(m.variables);
      const size_t sep = name.find("::");
      return sep == std::string::npos ? name : name.substr(sep + 2, name.find('#') - sep - 2);
    }
    case Operand::Scope::Param:
      return at(f.params);
    case Operand::Scope::Return:
      return at(f.returns);
    case Operand::Scope::CallParam:
      return at(f.call_params);
    case Operand::Scope::Function:
      return at(m.functions);
  }
  return "?";
}

std::string reg_name(const Function& f, int32_t r) {
  return r >= 0 && static_cast<size_t>(r) < f.regs.size() ? f.regs[static_cast<size_t>(r)].name
                                                          : "%?";
}

std::string operand(const Module& m, const Function& f, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::None:
      return "";
    case Operand::Kind::Reg:
      return (o.neg ? "!" : "") + reg_name(f, o.reg);
    case Operand::Kind::Imm:
      if (o.imm_kind == Operand::ImmKind::F32) return "0f" + hex(o.bits, 8);
      if (o.imm_kind == Operand::ImmKind::F64) return "0d" + hex(o.bits, 16);
      return std::to_string(static_cast<int64_t>(o.bits));
    case Operand::Kind::Addr: {
      std::string s = "[";
      if (o.reg >= 0)
        s += reg_name(f, o.reg);
      else if (o.symbol >= 0)
        s += symbol_name(m, f, o.scope, o.symbol);
      else
        return "[" + std::to_string(o.offset) + "]";
      if (o.offset != 0) s += (o.offset > 0 ? "+" : "") + std::to_string(o.offset);
      return s + "]";
    }
    case Operand::Kind::Vec: {
      std::string s = "{";
      for (int i = 0; i < o.vec_count; ++i) {
        if (i) s += ", ";
        s += o.vec[static_cast<size_t>(i)] < 0 ? "_" : reg_name(f, o.vec[static_cast<size_t>(i)]);
      }
      return s + "}";
    }
    case Operand::Kind::Label:
      for (const auto& [name, at] : f.labels)
        if (at == o.label) return name;
      return "$L_" + std::to_string(o.label);
    case Operand::Kind::Special: {
      std::string s(special_reg_name(o.special));
      if (o.special == SpecialReg::Tid || o.special == SpecialReg::Ntid ||
          o.special == SpecialReg::Ctaid || o.special == SpecialReg::Nctaid)
        s += std::string(".") + static_cast<char>('x' + o.component);
      return s;
    }
    case Operand::Kind::Symbol:
      return symbol_name(m, f, o.scope, o.symbol);
    case Operand::Kind::Sink:
      return "_";
  }
  return "?";
}

std::string_view atom_name(AtomOp a) {
  constexpr std::string_view n[] = {"",    "add",  "min", "max", "inc", "dec",
                                    "cas", "exch", "and", "or",  "xor"};
  return n[static_cast<int>(a)];
}

std::string mnemonic(const Instruction& in) {
  const Modifiers& m = in.mod;
  // The asynchronous families keep their modifiers as written (parse_async.cpp reads them in any
  // of the orders PTX allows): the mnemonic is the text's first word after the guard.
  if ((is_async_op(in.op) || is_wgmma_op(in.op)) && !in.text.empty()) {
    size_t b = 0;
    if (in.text[0] == '@') b = in.text.find(' ') + 1;
    const size_t e = in.text.find_first_of(" ;", b);
    return in.text.substr(b, e == std::string::npos ? std::string::npos : e - b);
  }
  std::string s(opcode_info(in.op).name);
  auto add = [&s](std::string_view part) {
    if (!part.empty()) s += "." + std::string(part);
  };
  if (in.op == Opcode::BarrierCluster) {  // barrier.cluster.arrive.release.aligned
    s += m.bar == BarMode::Arrive ? ".arrive" : ".wait";
    if (m.bar == BarMode::Arrive && m.mem_sem == MemSem::Relaxed) s += ".relaxed";
    if (m.aligned) s += ".aligned";
    return s;
  }
  if (in.op == Opcode::Setmaxnreg)  // setmaxnreg.inc.sync.aligned (the type follows)
    s += m.atom == AtomOp::Inc ? ".inc.sync.aligned" : ".dec.sync.aligned";
  if (in.op == Opcode::Bar) {
    if (m.bar == BarMode::WarpSync) return "bar.warp.sync";
    s = m.aligned ? "bar" : "barrier";
    constexpr std::string_view modes[] = {"", "sync", "arrive", "red", ""};
    add(modes[static_cast<int>(m.bar)]);
    if (m.popc) add("popc");
    if (m.bar_red == BoolOp::And) add("and");
    if (m.bar_red == BoolOp::Or) add("or");
  }
  if (in.op == Opcode::Membar) {
    constexpr std::string_view scopes[] = {"", "cta", "gl", "sys", "cluster"};
    add(scopes[static_cast<int>(m.mem_scope)]);
    return s;
  }
  if (m.volatile_) add("volatile");
  if (m.proxy_async) add("proxy.async");
  if (m.mbarrier_init) add("mbarrier_init");
  constexpr std::string_view sems[] = {"",        "weak",    "relaxed", "acquire",
                                       "release", "acq_rel", "sc"};
  add(sems[static_cast<int>(m.mem_sem)]);
  constexpr std::string_view scopes[] = {"", "cta", "gpu", "sys", "cluster"};
  add(scopes[static_cast<int>(m.mem_scope)]);
  if (in.op == Opcode::Cvta && m.to_space) add("to");
  if ((in.op == Opcode::Shfl || in.op == Opcode::Vote || in.op == Opcode::Redux) && m.sync)
    add("sync");
  if (in.space != Space::None && in.space != Space::Generic) add(space_name(in.space));
  constexpr std::string_view caches[] = {"", "ca", "cg", "cs", "lu", "cv", "wb", "wt"};
  add(caches[static_cast<int>(m.cache)]);
  if (m.nc) add("nc");
  if (m.mode_l2_evict) add("L2::evict_last");
  add(cmp_name(m.cmp));
  if (in.op == Opcode::Setp || in.op == Opcode::Set) {
    constexpr std::string_view ops[] = {"", "and", "or", "xor"};
    add(ops[static_cast<int>(m.bool_op)]);
  }
  constexpr std::string_view muls[] = {"", "lo", "hi", "wide"};
  add(muls[static_cast<int>(m.mul)]);
  constexpr std::string_view shfls[] = {"", "up", "down", "bfly", "idx"};
  add(shfls[static_cast<int>(m.shfl)]);
  constexpr std::string_view votes[] = {"", "all", "any", "uni", "ballot"};
  add(votes[static_cast<int>(m.vote)]);
  if (in.op == Opcode::Match) {
    add(m.match_all ? "all" : "any");
    if (m.sync) add("sync");
  }
  add(atom_name(m.atom));
  constexpr std::string_view testps[] = {"",           "finite", "infinite", "number",
                                         "notanumber", "normal", "subnormal"};
  add(testps[static_cast<int>(m.testp)]);
  constexpr std::string_view shfs[] = {"", "l.wrap", "l.clamp", "r.wrap", "r.clamp"};
  add(shfs[static_cast<int>(m.shf)]);
  if (m.shiftamt) add("shiftamt");
  if (m.nan) add("NaN");
  if (m.xorsign) add("xorsign");
  if (m.abs) add("abs");
  if (m.uni) add("uni");
  add(rounding_name(m.rounding));
  if (m.relu) add("relu");
  if (m.approx) add("approx");
  if (m.full) add("full");
  if (m.ftz) add("ftz");
  if (m.sat) add("sat");
  if (m.carry_out) add("cc");
  if (m.aligned && in.op != Opcode::Bar) add("aligned");
  if (m.vec > 1) add("v" + std::to_string(m.vec));
  add(type_name(in.type));
  add(type_name(in.type2));
  constexpr std::string_view prmts[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  add(prmts[static_cast<int>(m.prmt)]);
  return s;
}

}  // namespace

std::string disassemble(const Module& module, const Function& function, const Instruction& inst) {
  std::string s;
  if (inst.guard >= 0) s += (inst.guard_neg ? "@!" : "@") + reg_name(function, inst.guard) + " ";
  s += mnemonic(inst);
  if (inst.op == Opcode::Call) {
    const auto list = [&](const std::vector<Operand>& ops) {
      std::string l = "(";
      for (size_t i = 0; i < ops.size(); ++i)
        l += (i ? ", " : "") + operand(module, function, ops[i]);
      return l + ")";
    };
    s += " ";
    if (!inst.call_returns.empty()) s += list(inst.call_returns) + ", ";
    s += inst.callee >= 0 && static_cast<size_t>(inst.callee) < module.functions.size()
             ? module.functions[static_cast<size_t>(inst.callee)].name
             : "?";
    if (!inst.call_args.empty()) s += ", " + list(inst.call_args);
    return s + ";";
  }
  for (size_t i = 0; i < inst.ops.size(); ++i) {
    if (i == 1 && inst.pair_dest)
      s += "|";
    else
      s += i ? ", " : " ";
    s += operand(module, function, inst.ops[i]);
  }
  return s + ";";
}

}  // namespace warplab::ptx
