// Operands of PTX instructions: registers (with "!" negation for predicates), special registers
// (%tid.x ...), immediates (decimal, hex, octal, binary integers; 0f/0d float bit patterns;
// decimal floats, which PTX reads as f64), address expressions ([reg], [reg+imm], [symbol+imm],
// [imm]), vectors {%r1, _, %r3} and the operand lists of call statements.
//
// Names that are not known yet (labels and functions used before their definition) are recorded
// as pending and resolved when the function ends (parser.cpp).
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {

// How many operands an instruction takes ("d|p" counts as one), or -1 when it varies.
int operand_count(const Instruction& inst) {
  switch (inst.op) {
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul:
    case Opcode::Div:
    case Opcode::Rem:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Shl:
    case Opcode::Shr:
    case Opcode::Copysign:
    case Opcode::Mul24:
    case Opcode::Addc:
    case Opcode::Subc:
      return 3;
    case Opcode::Setp:
    case Opcode::Set:
      return inst.mod.bool_op != BoolOp::None ? 4 : 3;
    case Opcode::Mad:
    case Opcode::Madc:
    case Opcode::Mad24:
    case Opcode::Fma:
    case Opcode::Bfe:
    case Opcode::Sad:
    case Opcode::Selp:
    case Opcode::Slct:
    case Opcode::Prmt:
    case Opcode::Dp4a:
    case Opcode::Dp2a:
    case Opcode::Shf:
    case Opcode::Fns:
      return 4;
    case Opcode::Bfi:
    case Opcode::Lop3:
      return 5;
    case Opcode::Abs:
    case Opcode::Neg:
    case Opcode::Not:
    case Opcode::Cnot:
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Brev:
    case Opcode::Bfind:
    case Opcode::Rcp:
    case Opcode::Sqrt:
    case Opcode::Rsqrt:
    case Opcode::Sin:
    case Opcode::Cos:
    case Opcode::Lg2:
    case Opcode::Ex2:
    case Opcode::Tanh:
    case Opcode::Cvta:
    case Opcode::Mov:
    case Opcode::Testp:
    case Opcode::Isspacep:
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
      return 2;
    case Opcode::Cvt:
      return inst.type == Type::F16x2 || inst.type == Type::BF16x2 ? 3 : 2;
    case Opcode::Atom:
      return inst.mod.atom == AtomOp::Cas ? 4 : 3;
    case Opcode::Red:
      return 2;
    case Opcode::Shfl:
      return 5;
    case Opcode::Mma:
      return 4;
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
    case Opcode::Movmatrix:
      return 2;
    case Opcode::Vote:
    case Opcode::Match:
    case Opcode::Redux:
      return 3;
    case Opcode::Activemask:
    case Opcode::Nanosleep:
    case Opcode::Bra:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
      return 1;
    case Opcode::PrefetchTensormap:
      return 1;
    case Opcode::Fence:  // fence.proxy.tensormap::generic.acquire.<scope> [addr], 128
      return inst.mod.proxy_tensormap && inst.mod.mem_sem == MemSem::Acquire ? 2 : 0;
    case Opcode::Membar:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
      return 0;
    default:
      return -1;  // bar (1 to 4), call (parsed separately)
  }
}

void Parser::parse_operands(Instruction& inst, std::string_view opcode_text) {
  if (inst.op == Opcode::CpAsyncBulkTensor || inst.op == Opcode::CpAsyncBulkPrefetchTensor) {
    parse_tma_operands(inst, opcode_text);  // parse_tma.cpp
    return;
  }
  const int expected = operand_count(inst);
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  int count = 0;
  if (!peek().is(';')) {
    while (true) {
      inst.ops.push_back(
          parse_operand(inst, PendingName::Where::Op, static_cast<int32_t>(inst.ops.size())));
      ++count;
      if (count == 1 && peek().is('|')) {
        take();
        inst.ops.push_back(
            parse_operand(inst, PendingName::Where::Op, static_cast<int32_t>(inst.ops.size())));
        inst.pair_dest = true;
      }
      if (peek().is(';')) break;
      if (!peek().is(',')) {
        const std::string after = " after operand " + std::to_string(count) + " of " + quoted;
        if (expected < 0) fail_at(peek(), "',' or ';'" + after);
        fail_at(peek(), (count < expected ? "','" : "';'") + after);
      }
      if (expected >= 0 && count >= expected)
        fail(peek().line, quoted + " takes " + std::to_string(expected) + " operand" +
                              (expected == 1 ? "" : "s") + ", found more");
      take();
    }
  }
  const Token& semi = take();  // ';'
  if (expected >= 0 && count != expected)
    fail(semi.line, quoted + " takes " + std::to_string(expected) + " operand" +
                        (expected == 1 ? "" : "s") + ", found " + std::to_string(count));
  // Where the address goes.
  int addr_at = -1;
  switch (inst.op) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::Atom:
    case Opcode::Ldmatrix:
      addr_at = 1;
      break;
    case Opcode::St:
    case Opcode::Stmatrix:
    case Opcode::Red:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::PrefetchTensormap:
      addr_at = 0;
      break;
    default:
      break;
  }
  if (addr_at >= 0) {
    const size_t at = static_cast<size_t>(addr_at) + (inst.pair_dest && addr_at > 0 ? 1 : 0);
    if (at >= inst.ops.size() || inst.ops[at].kind != Operand::Kind::Addr)
      fail(semi.line,
           quoted + " needs an address '[...]' as operand " + std::to_string(addr_at + 1));
  }
  if (inst.op == Opcode::Bra && inst.ops[0].kind != Operand::Kind::Label)
    fail(semi.line, quoted + " needs a label as its target");
}

Operand Parser::parse_operand(Instruction& inst, PendingName::Where where, int32_t index) {
  const Token& t = peek();
  Operand op;
  if (t.is('!')) {
    take();
    const Token& r = expect_word("a predicate register after '!'");
    const int32_t reg = find_reg(r.text);
    if (reg < 0 || fn().regs[static_cast<size_t>(reg)].type != Type::Pred)
      fail(r.line, "expected a declared .pred register after '!', found " + describe(r));
    op.kind = Operand::Kind::Reg;
    op.reg = reg;
    op.neg = true;
    return op;
  }
  if (t.is('{')) return parse_vector(inst.op == Opcode::Wgmma);
  if (t.is('[')) return parse_address({});
  if (t.is('-')) {
    take();
    const Token& n = peek();
    if (n.kind != Token::Kind::Number) fail_at(n, "a number after '-'");
    take();
    return parse_immediate(n, true);
  }
  if (t.kind == Token::Kind::Number) {
    take();
    return parse_immediate(t, false);
  }
  if (t.kind != Token::Kind::Word) fail_at(t, "an operand");
  take();
  const std::string_view name = t.text;
  if (name == "_") {
    op.kind = Operand::Kind::Sink;
    return op;
  }
  if (name == "WARP_SZ") {  // PTX's predefined constant (CUDA's warpSize compiles to it)
    op.kind = Operand::Kind::Imm;
    op.imm_kind = Operand::ImmKind::Int;
    op.bits = 32;
    return op;
  }
  if (const int32_t reg = find_reg(name); reg >= 0) {
    op.kind = Operand::Kind::Reg;
    op.reg = reg;
    return op;
  }
  if (name[0] == '%') {
    if (auto special = special_register(name)) return *special;
    fail(t.line, "undeclared register '" + std::string(name) + "' in " + function_kind_and_name());
  }
  if (const auto sym = find_symbol(name)) {
    op.kind = Operand::Kind::Symbol;
    op.scope = sym->first;
    op.symbol = sym->second;
    return op;
  }
  // A label or a function, perhaps declared later: resolved when the function (module) ends.
  op.kind = Operand::Kind::Label;
  pending_labels_.push_back(PendingName{fn_index_, static_cast<int32_t>(fn().instructions.size()),
                                        where, index, std::string(name), t.line});
  return op;
}

Operand Parser::parse_address(std::string_view) {
  const Token& open = expect('[', "to open an address");
  Operand op;
  op.kind = Operand::Kind::Addr;
  const Token& t = peek();
  if (t.kind == Token::Kind::Word) {
    take();
    if (const int32_t reg = find_reg(t.text); reg >= 0) {
      op.reg = reg;
    } else if (const auto sym = find_symbol(t.text)) {
      op.scope = sym->first;
      op.symbol = sym->second;
    } else {
      fail(t.line, "undeclared register or symbol '" + std::string(t.text) + "' in an address in " +
                       function_kind_and_name());
    }
  } else if (t.kind == Token::Kind::Number) {
    take();
    const Operand imm = parse_immediate(t, false);
    if (imm.imm_kind != Operand::ImmKind::Int) fail_at(t, "an integer address");
    op.offset = static_cast<int64_t>(imm.bits);
    expect(']', "to close the address");
    return op;
  } else {
    fail_at(t, "a register, symbol or number after '['");
  }
  const bool plus = accept('+');
  const bool minus = accept('-');
  if (plus || minus) {
    const Token& n = peek();
    if (n.kind != Token::Kind::Number) fail_at(n, "an offset in the address");
    take();
    const Operand imm = parse_immediate(n, minus);
    if (imm.imm_kind != Operand::ImmKind::Int) fail_at(n, "an integer offset in the address");
    op.offset = static_cast<int64_t>(imm.bits);
  }
  if (!peek().is(']'))
    fail_at(peek(), "']' to close the address opened at line " + std::to_string(open.line));
  take();
  return op;
}

Operand Parser::parse_vector(bool wide_ok) {
  expect('{', "to open a vector");
  Operand op;
  op.kind = Operand::Kind::Vec;
  std::vector<int32_t> all;
  while (true) {
    const Token& t = peek();
    if (t.kind != Token::Kind::Word) fail_at(t, "a register or '_' in the vector operand");
    take();
    int32_t reg = -1;
    if (t.text != "_") {
      reg = find_reg(t.text);
      if (reg < 0)
        fail(t.line, "undeclared register '" + std::string(t.text) + "' in a vector operand in " +
                         function_kind_and_name());
    }
    if (op.vec_count >= (wide_ok ? 128 : 4))
      fail(t.line, wide_ok ? "a wgmma accumulator vector holds at most 128 registers"
                           : "a vector operand holds at most 4 elements");
    if (op.vec_count < 4) op.vec[op.vec_count] = reg;
    ++op.vec_count;
    all.push_back(reg);
    if (accept('}')) {
      if (all.size() > 4) op.wide = std::move(all);
      return op;
    }
    if (!peek().is(',')) fail_at(peek(), "',' or '}' in the vector operand");
    take();
  }
}

Operand Parser::parse_immediate(const Token& number, bool negative) {
  Operand op;
  op.kind = Operand::Kind::Imm;
  std::string_view s = number.text;
  auto hex_bits = [&](std::string_view digits, size_t width) -> uint64_t {
    uint64_t v = 0;
    if (digits.size() != width)
      fail_at(number, std::to_string(width) + " hex digits after '0" + std::string(1, s[1]) + "'");
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (ec != std::errc() || p != digits.data() + digits.size())
      fail_at(number, "a hexadecimal literal");
    return v;
  };
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    op.imm_kind = Operand::ImmKind::F32;
    op.bits = hex_bits(s.substr(2), 8) ^ (negative ? 0x80000000ull : 0);
    return op;
  }
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    op.imm_kind = Operand::ImmKind::F64;
    op.bits = hex_bits(s.substr(2), 16) ^ (negative ? 0x8000000000000000ull : 0);
    return op;
  }
  const bool hex = s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const bool bin = s.size() >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B');
  if (!hex && s.find_first_of(".eE") != std::string_view::npos) {
    const std::string str(s);
    char* end = nullptr;
    double d = std::strtod(str.c_str(), &end);
    if (end != str.c_str() + str.size()) fail_at(number, "a number");
    if (negative) d = -d;
    op.imm_kind = Operand::ImmKind::F64;
    std::memcpy(&op.bits, &d, 8);
    return op;
  }
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
  int base = 10;
  if (hex)
    base = 16, s.remove_prefix(2);
  else if (bin)
    base = 2, s.remove_prefix(2);
  else if (s.size() > 1 && s[0] == '0')
    base = 8, s.remove_prefix(1);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec == std::errc::result_out_of_range)
    fail(number.line, "integer literal " + describe(number) + " does not fit in 64 bits");
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) fail_at(number, "a number");
  op.imm_kind = Operand::ImmKind::Int;
  op.bits = negative ? ~v + 1 : v;
  return op;
}

std::optional<Operand> Parser::special_register(std::string_view name) const {
  constexpr std::pair<std::string_view, SpecialReg> kVector[] = {
      {"%tid", SpecialReg::Tid},
      {"%ntid", SpecialReg::Ntid},
      {"%ctaid", SpecialReg::Ctaid},
      {"%nctaid", SpecialReg::Nctaid},
      {"%clusterid", SpecialReg::ClusterId},
      {"%nclusterid", SpecialReg::NClusterId},
      {"%cluster_ctaid", SpecialReg::ClusterCtaId},
      {"%cluster_nctaid", SpecialReg::ClusterNCtaId}};
  constexpr std::pair<std::string_view, SpecialReg> kScalar[] = {
      {"%laneid", SpecialReg::Laneid},
      {"%cluster_ctarank", SpecialReg::ClusterCtaRank},
      {"%cluster_nctarank", SpecialReg::ClusterNCtaRank},
      {"%is_explicit_cluster", SpecialReg::IsExplicitCluster},
      {"%warpid", SpecialReg::Warpid},
      {"%nwarpid", SpecialReg::Nwarpid},
      {"%smid", SpecialReg::Smid},
      {"%nsmid", SpecialReg::Nsmid},
      {"%gridid", SpecialReg::Gridid},
      {"%clock", SpecialReg::Clock},
      {"%clock64", SpecialReg::Clock64},
      {"%globaltimer", SpecialReg::Globaltimer},
      {"%lanemask_eq", SpecialReg::LanemaskEq},
      {"%lanemask_lt", SpecialReg::LanemaskLt},
      {"%lanemask_le", SpecialReg::LanemaskLe},
      {"%lanemask_gt", SpecialReg::LanemaskGt},
      {"%lanemask_ge", SpecialReg::LanemaskGe},
      {"%total_smem_size", SpecialReg::TotalSmemSize},
      {"%dynamic_smem_size", SpecialReg::DynamicSmemSize},
      {"%reserved_smem_offset_begin", SpecialReg::ReservedSmemBegin},
      {"%reserved_smem_offset_end", SpecialReg::ReservedSmemEnd},
      {"%reserved_smem_offset_cap", SpecialReg::ReservedSmemCap},
      {"%reserved_smem_offset_0", SpecialReg::ReservedSmemOffset0},
      {"%reserved_smem_offset_1", SpecialReg::ReservedSmemOffset1}};
  Operand op;
  op.kind = Operand::Kind::Special;
  const size_t dot = name.find('.');
  const std::string_view base = name.substr(0, dot);
  for (const auto& [n, r] : kVector) {
    if (n != base) continue;
    const std::string_view c = dot == name.npos ? std::string_view{} : name.substr(dot + 1);
    if (c != "x" && c != "y" && c != "z")
      fail(peek().line,
           "special register '" + std::string(name) + "' needs a component .x, .y or .z");
    op.special = r;
    op.component = static_cast<uint8_t>(c[0] - 'x');
    return op;
  }
  if (name.rfind("%envreg", 0) == 0)
    fail_unsupported(
        peek().line,
        "'" + std::string(name) +
            "' is a driver register that cooperative launches read (grid-wide sync, "
            "cooperative_groups::this_grid().sync()); cooperative launches and grid-wide sync are "
            "not supported by the simulator");
  if (dot != name.npos) return std::nullopt;
  for (const auto& [n, r] : kScalar) {
    if (n != name) continue;
    op.special = r;
    return op;
  }
  return std::nullopt;
}

void Parser::parse_call_operands(Instruction& inst, std::string_view opcode_text) {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  const int32_t inst_index = static_cast<int32_t>(fn().instructions.size());
  auto param_list = [&](std::vector<Operand>& out, PendingName::Where where,
                        std::string_view what) {
    expect('(', "to open the " + std::string(what) + " list of " + quoted);
    if (accept(')')) return;
    while (true) {
      const Token& t = peek();
      if (t.kind != Token::Kind::Word)
        fail_at(t, "a parameter name in the " + std::string(what) + " list of " + quoted);
      out.push_back(parse_operand(inst, where, static_cast<int32_t>(out.size())));
      if (accept(')')) return;
      if (!peek().is(','))
        fail_at(peek(), "',' or ')' in the " + std::string(what) + " list of " + quoted);
      take();
    }
  };
  // call{.uni} [(ret), ] fname [, (args)] ;
  if (peek().is('(')) {
    param_list(inst.call_returns, PendingName::Where::CallReturn, "return");
    expect(',', "after the return list of " + quoted);
  }
  const Token& callee = peek();
  if (callee.kind != Token::Kind::Word) fail_at(callee, "a function name in " + quoted);
  take();
  if (find_reg(callee.text) >= 0)
    fail(callee.line, "indirect calls through a register ('" + std::string(callee.text) +
                          "') are not supported");
  pending_functions_.push_back(PendingName{fn_index_, inst_index, PendingName::Where::Callee, 0,
                                           std::string(callee.text), callee.line});
  if (accept(',')) {
    param_list(inst.call_args, PendingName::Where::CallArg, "argument");
    if (accept(',')) fail(peek().line, "calls with a prototype (indirect calls) are not supported");
  }
  expect(';', "after " + quoted);
  for (const Operand& op : inst.call_returns)
    if (op.kind != Operand::Kind::Symbol || op.scope != Operand::Scope::CallParam)
      fail(callee.line, quoted + ": return values must be .param variables of the call scope");
  for (const Operand& op : inst.call_args)
    if (op.kind == Operand::Kind::Label)
      fail(callee.line, quoted + ": undeclared argument in the argument list");
}

}  // namespace warplab::ptx::detail
