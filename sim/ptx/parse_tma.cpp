// TMA tensor copies and tensor maps in the PTX front end:
//   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
//       [dst], [tensorMap, {c0, ..}], [mbar]{, policy}
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tensorMap, {c0, ..}], [src]
//   cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile} [tensorMap, {c0, ..}]{, policy}
//   tensormap.replace.tile.<field>{.global|.shared::cta}.b1024.<b32|b64> [map], {ord,} value
//   tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.<scope>.sync.aligned
//       [dst], [src], 128
// (prefetch.tensormap and fence.proxy.tensormap::generic are prefetch's and fence's modifiers,
// parse_instruction.cpp.) The tensor map and its coordinates share one bracket: the map's address
// becomes an address operand, the coordinates a vector operand right after it. What WarpLab does
// not simulate (im2col and gather modes, multicast to a cluster) is refused as unsupported code.
#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {

void Parser::apply_tma_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                                 std::string_view opcode_text, int line) {
  Modifiers& mod = inst.mod;
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  const size_t n = parts.size();
  auto unknown = [&](std::string_view m) {
    fail(line, "unknown modifier '." + std::string(m) + "' in " + quoted);
  };
  auto unsupported = [&](const std::string& what) {
    fail_unsupported(line, quoted + ": " + what + " is not simulated");
  };
  // ---- tensormap.replace / tensormap.cp_fenceproxy
  if (inst.op == Opcode::TensormapReplace) {
    if (n < 2) fail(line, quoted + " needs .replace or .cp_fenceproxy");
    if (parts[1] == "cp_fenceproxy") {
      inst.op = Opcode::TensormapCpFenceproxy;
      bool global = false, shared = false, release = false;
      for (size_t i = 2; i < n; ++i) {
        const std::string_view m = parts[i];
        if (m == "global" && !shared)
          global = true;
        else if ((m == "shared::cta" || m == "shared") && global)
          shared = true;
        else if (m == "tensormap::generic")
          mod.proxy_tensormap = true;
        else if (m == "release")
          release = true, mod.mem_sem = MemSem::Release;
        else if (m == "cta" || m == "cluster" || m == "gpu" || m == "sys")
          mod.mem_scope = m == "cta"       ? MemScope::Cta
                          : m == "cluster" ? MemScope::Cluster
                          : m == "gpu"     ? MemScope::Gpu
                                           : MemScope::Sys;
        else if (m == "sync")
          mod.sync = true;
        else if (m == "aligned")
          mod.aligned = true;
        else
          unknown(m);
      }
      if (!global || !shared || !mod.proxy_tensormap || !release || !mod.sync || !mod.aligned)
        fail(line, quoted +
                       ": expected tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic."
                       "release.<scope>.sync.aligned");
      inst.space = Space::Global;
      mod.async_src = Space::Shared;
      return;
    }
    if (parts[1] != "replace") fail(line, quoted + ": expected tensormap.replace or .cp_fenceproxy");
    if (n < 3 || parts[2] != "tile") fail(line, quoted + ": tensormap.replace needs the mode .tile");
    constexpr std::string_view kFields[] = {
        "global_address", "rank",         "box_dim",      "global_dim",
        "global_stride",  "element_stride", "elemtype",   "interleave_layout",
        "swizzle_mode",   "swizzle_atomicity", "fill_mode"};
    int field = -1;
    inst.space = Space::Generic;
    bool b1024 = false;
    for (size_t i = 3; i < n; ++i) {
      const std::string_view m = parts[i];
      bool known = false;
      for (int f = 0; f < 11; ++f)
        if (m == kFields[f] && field < 0) field = f, known = true;
      if (known) continue;
      if (m == "global")
        inst.space = Space::Global;
      else if (m == "shared::cta" || m == "shared")
        inst.space = Space::Shared;
      else if (m == "b1024")
        b1024 = true;
      else if (m == "b32" || m == "b64")
        inst.type = m == "b32" ? Type::B32 : Type::B64;
      else
        unknown(m);
    }
    if (field < 0) fail(line, quoted + " needs a field (.global_address, .rank, .box_dim, ...)");
    const bool wide = field == 0 || field == 4;
    if (!b1024 || inst.type != (wide ? Type::B64 : Type::B32))
      fail(line, quoted + " needs .b1024" + (wide ? ".b64" : ".b32") + " for this field");
    mod.tmap_field = static_cast<uint8_t>(field);
    return;
  }
  // ---- cp.async.bulk.tensor / cp.async.bulk.prefetch.tensor
  const bool prefetch = parts[3] == "prefetch";
  inst.op = prefetch ? Opcode::CpAsyncBulkPrefetchTensor : Opcode::CpAsyncBulkTensor;
  int spaces = 0;
  bool completion = false, l2 = false;
  for (size_t i = prefetch ? 5 : 4; i < n; ++i) {
    const std::string_view m = parts[i];
    if (m.size() == 2 && m[1] == 'd' && m[0] >= '1' && m[0] <= '5' && mod.tma_rank == 0) {
      mod.tma_rank = static_cast<uint8_t>(m[0] - '0');
    } else if (m == "L2::cache_hint") {
      mod.cache_hint = true;
    } else if (m == "tile") {
    } else if (m.substr(0, 6) == "im2col" || m.substr(0, 4) == "tile" ) {
      unsupported("the ." + std::string(m) + " load mode");
    } else if (m == "L2" && prefetch) {
      l2 = true;
    } else if (m == "global" || m == "shared::cta" || m == "shared" || m == "shared::cluster") {
      const Space s = m == "global" ? Space::Global : Space::Shared;
      if (spaces == 0)
        inst.space = s;
      else if (spaces == 1 && !prefetch)
        mod.async_src = s;
      else
        fail(line, quoted + ": too many state spaces");
      ++spaces;
    } else if (m == "mbarrier::complete_tx::bytes" && !prefetch) {
      completion = true;
    } else if (m == "bulk_group" && !prefetch) {
      mod.bulk_group = completion = true;
    } else if (m == "multicast::cluster") {
      unsupported("a tensor copy multicast to the blocks of a cluster");
    } else if (m.substr(0, 3) == "cta" || m == "cta_group::1" || m == "cta_group::2") {
      unsupported("." + std::string(m));
    } else {
      unknown(m);
    }
  }
  if (mod.tma_rank == 0) fail(line, quoted + " needs a dimension (.1d to .5d)");
  if (prefetch) {
    if (!l2 || inst.space != Space::Global || spaces != 1)
      fail(line, quoted + ": expected cp.async.bulk.prefetch.tensor.Nd.L2.global");
    return;
  }
  if (inst.space == Space::Shared && mod.async_src == Space::Global) {
    if (mod.bulk_group || !completion)
      fail(line, quoted + ": a global->shared tensor copy completes with "
                          ".mbarrier::complete_tx::bytes");
  } else if (inst.space == Space::Global && mod.async_src == Space::Shared) {
    if (!mod.bulk_group) fail(line, quoted + ": a shared->global tensor copy needs .bulk_group");
  } else {
    fail(line, quoted + " needs a destination and a source space (.shared::cluster.global or "
                        ".global.shared::cta)");
  }
}

// Operands, in PTX order; "[map, {c0, ..}]" is two operands: the map's address, the coordinates.
void Parser::parse_tma_operands(Instruction& inst, std::string_view opcode_text) {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  bool have_map = false;
  while (!peek().is(';')) {
    if (!inst.ops.empty()) expect(',', ("between the operands of " + quoted).c_str());
    if (!peek().is('[')) {
      inst.ops.push_back(parse_operand(inst, PendingName::Where::Op,
                                       static_cast<int32_t>(inst.ops.size())));
      continue;
    }
    // An address, or the tensor map with its coordinates.
    const Token& open = take();
    Operand a;
    a.kind = Operand::Kind::Addr;
    const Token& t = expect_word("a register or symbol after '['");
    if (const int32_t reg = find_reg(t.text); reg >= 0) {
      a.reg = reg;
    } else if (const auto sym = find_symbol(t.text)) {
      a.scope = sym->first;
      a.symbol = sym->second;
    } else {
      fail(t.line, "undeclared register or symbol '" + std::string(t.text) + "' in " + quoted);
    }
    if (accept('+')) {
      const Token& num = peek();
      if (num.kind != Token::Kind::Number) fail_at(num, "an offset in the address");
      take();
      a.offset = static_cast<int64_t>(parse_immediate(num, false).bits);
    }
    if (accept(',')) {
      if (have_map) fail(open.line, quoted + " has one tensor map '[map, {coordinates}]'");
      have_map = true;
      Operand coords = parse_vector(true);
      if (coords.vec_count != inst.mod.tma_rank)
        fail(open.line, quoted + " needs " + std::to_string(inst.mod.tma_rank) +
                            " coordinates, found " + std::to_string(coords.vec_count));
      for (int e = 0; e < coords.vec_count; ++e)
        if ((coords.wide.empty() ? coords.vec[e] : coords.wide[e]) < 0)
          fail(open.line, quoted + ": a coordinate must be a register");
      inst.ops.push_back(a);
      inst.ops.push_back(std::move(coords));
    } else {
      inst.ops.push_back(a);
    }
    expect(']', "to close the address");
  }
  take();  // ';'
  if (!have_map) fail(peek().line, quoted + " needs the tensor map '[map, {coordinates}]'");
}

void Parser::check_tma_operands(const Instruction& inst, std::string_view opcode_text,
                                int line) const {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  const auto& ops = inst.ops;
  const size_t hint = inst.mod.cache_hint ? 1 : 0;
  auto count = [&](size_t want) {
    if (ops.size() != want)
      fail(line, quoted + " takes " + std::to_string(want) + " operands, found " +
                     std::to_string(ops.size()));
  };
  auto is = [&](size_t i, Operand::Kind k) { return i < ops.size() && ops[i].kind == k; };
  auto addr = [&](size_t i) {
    if (!is(i, Operand::Kind::Addr))
      fail(line, quoted + " needs an address '[...]' as operand " + std::to_string(i + 1));
  };
  auto value = [&](size_t i) {
    if (!is(i, Operand::Kind::Reg) && !is(i, Operand::Kind::Imm))
      fail(line, quoted + " needs a register or a number as operand " + std::to_string(i + 1));
  };
  switch (inst.op) {
    case Opcode::CpAsyncBulkTensor:
      // ops: load [dst] [map] {c} [mbar] (policy); store [map] {c} [src] (policy)
      count(4 + hint - (inst.mod.bulk_group ? 1 : 0));
      if (inst.mod.bulk_group) {
        addr(0), addr(2);
        if (!is(1, Operand::Kind::Vec)) fail(line, quoted + ": the tensor map comes first");
      } else {
        addr(0), addr(1), addr(3);
        if (!is(2, Operand::Kind::Vec)) fail(line, quoted + ": the tensor map comes second");
      }
      if (hint) value(ops.size() - 1);
      break;
    case Opcode::CpAsyncBulkPrefetchTensor:
      count(2 + hint);
      addr(0);
      if (hint) value(2);
      break;
    case Opcode::PrefetchTensormap:
      count(1);
      addr(0);
      break;
    case Opcode::TensormapReplace: {
      const bool ord = inst.mod.tmap_field >= 2 && inst.mod.tmap_field <= 5;
      count(ord ? 3 : 2);
      addr(0);
      value(ops.size() - 1);
      if (ord) {
        if (!is(1, Operand::Kind::Imm))
          fail(line, quoted + ": the dimension (ord) must be a constant");
        if (ops[1].bits >= (inst.mod.tmap_field == 4 ? 4u : 5u))
          fail(line, quoted + ": dimension " + std::to_string(ops[1].bits) +
                         (inst.mod.tmap_field == 4 ? " is outside 0..3 (global_stride[ord] is "
                                                     "the stride of dimension ord + 1)"
                                                   : " is outside 0..4"));
      }
      break;
    }
    case Opcode::TensormapCpFenceproxy:
      count(3);
      addr(0), addr(1);
      if (!is(2, Operand::Kind::Imm) || ops[2].bits != 128)
        fail(line, quoted + ": the size must be the constant 128");
      break;
    default:
      break;
  }
}

}  // namespace warplab::ptx::detail
