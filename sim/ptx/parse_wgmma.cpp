// Warpgroup MMA in the PTX front end: wgmma.mma_async, wgmma.fence, wgmma.commit_group and
// wgmma.wait_group (isa.def's section "warpgroup MMA").
//
// "wgmma" is a family like "cp": parse_opcode gives Wgmma and the second word picks the member.
//   wgmma.fence.sync.aligned;
//   wgmma.commit_group.sync.aligned;
//   wgmma.wait_group.sync.aligned N;
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 {d...}, descA, descB, scale-d,
//                                                       imm-scale-a, imm-scale-b, imm-trans-a,
//                                                       imm-trans-b;
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16  {d...}, {a0,a1,a2,a3}, descB, scale-d,
//                                                       imm-scale-a, imm-scale-b, imm-trans-b;
// (tf32, e4m3 and e5m2 take no imm-trans operands: their shared-memory matrices are K-major.)
// The accumulator vector has N/2 registers (f32) or N/4 (f16) per thread; scale-d is a predicate
// (false: D = A*B, the old D is not read) or a constant 0/1; the immediates go to TensorMods.
// Simulated: N = 8..256 in steps of 8 for f16/bf16 (k16), tf32 (k8) and e4m3/e5m2 (k32), f32
// accumulators, and f16 accumulators for f16 and FP8 inputs. Integer (s8/u8, b1) and sparse
// (wgmma.mma_async.sp) forms are refused as unsupported, so only kernels that use them are.
#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {
namespace {

bool is_fp8(MmaType t) { return t == MmaType::E4M3 || t == MmaType::E5M2; }

// Why the type combination d.a.b is not simulated, or an empty string. Sets k for the shape check.
std::string wgmma_types(const TensorMods& t, int& k) {
  if ((t.a == MmaType::F16 || t.a == MmaType::BF16) && t.a == t.b) {
    k = 16;
    if (t.d == MmaType::F32 || (t.d == MmaType::F16 && t.a == MmaType::F16)) return "";
    return "f16 inputs accumulate in .f32 or .f16, bf16 in .f32";
  }
  if (t.a == MmaType::TF32 && t.b == MmaType::TF32) {
    k = 8;
    return t.d == MmaType::F32 ? "" : "tf32 inputs accumulate in .f32";
  }
  if (is_fp8(t.a) && is_fp8(t.b)) {
    k = 32;
    return t.d == MmaType::F32 || t.d == MmaType::F16 ? "" : "e4m3/e5m2 accumulate in .f32 or .f16";
  }
  if (t.a == MmaType::S8 || t.a == MmaType::U8) return "integer wgmma (s8/u8) is not simulated";
  return "this combination of element types";
}

}  // namespace

void Parser::apply_wgmma_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                                   std::string_view opcode_text, int line) {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  if (parts.size() < 2)
    fail(line, quoted + ": wgmma needs .mma_async, .fence, .commit_group or .wait_group");
  const std::string_view member = parts[1];
  if (member == "mma_async")
    inst.op = Opcode::Wgmma;
  else if (member == "fence")
    inst.op = Opcode::WgmmaFence;
  else if (member == "commit_group")
    inst.op = Opcode::WgmmaCommit;
  else if (member == "wait_group")
    inst.op = Opcode::WgmmaWait;
  else
    fail(line, "unknown instruction " + quoted +
                   " (expected wgmma.mma_async, wgmma.fence, "
                   "wgmma.commit_group or wgmma.wait_group)");
  TensorMods& t = inst.mod.tensor;
  std::vector<MmaType> types;
  bool have_shape = false;
  for (size_t i = 2; i < parts.size(); ++i) {
    const std::string_view m = parts[i];
    if (m == "sync")
      inst.mod.sync = true;
    else if (m == "aligned")
      inst.mod.aligned = true;
    else if (inst.op == Opcode::Wgmma && m == "sp")
      fail_unsupported(line, quoted + ": sparse wgmma (wgmma.mma_async.sp) is not simulated");
    else if (inst.op == Opcode::Wgmma && m == "satfinite")
      fail_unsupported(line, quoted + ": integer wgmma (.satfinite) is not simulated");
    else if (inst.op == Opcode::Wgmma && !have_shape && parse_tensor_shape(m, t))
      have_shape = true;
    else if (inst.op == Opcode::Wgmma && parse_mma_type(m))
      types.push_back(*parse_mma_type(m));
    else if (inst.op == Opcode::Wgmma && (m == "b1" || m == "and" || m == "popc"))
      fail_unsupported(line,
                       quoted + ": this wgmma form (." + std::string(m) + ") is not simulated");
    else
      fail(line, "unknown modifier '." + std::string(m) + "' in " + quoted);
  }
  if (!inst.mod.sync || !inst.mod.aligned) fail(line, quoted + " needs .sync.aligned");
  if (inst.op != Opcode::Wgmma) return;
  if (!have_shape) fail(line, quoted + " needs a shape (.m64n128k16, ...)");
  if (types.size() != 3) fail(line, quoted + " needs three types: .dtype.atype.btype");
  t.d = t.c = types[0], t.a = types[1], t.b = types[2];
  int k = 0;
  if (const std::string why = wgmma_types(t, k); !why.empty())
    fail_unsupported(line, quoted + " is not simulated: " + why);
  if (t.m != 64 || t.k != k || t.n < 8 || t.n > 256 || t.n % 8 != 0)
    fail(line, quoted + ": the shape must be .m64nNk" + std::to_string(k) +
                   " with N a multiple of 8 from 8 to 256");
}

void Parser::check_wgmma_operands(Instruction& inst, std::string_view opcode_text, int line) const {
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  const auto& ops = inst.ops;
  auto count = [&](size_t n) {
    if (ops.size() != n)
      fail(line, quoted + " takes " + std::to_string(n) + " operands, found " +
                     std::to_string(ops.size()));
  };
  switch (inst.op) {
    case Opcode::WgmmaFence:
    case Opcode::WgmmaCommit:
      count(0);
      return;
    case Opcode::WgmmaWait:
      count(1);
      if (ops[0].kind != Operand::Kind::Imm || ops[0].bits > 7)
        fail(line, quoted + " needs a constant from 0 to 7 (the groups left pending)");
      return;
    default:
      break;
  }
  TensorMods& t = inst.mod.tensor;
  const bool sixteen_bit = t.a == MmaType::F16 || t.a == MmaType::BF16;
  if (ops.size() < 3) fail(line, quoted + " needs d, a, b, scale-d and the immediates");
  t.a_desc = ops[1].kind == Operand::Kind::Reg;
  if (!t.a_desc && !(ops[1].kind == Operand::Kind::Vec && ops[1].vec_count == 4))
    fail(line, quoted + ": A is a 64-bit matrix descriptor register or a vector of 4 registers");
  // d, a, b, scale-d, imm-scale-a, imm-scale-b (+ imm-trans-a with a descriptor) (+ imm-trans-b)
  count(sixteen_bit ? (t.a_desc ? 8 : 7) : 6);
  const int d_regs = t.d == MmaType::F32 ? t.n / 2 : t.n / 4;
  if (ops[0].kind != Operand::Kind::Vec || ops[0].vec_count != d_regs)
    fail(line, quoted + ": D is a vector of " + std::to_string(d_regs) + " registers (N = " +
                   std::to_string(t.n) + ", ." + std::string(mma_type_name(t.d)) + ")");
  if (ops[2].kind != Operand::Kind::Reg)
    fail(line, quoted + ": B is a 64-bit matrix descriptor register");
  if (ops[3].kind != Operand::Kind::Reg && ops[3].kind != Operand::Kind::Imm)
    fail(line, quoted + ": scale-d is a predicate or a constant");
  auto imm = [&](size_t i, const char* what, bool sign) -> bool {
    const Operand& o = ops[i];
    const auto v = static_cast<int64_t>(o.bits);
    if (o.kind != Operand::Kind::Imm || (sign ? (v != 1 && v != -1) : (v != 0 && v != 1)))
      fail(line, quoted + ": " + what + " (operand " + std::to_string(i + 1) + ") must be " +
                     (sign ? "1 or -1" : "0 or 1"));
    return sign ? v == -1 : v == 1;
  };
  t.neg_a = imm(4, "imm-scale-a", true);
  t.neg_b = imm(5, "imm-scale-b", true);
  if (sixteen_bit) {
    if (t.a_desc) t.trans_a = imm(6, "imm-trans-a", false);
    t.trans_b = imm(t.a_desc ? 7 : 6, "imm-trans-b", false);
  }
}

}  // namespace warplab::ptx::detail
