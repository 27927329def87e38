// Asynchronous copies and barriers in the PTX front end: cp.async, cp.async.bulk, mbarrier.* and
// elect.sync (isa.def's section "asynchronous copies and barriers").
//
// Their mnemonics are families: "cp.async.ca.shared.global", "cp.async.wait_group",
// "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" all start with "cp", and
// "mbarrier.try_wait.parity.shared::cta.b64" names its operation second. parse_opcode gives the
// family's first opcode; the modifiers here pick the member and its options. What WarpLab does not
// simulate yet (multicast, remote mbarriers of a cluster, cp.reduce.async.bulk)
// is refused as unsupported code naming the feature, so only the kernels that use it are refused.
#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {
namespace {

bool is_shared_cta(std::string_view m) { return m == "shared" || m == "shared::cta"; }

bool is_sem_or_scope(std::string_view m, Modifiers& mod) {
  if (m == "release") return mod.mem_sem = MemSem::Release, true;
  if (m == "acquire") return mod.mem_sem = MemSem::Acquire, true;
  if (m == "relaxed") return mod.mem_sem = MemSem::Relaxed, true;
  if (m == "cta") return mod.mem_scope = MemScope::Cta, true;
  if (m == "cluster") return mod.mem_scope = MemScope::Cluster, true;
  return false;
}

// Cache-eviction and prefetch-size hints a copy may carry: accepted, no effect.
bool is_cache_hint(std::string_view m, Modifiers& mod) {
  if (m == "L2::cache_hint") return mod.cache_hint = true, true;
  return m == "L2::64B" || m == "L2::128B" || m == "L2::256B";
}

}  // namespace

void Parser::apply_async_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                                   std::string_view opcode_text, int line) {
  Modifiers& mod = inst.mod;
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  auto unknown = [&](std::string_view m) {
    fail(line, "unknown modifier '." + std::string(m) + "' in " + quoted);
  };
  auto unsupported = [&](const std::string& what) {
    fail_unsupported(line, quoted + ": " + what + " is not simulated");
  };
  auto type_of = [&](std::string_view m) {
    const auto t = parse_type(m);
    if (!t) return false;
    if (inst.type != Type::None) fail(line, "too many types in " + quoted);
    inst.type = *t;
    return true;
  };
  const size_t n = parts.size();
  // ---- mapa{.shared::cluster}.u32|u64 d, a, rank
  if (inst.op == Opcode::Mapa) {
    for (size_t i = 1; i < n; ++i) {
      if (type_of(parts[i])) continue;
      if (parts[i] == "shared::cluster")
        inst.space = Space::SharedCluster;
      else
        unknown(parts[i]);
    }
    if (inst.type != Type::U32 && inst.type != Type::U64 && inst.type != Type::B32 &&
        inst.type != Type::B64)
      fail(line, quoted + " needs the type .u32 or .u64");
    return;
  }
  if (inst.op == Opcode::TensormapReplace) {
    apply_tma_modifiers(inst, parts, opcode_text, line);  // parse_tma.cpp
    return;
  }
  // ---- elect.sync d|p, membermask
  if (inst.op == Opcode::Elect) {
    if (n != 2 || parts[1] != "sync") fail(line, quoted + ": expected elect.sync");
    mod.sync = true;
    return;
  }
  // ---- mbarrier.<op>{.options}.{shared{::cta}}.b64
  if (inst.op == Opcode::Mbarrier) {
    if (n < 2) fail(line, quoted + " needs an operation (.init, .arrive, .try_wait, ...)");
    constexpr std::pair<std::string_view, MbarOp> kOps[] = {
        {"init", MbarOp::Init},
        {"arrive", MbarOp::Arrive},
        {"arrive_drop", MbarOp::ArriveDrop},
        {"expect_tx", MbarOp::ExpectTx},
        {"complete_tx", MbarOp::CompleteTx},
        {"test_wait", MbarOp::TestWait},
        {"try_wait", MbarOp::TryWait},
        {"inval", MbarOp::Inval},
        {"pending_count", MbarOp::PendingCount}};
    for (const auto& [name, op] : kOps)
      if (parts[1] == name) mod.mbar = op;
    if (mod.mbar == MbarOp::None) unknown(parts[1]);
    inst.space = Space::Generic;
    for (size_t i = 2; i < n; ++i) {
      const std::string_view m = parts[i];
      if (type_of(m) || is_sem_or_scope(m, mod)) continue;
      const bool arrive = mod.mbar == MbarOp::Arrive || mod.mbar == MbarOp::ArriveDrop;
      if (is_shared_cta(m))
        inst.space = Space::Shared;
      else if (m == "shared::cluster")  // every block is a cluster of one: its own mbarrier
        inst.space = Space::Shared;
      else if (m == "expect_tx" && arrive)
        mod.expect_tx = true;
      else if (m == "noComplete" && arrive)
        mod.no_complete = true;
      else if (m == "parity" && (mod.mbar == MbarOp::TestWait || mod.mbar == MbarOp::TryWait))
        mod.parity = true;
      else
        unknown(m);
    }
    if (inst.type != Type::B64) fail(line, quoted + " needs the type .b64");
    if (mod.mbar == MbarOp::PendingCount) inst.space = Space::None;  // reads a state register
    return;
  }
  // ---- the cp family
  if (n >= 2 && parts[1] == "reduce") unsupported("cp.reduce.async.bulk (bulk reductions)");
  if (n < 3 || parts[1] != "async") fail(line, quoted + ": expected cp.async...");
  if (parts[2] == "commit_group" || parts[2] == "wait_group" || parts[2] == "wait_all") {
    if (n != 3) unknown(parts[3]);
    inst.op = parts[2] == "commit_group" ? Opcode::CpAsyncCommit : Opcode::CpAsyncWait;
    mod.full = parts[2] == "wait_all";  // wait_all: commit, then wait for every group
    return;
  }
  if (parts[2] == "mbarrier") {
    if (n < 4 || parts[3] != "arrive") fail(line, quoted + ": expected cp.async.mbarrier.arrive");
    inst.op = Opcode::CpAsyncMbarrierArrive;
    inst.space = Space::Generic;
    for (size_t i = 4; i < n; ++i) {
      const std::string_view m = parts[i];
      if (type_of(m)) continue;
      if (m == "noinc")
        mod.noinc = true;
      else if (is_shared_cta(m))
        inst.space = Space::Shared;
      else
        unknown(m);
    }
    if (inst.type != Type::B64) fail(line, quoted + " needs the type .b64");
    return;
  }
  if (parts[2] == "bulk") {
    if (n >= 4 && (parts[3] == "commit_group" || parts[3] == "wait_group")) {
      inst.op = parts[3] == "commit_group" ? Opcode::CpAsyncBulkCommit : Opcode::CpAsyncBulkWait;
      for (size_t i = 4; i < n; ++i) {
        if (parts[i] == "read" && inst.op == Opcode::CpAsyncBulkWait)
          mod.bulk_read = true;
        else
          unknown(parts[i]);
      }
      return;
    }
    if ((n >= 4 && parts[3] == "tensor") || (n >= 5 && parts[3] == "prefetch" && parts[4] == "tensor")) {
      apply_tma_modifiers(inst, parts, opcode_text, line);  // parse_tma.cpp
      return;
    }
    if (n >= 4 && parts[3] == "prefetch") unsupported("cp.async.bulk.prefetch (an L2 prefetch)");
    inst.op = Opcode::CpAsyncBulk;
    int spaces = 0;
    bool completion = false;
    for (size_t i = 3; i < n; ++i) {
      const std::string_view m = parts[i];
      if (is_cache_hint(m, mod)) continue;
      if (m == "global" || is_shared_cta(m) || m == "shared::cluster") {
        const Space s = m == "global" ? Space::Global : Space::Shared;
        if (spaces == 0)
          inst.space = s;
        else if (spaces == 1)
          mod.async_src = s;
        else
          fail(line, quoted + ": more than two state spaces");
        ++spaces;
      } else if (m == "mbarrier::complete_tx::bytes") {
        completion = true;
      } else if (m == "bulk_group") {
        mod.bulk_group = completion = true;
      } else if (m == "multicast::cluster") {
        unsupported("a bulk copy multicast to the blocks of a cluster");
      } else {
        unknown(m);
      }
    }
    // Global -> shared completes on an mbarrier; shared -> global in bulk groups. (Shared ->
    // shared::cluster, a copy to another block of the cluster, needs clusters.)
    if (inst.space == Space::Shared && mod.async_src == Space::Global) {
      if (mod.bulk_group || !completion)
        fail(line, quoted +
                       ": a global->shared bulk copy completes with .mbarrier::complete_tx::"
                       "bytes");
    } else if (inst.space == Space::Global && mod.async_src == Space::Shared) {
      if (!mod.bulk_group) fail(line, quoted + ": a shared->global bulk copy needs .bulk_group");
    } else if (inst.space == Space::Shared && mod.async_src == Space::Shared) {
      unsupported("a bulk copy to another block's shared memory (clusters)");
    } else {
      fail(line, quoted +
                     " needs a destination and a source space (.shared::cluster.global or "
                     ".global.shared::cta)");
    }
    return;
  }
  // cp.async.ca|cg.shared{::cta}.global{.L2::cache_hint}{.L2::128B}
  inst.op = Opcode::CpAsync;
  int spaces = 0;
  for (size_t i = 2; i < n; ++i) {
    const std::string_view m = parts[i];
    if (is_cache_hint(m, mod)) continue;
    if (m == "ca")
      mod.cache = CacheOp::Ca;
    else if (m == "cg")
      mod.cache = CacheOp::Cg;
    else if (is_shared_cta(m) && spaces == 0)
      inst.space = Space::Shared, ++spaces;
    else if (m == "global" && spaces == 1)
      mod.async_src = Space::Global, ++spaces;
    else
      unknown(m);
  }
  if (mod.cache == CacheOp::None) fail(line, quoted + " needs .ca or .cg");
  if (spaces != 2) fail(line, quoted + " needs .shared.global (destination, then source)");
}

void Parser::check_async_operands(const Instruction& inst, std::string_view opcode_text,
                                  int line) const {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  const auto& ops = inst.ops;
  const size_t hint = inst.mod.cache_hint ? 1 : 0;
  auto count = [&](size_t lo, size_t hi) {
    if (ops.size() < lo || ops.size() > hi)
      fail(line,
           quoted + " takes " +
               (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
               " operands, found " + std::to_string(ops.size()));
  };
  auto addr = [&](size_t i) {
    if (ops[i].kind != Operand::Kind::Addr)
      fail(line, quoted + " needs an address '[...]' as operand " + std::to_string(i + 1));
  };
  auto value = [&](size_t i) {
    const auto k = ops[i].kind;
    if (k != Operand::Kind::Reg && k != Operand::Kind::Imm)
      fail(line, quoted + " needs a register or a number as operand " + std::to_string(i + 1));
  };
  auto imm = [&](size_t i) {
    if (ops[i].kind != Operand::Kind::Imm)
      fail(line, quoted + " needs a constant as operand " + std::to_string(i + 1));
  };
  auto dest = [&](size_t i) {
    const auto k = ops[i].kind;
    if (k != Operand::Kind::Reg && k != Operand::Kind::Sink)
      fail(line, quoted + " needs a destination register as operand " + std::to_string(i + 1));
  };
  switch (inst.op) {
    case Opcode::CpAsync: {
      count(3 + hint, 4 + hint);
      addr(0), addr(1), imm(2);
      const uint64_t size = ops[2].bits;
      if (size != 4 && size != 8 && size != 16)
        fail(line, quoted + ": the copy size must be 4, 8 or 16 bytes, not " +
                       std::to_string(static_cast<int64_t>(size)));
      if (inst.mod.cache == CacheOp::Cg && size != 16)
        fail(line, quoted + ": cp.async.cg copies 16 bytes");
      if (ops.size() == 4 + hint) value(3);  // src-size, or the ignore-src predicate
      break;
    }
    case Opcode::CpAsyncCommit:
    case Opcode::CpAsyncBulkCommit:
      count(0, 0);
      break;
    case Opcode::CpAsyncWait:
      if (inst.mod.full) {
        count(0, 0);
        break;
      }
      [[fallthrough]];
    case Opcode::CpAsyncBulkWait:
      count(1, 1);
      imm(0);
      break;
    case Opcode::CpAsyncMbarrierArrive:
      count(1, 1);
      addr(0);
      break;
    case Opcode::CpAsyncBulk:
      count(inst.mod.bulk_group ? 3 + hint : 4 + hint, inst.mod.bulk_group ? 3 + hint : 4 + hint);
      addr(0), addr(1), value(2);
      if (!inst.mod.bulk_group) addr(3);
      break;
    case Opcode::Mbarrier:
      switch (inst.mod.mbar) {
        case MbarOp::Init:
        case MbarOp::ExpectTx:
        case MbarOp::CompleteTx:
          count(2, 2);
          addr(0), value(1);
          break;
        case MbarOp::Arrive:
        case MbarOp::ArriveDrop:
          if (inst.mod.expect_tx || inst.mod.no_complete)
            count(3, 3);
          else
            count(2, 3);
          dest(0), addr(1);
          if (ops.size() == 3) value(2);
          break;
        case MbarOp::TestWait:
        case MbarOp::TryWait:
          count(3, inst.mod.mbar == MbarOp::TryWait ? 4 : 3);
          dest(0), addr(1), value(2);
          if (ops.size() == 4) value(3);
          break;
        case MbarOp::Inval:
          count(1, 1);
          addr(0);
          break;
        case MbarOp::PendingCount:
          count(2, 2);
          dest(0), value(1);
          break;
        case MbarOp::None:
          break;
      }
      break;
    case Opcode::CpAsyncBulkTensor:
    case Opcode::CpAsyncBulkPrefetchTensor:
    case Opcode::PrefetchTensormap:
    case Opcode::TensormapReplace:
    case Opcode::TensormapCpFenceproxy:
      check_tma_operands(inst, opcode_text, line);  // parse_tma.cpp
      break;
    case Opcode::Mapa:
      count(3, 3);
      dest(0), value(1), value(2);
      break;
    case Opcode::Elect:
      if (!inst.pair_dest || ops.size() != 3)
        fail(line, quoted + " takes 'd|p, membermask' (a register or _, a predicate, a mask)");
      value(2);
      break;
    default:
      break;
  }
}

}  // namespace warplab::ptx::detail
