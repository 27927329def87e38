// Instructions of the PTX front end: mnemonic and modifiers, checked against isa.def and isa.h's
// Modifiers. Operands are parsed in parse_operands.cpp.
//
// A PTX mnemonic is "opcode.mod.mod.type[.type]"; the modifiers nvcc writes are accepted in any
// order. An unknown opcode or modifier is an error naming it; wmma, TMA tensor copies and
// clusters are rejected with a message that says they are out of scope. The tensor-core
// instructions have their own modifier rules (parse_tensor.cpp), and so do the asynchronous copies
// and mbarriers (cp.*, mbarrier.*, elect: parse_async.cpp) and warpgroup MMA (wgmma.*:
// parse_wgmma.cpp).
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {
namespace {

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      parts.push_back(s.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  return parts;
}

// Opcodes WarpLab leaves out on purpose, with the reason given in the error.
std::string_view out_of_scope_reason(std::string_view mnemonic) {
  struct Entry {
    std::string_view mnemonic, reason;
  };
  static constexpr Entry kEntries[] = {
      {"wmma", "tensor cores through wmma are out of scope (mma.sync and wgmma are simulated)"},
      {"tcgen05", "tensor cores (mma/wmma/wgmma/tcgen05) are out of scope"},
      {"multimem", "multimem (NVLink multicast) is out of scope"},
      {"griddepcontrol", "programmatic dependent launch (griddepcontrol) is out of scope"},
      {"clusterlaunchcontrol", "thread-block clusters are out of scope"},
      {"applypriority", "cache-eviction priority control is out of scope"},
      {"createpolicy", "cache-eviction policies (createpolicy) are out of scope"},
      {"discard", "discard is out of scope"},
  };
  for (const Entry& e : kEntries)
    if (e.mnemonic == mnemonic) return e.reason;
  return {};
}

std::optional<Space> parse_space(std::string_view m) {
  if (m == "global") return Space::Global;
  if (m == "shared" || m == "shared::cta") return Space::Shared;
  if (m == "shared::cluster") return Space::SharedCluster;
  if (m == "local") return Space::Local;
  if (m == "param" || m == "param::entry" || m == "param::func") return Space::Param;
  if (m == "const") return Space::Const;
  if (m == "generic") return Space::Generic;
  return std::nullopt;
}

std::optional<Rounding> parse_rounding(std::string_view m) {
  constexpr std::pair<std::string_view, Rounding> k[] = {
      {"rn", Rounding::Rn},   {"rz", Rounding::Rz},   {"rm", Rounding::Rm},
      {"rp", Rounding::Rp},   {"rni", Rounding::Rni}, {"rzi", Rounding::Rzi},
      {"rmi", Rounding::Rmi}, {"rpi", Rounding::Rpi}, {"rna", Rounding::Rna}};
  for (const auto& [name, r] : k)
    if (name == m) return r;
  return std::nullopt;
}

std::optional<CmpOp> parse_cmp(std::string_view m) {
  for (int i = 1; i <= static_cast<int>(CmpOp::Nan); ++i)
    if (cmp_name(static_cast<CmpOp>(i)) == m) return static_cast<CmpOp>(i);
  return std::nullopt;
}

std::optional<AtomOp> parse_atom_op(std::string_view m) {
  constexpr std::pair<std::string_view, AtomOp> k[] = {
      {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max},   {"inc", AtomOp::Inc},
      {"dec", AtomOp::Dec}, {"cas", AtomOp::Cas}, {"exch", AtomOp::Exch}, {"and", AtomOp::And},
      {"or", AtomOp::Or},   {"xor", AtomOp::Xor}};
  for (const auto& [name, op] : k)
    if (name == m) return op;
  return std::nullopt;
}

bool is_async_family(Opcode op) {
  return op == Opcode::CpAsync || op == Opcode::Mbarrier || op == Opcode::Elect ||
         op == Opcode::Mapa || op == Opcode::TensormapReplace;
}

bool is_memory_op(Opcode op) {
  return op == Opcode::Ld || op == Opcode::Ldu || op == Opcode::St || op == Opcode::Atom ||
         op == Opcode::Red || op == Opcode::Prefetch || op == Opcode::Prefetchu;
}

std::string normalise_space(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space && c != ',' && c != ';' && c != ')' && out.back() != '(') out.push_back(' ');
    space = false;
    out.push_back(c);
    if (c == ',') space = true;  // "a,b" reads as "a, b"
  }
  return out;
}

}  // namespace

// ---- the instruction ---------------------------------------------------------------------------

void Parser::parse_instruction(int32_t guard, bool guard_neg, uint32_t start_offset) {
  const size_t first_token = pos_;
  try {
    parse_instruction_body(guard, guard_neg, start_offset);
  } catch (const ParseFailure& f) {
    if (!f.unsupported) throw;
    // Keep the reason, drop the instruction (and any name it left pending), go on after its ';'.
    const auto here = static_cast<int32_t>(fn().instructions.size());
    auto mine = [&](const PendingName& p) {
      return p.function == fn_index_ && p.instruction == here;
    };
    std::erase_if(pending_labels_, mine);
    std::erase_if(pending_functions_, mine);
    pos_ = first_token;
    while (peek().kind != Token::Kind::End && !peek().is(';')) take();
    accept(';');
    std::string message = f.error.message;
    const std::string where = function_kind_and_name();
    if (message.find(" in " + where) == std::string::npos) message = where + ": " + message;
    fn().unsupported.push_back(UnsupportedCode{f.error.line, loc_, user_loc_, std::move(message)});
  }
}

void Parser::parse_instruction_body(int32_t guard, bool guard_neg, uint32_t start_offset) {
  const Token& op_tok = expect_word("an instruction");
  const std::string_view opcode_text = op_tok.text;
  const int line = op_tok.line;
  const std::vector<std::string_view> parts = split_dots(opcode_text);
  const auto opcode = parse_opcode(parts[0]);
  if (!opcode) {
    std::string message =
        "unsupported instruction '" + std::string(opcode_text) + "' in " + function_kind_and_name();
    const std::string_view reason = out_of_scope_reason(parts[0]);
    if (!reason.empty()) message += ": " + std::string(reason);
    fail_unsupported(line, message);
  }
  Instruction inst;
  inst.op = *opcode;
  inst.guard = guard;
  inst.guard_neg = guard_neg;
  inst.ptx_line = line;
  inst.loc = loc_;
  inst.user_loc = user_loc_;
  if (is_tensor_op(inst.op))
    apply_tensor_modifiers(inst, parts, opcode_text, line);
  else if (is_wgmma_op(inst.op))
    apply_wgmma_modifiers(inst, parts, opcode_text, line);
  else
    apply_modifiers(inst, parts, opcode_text, line);
  if (inst.op == Opcode::Call)
    parse_call_operands(inst, opcode_text);
  else
    parse_operands(inst, opcode_text);
  if (inst.op == Opcode::BarrierCluster && !inst.ops.empty())
    fail(line, "'" + std::string(opcode_text) + "' takes no operands");
  if (inst.op == Opcode::Setmaxnreg) check_setmaxnreg(inst, opcode_text, line);
  if (inst.op == Opcode::Bar) check_barrier_operands(inst, line);
  if (is_async_op(inst.op) || inst.op == Opcode::Mapa)
    check_async_operands(inst, opcode_text, line);
  if (inst.op == Opcode::Fence && inst.mod.proxy_tensormap && inst.ops.size() == 2 &&
      (inst.ops[0].kind != Operand::Kind::Addr || inst.ops[1].kind != Operand::Kind::Imm ||
       inst.ops[1].bits != 128))
    fail(line, "'" + std::string(opcode_text) + "' takes '[addr], 128'");
  if (is_wgmma_op(inst.op)) check_wgmma_operands(inst, opcode_text, line);
  const Token& semicolon = tokens_[pos_ - 1];
  inst.text = normalise_space(text_.substr(start_offset, semicolon.offset + 1 - start_offset));
  fn().instructions.push_back(std::move(inst));
}

// A block has 16 named barriers (0..15), and a barrier's thread count is a whole number of
// warps: ptxas rejects a constant outside these, so WarpLab does too, at load rather than as a
// fault in the middle of a run. Ids and counts held in registers are checked when they execute.
void Parser::check_barrier_operands(const Instruction& inst, int line) const {
  if (inst.mod.bar == BarMode::WarpSync) return;
  const size_t id = inst.mod.bar == BarMode::Red ? 1 : 0;  // bar.red d, a{, b}, {!}c
  auto imm = [&](size_t i) -> const Operand* {
    return i < inst.ops.size() && inst.ops[i].kind == Operand::Kind::Imm ? &inst.ops[i] : nullptr;
  };
  if (const Operand* a = imm(id); a && a->bits >= 16)
    fail(line, "barrier id " + std::to_string(static_cast<int64_t>(a->bits)) +
                   " is out of range: a block has 16 barriers (0..15)");
  // The optional thread count follows the id, except in bar.red where c (a predicate) is last.
  const bool has_count = inst.mod.bar == BarMode::Red ? inst.ops.size() > 3 : inst.ops.size() > 1;
  if (const Operand* b = has_count ? imm(id + 1) : nullptr;
      b && (b->bits == 0 || b->bits > 1024 || b->bits % 32 != 0))
    fail(line, "barrier thread count " + std::to_string(static_cast<int64_t>(b->bits)) +
                   " must be a multiple of 32 (the warp size) from 32 to 1024");
}

// setmaxnreg.{inc|dec}.sync.aligned.u32 imm: the register count per thread a warpgroup asks for,
// a constant in 24..256 and a multiple of 8 (the PTX ISA's rule; ptxas refuses anything else).
void Parser::check_setmaxnreg(const Instruction& inst, std::string_view opcode_text,
                              int line) const {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  if (inst.mod.atom != AtomOp::Inc && inst.mod.atom != AtomOp::Dec)
    fail(line, quoted + " needs .inc or .dec");
  if (!inst.mod.sync || !inst.mod.aligned) fail(line, quoted + " needs .sync.aligned");
  if (inst.type != Type::U32) fail(line, quoted + " needs the type .u32");
  if (inst.ops.size() != 1 || inst.ops[0].kind != Operand::Kind::Imm)
    fail(line, quoted + " takes one operand, a constant register count");
  const int64_t n = static_cast<int64_t>(inst.ops[0].bits);
  if (n < 24 || n > 256 || n % 8 != 0)
    fail(line, quoted + ": the register count " + std::to_string(n) +
                   " must be a multiple of 8 from 24 to 256");
}

// ---- modifiers ---------------------------------------------------------------------------------

void Parser::apply_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                             std::string_view opcode_text, int line) {
  if (is_async_family(inst.op)) {
    apply_async_modifiers(inst, parts, opcode_text, line);
    return;
  }
  Modifiers& mod = inst.mod;
  int types = 0;
  bool shf_left = false, shf_right = false, shf_wrap = false, shf_clamp = false;
  bool bar_warp = false, have_space = false;
  const Opcode op = inst.op;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string_view m = parts[i];
    auto unknown = [&]() {
      fail(line,
           "unknown modifier '." + std::string(m) + "' in '" + std::string(opcode_text) + "'");
    };
    if (m.empty()) fail(line, "empty modifier in '" + std::string(opcode_text) + "'");
    // 1. Types: the first is the instruction's type, the second (cvt, set, slct, dp4a) its type2.
    if (const auto t = parse_type(m)) {
      if (types == 0)
        inst.type = *t;
      else if (types == 1)
        inst.type2 = *t;
      else
        fail(line, "too many types in '" + std::string(opcode_text) + "'");
      ++types;
      continue;
    }
    // 2. Opcode-specific modifiers.
    bool done = true;
    switch (op) {
      case Opcode::Setp:
      case Opcode::Set:
        if (const auto c = parse_cmp(m))
          mod.cmp = *c;
        else if (m == "and")
          mod.bool_op = BoolOp::And;
        else if (m == "or")
          mod.bool_op = BoolOp::Or;
        else if (m == "xor")
          mod.bool_op = BoolOp::Xor;
        else
          done = false;
        break;
      case Opcode::Mul:
      case Opcode::Mad:
      case Opcode::Madc:
      case Opcode::Mul24:
      case Opcode::Mad24:
      case Opcode::Dp2a:
        if (m == "lo")
          mod.mul = MulMode::Lo;
        else if (m == "hi")
          mod.mul = MulMode::Hi;
        else if (m == "wide" && op != Opcode::Dp2a)
          mod.mul = MulMode::Wide;
        else
          done = false;
        break;
      case Opcode::Shfl:
        if (m == "up")
          mod.shfl = ShflMode::Up;
        else if (m == "down")
          mod.shfl = ShflMode::Down;
        else if (m == "bfly")
          mod.shfl = ShflMode::Bfly;
        else if (m == "idx")
          mod.shfl = ShflMode::Idx;
        else
          done = false;
        break;
      case Opcode::Vote:
        if (m == "all")
          mod.vote = VoteMode::All;
        else if (m == "any")
          mod.vote = VoteMode::Any;
        else if (m == "uni")
          mod.vote = VoteMode::Uni;
        else if (m == "ballot")
          mod.vote = VoteMode::Ballot;
        else
          done = false;
        break;
      case Opcode::Match:
        if (m == "any")
          mod.match_all = false;
        else if (m == "all")
          mod.match_all = true;
        else
          done = false;
        break;
      case Opcode::Redux:
        if (const auto a = parse_atom_op(m);
            a && *a != AtomOp::Inc && *a != AtomOp::Dec && *a != AtomOp::Cas && *a != AtomOp::Exch)
          mod.atom = *a;
        else if (m == "abs")
          mod.abs = true;
        else if (m == "NaN")
          mod.nan = true;
        else
          done = false;
        break;
      case Opcode::Atom:
      case Opcode::Red:
        if (const auto a = parse_atom_op(m))
          mod.atom = *a;
        else if (m == "noftz") {
        } else
          done = false;
        break;
      case Opcode::Setmaxnreg:  // .inc/.dec kept as AtomOp's Inc/Dec; .sync.aligned required
        if (m == "inc" || m == "dec")
          mod.atom = m == "inc" ? AtomOp::Inc : AtomOp::Dec;
        else if (m == "sync")
          mod.sync = true;
        else if (m == "aligned")
          mod.aligned = true;
        else
          done = false;
        break;
      case Opcode::Bar:
        if (m == "sync")
          mod.bar = bar_warp ? BarMode::WarpSync : BarMode::Sync, mod.sync = true;
        else if (m == "arrive")
          mod.bar = BarMode::Arrive;
        else if (m == "red")
          mod.bar = BarMode::Red;
        else if (m == "popc")
          mod.popc = true;
        else if (m == "and")
          mod.bar_red = BoolOp::And;
        else if (m == "or")
          mod.bar_red = BoolOp::Or;
        else if (m == "warp")
          bar_warp = true;
        else if (m == "cta") {
        } else if (m == "cluster" && parts[0] == "barrier")
          mod.cluster_barrier = true;
        else if (m == "wait" && mod.cluster_barrier)
          mod.bar = BarMode::Sync, mod.sync = true;
        else if (mod.cluster_barrier && (m == "release" || m == "relaxed" || m == "acquire"))
          mod.mem_sem = m == "acquire"   ? MemSem::Acquire
                        : m == "release" ? MemSem::Release
                                         : MemSem::Relaxed;
        else
          done = false;
        break;
      case Opcode::Testp:
        if (m == "finite")
          mod.testp = TestpMode::Finite;
        else if (m == "infinite")
          mod.testp = TestpMode::Infinite;
        else if (m == "number")
          mod.testp = TestpMode::Number;
        else if (m == "notanumber")
          mod.testp = TestpMode::NotANumber;
        else if (m == "normal")
          mod.testp = TestpMode::Normal;
        else if (m == "subnormal")
          mod.testp = TestpMode::Subnormal;
        else
          done = false;
        break;
      case Opcode::Shf:
        if (m == "l")
          shf_left = true;
        else if (m == "r")
          shf_right = true;
        else if (m == "wrap")
          shf_wrap = true;
        else if (m == "clamp")
          shf_clamp = true;
        else
          done = false;
        break;
      case Opcode::Prmt:
        if (m == "f4e")
          mod.prmt = PrmtMode::F4e;
        else if (m == "b4e")
          mod.prmt = PrmtMode::B4e;
        else if (m == "rc8")
          mod.prmt = PrmtMode::Rc8;
        else if (m == "ecl")
          mod.prmt = PrmtMode::Ecl;
        else if (m == "ecr")
          mod.prmt = PrmtMode::Ecr;
        else if (m == "rc16")
          mod.prmt = PrmtMode::Rc16;
        else
          done = false;
        break;
      case Opcode::Bra:
      case Opcode::Call:
      case Opcode::Ret:
        if (m == "uni")
          mod.uni = true;
        else
          done = false;
        break;
      case Opcode::Cvta:
        if (m == "to")
          mod.to_space = true;
        else
          done = false;
        break;
      case Opcode::Membar:
        if (m == "gl")
          mod.mem_scope = MemScope::Gpu;
        else if (m == "cta")
          mod.mem_scope = MemScope::Cta;
        else if (m == "sys")
          mod.mem_scope = MemScope::Sys;
        else
          done = false;
        break;
      case Opcode::Fence:
        // fence.proxy.async{.global|.shared::cta|.shared::cluster} orders the generic proxy's
        // accesses with the async proxy's (TMA, cp.async.bulk); fence.mbarrier_init.release.
        // cluster publishes mbarrier.init to the cluster (sim/func/exec_async.cpp).
        if (m == "proxy")
          mod.proxy_async = true;
        else if (m == "mbarrier_init")
          mod.mbarrier_init = true;
        else if (mod.proxy_async && m == "tensormap::generic")
          mod.proxy_tensormap = true;  // with .acquire: [addr], 128 (parse_tma.cpp)
        else if (mod.proxy_async &&
                 (m == "async" || m == "global" || m == "shared::cta" || m == "shared::cluster" ||
                  m == "async::generic")) {
        } else if (m == "cluster")
          mod.mem_scope = MemScope::Cluster;
        else
          done = false;  // orders and scopes: memory modifiers below
        break;
      case Opcode::Bfind:
        if (m == "shiftamt")
          mod.shiftamt = true;
        else
          done = false;
        break;
      case Opcode::Min:
      case Opcode::Max:
        if (m == "NaN")
          mod.nan = true;
        else if (m == "xorsign")
          mod.xorsign = true;
        else if (m == "abs")
          mod.abs = true;
        else
          done = false;
        break;
      case Opcode::Prefetch:
      case Opcode::Prefetchu:
        if (m == "L1" || m == "L2") {
        } else if (m == "L2::evict_last" || m == "L2::evict_normal")
          mod.mode_l2_evict = true;
        else if (m == "tensormap")
          inst.op = Opcode::PrefetchTensormap;  // prefetch{.const|.param}.tensormap [a]
        else
          done = false;
        break;
      default:
        done = false;
        break;
    }
    if (done) continue;
    // 3. State spaces (memory instructions, cvta, isspacep).
    if (const auto s = parse_space(m)) {
      if (!is_memory_op(op) && op != Opcode::Cvta && op != Opcode::Isspacep) unknown();
      // ld/st/atom/red keep .shared::cluster (an address that may name another block of the
      // cluster: sim/func/cluster.h); cvta and isspacep share the generic shared window, which
      // holds the cluster's addresses (the PTX ISA puts .shared::cta's inside .shared::cluster's).
      inst.space = *s == Space::SharedCluster && !is_memory_op(op) ? Space::Shared : *s;
      have_space = true;
      continue;
    }
    // 4. Memory-ordering, cache and vector qualifiers.
    if ((is_memory_op(op) || op == Opcode::Fence) && apply_memory_modifier(inst, m)) continue;
    if (m == "L2::cache_hint")
      fail_unsupported(line,
                       "'" + std::string(opcode_text) + "': .L2::cache_hint is not supported");
    if (m == "cluster")
      fail_unsupported(
          line, "'" + std::string(opcode_text) + "': thread-block clusters are out of scope");
    // 5. Rounding and the flags many instructions share.
    if (const auto r = parse_rounding(m)) {
      mod.rounding = *r;
      continue;
    }
    if (m == "ftz")
      mod.ftz = true;
    else if (m == "sat" || m == "satfinite")
      mod.sat = true;
    else if (m == "approx")
      mod.approx = true;
    else if (m == "full")
      mod.full = true;
    else if (m == "cc")
      mod.carry_out = true;
    else if (m == "relu")
      mod.relu = true;
    else if (m == "sync")
      mod.sync = true;
    else if (m == "aligned")
      mod.aligned = true;
    else
      unknown();
  }

  // Checks and defaults after all modifiers are known.
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  if (op == Opcode::Shf) {
    if (shf_left == shf_right || shf_wrap == shf_clamp)
      fail(line, quoted + " needs one of .l/.r and one of .wrap/.clamp");
    mod.shf = shf_left ? (shf_wrap ? ShfMode::LeftWrap : ShfMode::LeftClamp)
                       : (shf_wrap ? ShfMode::RightWrap : ShfMode::RightClamp);
  }
  if (op == Opcode::Bar) {
    if (mod.bar == BarMode::None) fail(line, quoted + " needs .sync, .arrive or .red");
    if (bar_warp && mod.bar != BarMode::WarpSync) fail(line, quoted + ": expected bar.warp.sync");
    // bar.sync/bar.arrive/bar.red are the .aligned forms of barrier.*.
    if (parts[0] == "bar" && mod.bar != BarMode::WarpSync) mod.aligned = true;
    if (mod.bar == BarMode::Red && !mod.popc && mod.bar_red == BoolOp::None)
      fail(line, quoted + " needs .popc, .and or .or");
  }
  if ((op == Opcode::Setp || op == Opcode::Set) && mod.cmp == CmpOp::None)
    fail(line, quoted + " needs a comparison (.eq, .lt, ...)");
  if (op == Opcode::Shfl && mod.shfl == ShflMode::None)
    fail(line, quoted + " needs a mode (.up, .down, .bfly or .idx)");
  if (op == Opcode::Vote && mod.vote == VoteMode::None)
    fail(line, quoted + " needs a mode (.all, .any, .uni or .ballot)");
  if ((op == Opcode::Atom || op == Opcode::Red || op == Opcode::Redux) && mod.atom == AtomOp::None)
    fail(line, quoted + " needs an operation (.add, .min, .max, ...)");
  if (op == Opcode::Testp && mod.testp == TestpMode::None)
    fail(line, quoted + " needs a property (.finite, .infinite, .number, ...)");
  if ((op == Opcode::Cvta || op == Opcode::Isspacep) && !have_space)
    fail(line, quoted + " needs a state space (.global, .shared, .local, .const, .param)");
  if (is_memory_op(op) && !have_space) inst.space = Space::Generic;
  if (types == 0 && operand_count(inst) > 0 && op != Opcode::Prefetch && op != Opcode::Prefetchu &&
      op != Opcode::Bra && op != Opcode::Isspacep && op != Opcode::Fence)
    fail(line, quoted + " needs a type (.s32, .f32, .b64, ...)");
  // barrier.cluster.arrive{.release|.relaxed} / barrier.cluster.wait{.acquire}: its own opcode
  // (sim/func/cluster.h); mod.bar says which, mem_sem the ordering (release / acquire default).
  if (mod.cluster_barrier) {
    inst.op = Opcode::BarrierCluster;
    if (mod.bar != BarMode::Arrive && mod.bar != BarMode::Sync)
      fail(line, quoted + " needs .arrive or .wait");
    if (mod.mem_sem == MemSem::None)
      mod.mem_sem = mod.bar == BarMode::Arrive ? MemSem::Release : MemSem::Acquire;
    if ((mod.bar == BarMode::Arrive && mod.mem_sem == MemSem::Acquire) ||
        (mod.bar == BarMode::Sync && mod.mem_sem != MemSem::Acquire))
      fail(line, quoted + ": arrive takes .release or .relaxed, wait takes .acquire");
    mod.mem_scope = MemScope::Cluster;
  }
}

bool Parser::apply_memory_modifier(Instruction& inst, std::string_view m) {
  Modifiers& mod = inst.mod;
  constexpr std::pair<std::string_view, CacheOp> kCache[] = {
      {"ca", CacheOp::Ca}, {"cg", CacheOp::Cg}, {"cs", CacheOp::Cs}, {"lu", CacheOp::Lu},
      {"cv", CacheOp::Cv}, {"wb", CacheOp::Wb}, {"wt", CacheOp::Wt}};
  for (const auto& [name, c] : kCache)
    if (m == name) return mod.cache = c, true;
  constexpr std::pair<std::string_view, MemSem> kSem[] = {
      {"weak", MemSem::Weak},       {"relaxed", MemSem::Relaxed}, {"acquire", MemSem::Acquire},
      {"release", MemSem::Release}, {"acq_rel", MemSem::AcqRel},  {"sc", MemSem::Sc}};
  for (const auto& [name, s] : kSem) {
    if (m != name) continue;
    mod.mem_sem = s;
    mod.relaxed_or_acquire = s != MemSem::Weak;
    return true;
  }
  if (m == "cta") return mod.mem_scope = MemScope::Cta, true;
  if (m == "gpu") return mod.mem_scope = MemScope::Gpu, true;
  if (m == "sys") return mod.mem_scope = MemScope::Sys, true;
  if (m == "nc") return mod.nc = true, true;
  if (m == "volatile" || m == "mmio") return mod.volatile_ = true, true;
  if (m == "v2" || m == "v4") return mod.vec = static_cast<uint8_t>(m[1] - '0'), true;
  if (m.rfind("L1::", 0) == 0 || m == "L2::evict_first" || m == "L2::evict_last" ||
      m == "L2::evict_normal" || m == "L2::evict_unchanged" || m == "L2::64B" || m == "L2::128B" ||
      m == "L2::256B")
    return mod.mode_l2_evict = true, true;
  return false;
}

// ---- operands ----------------------------------------------------------------------------------

}  // namespace warplab::ptx::detail
