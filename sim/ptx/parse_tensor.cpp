// Modifiers of the tensor-core instructions: mma.sync, ldmatrix, stmatrix, movmatrix.
//
// A warp-wide matrix instruction names its shape (.m16n8k16), the layouts of A and B (.row.col)
// and up to four element types (d, a, b, c), in that order:
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32  d, a, b, c;
//   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16        {r0,r1,r2,r3}, [addr];
//   stmatrix.sync.aligned.m8n8.x2.shared.b16              [addr], {r0,r1};
//   movmatrix.sync.aligned.m8n8.trans.b16                 d, a;
// WarpLab simulates the shapes and types listed in supported_mma(); any other valid combination
// (m8n8k4, m16n8k4, sparse mma.sp, b1, f64, ...) is refused as unsupported, so only the kernels
// that use it are refused, at launch.
#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {
namespace {

}  // namespace

std::optional<MmaType> parse_mma_type(std::string_view m) {
  for (int i = 1; i <= static_cast<int>(MmaType::S32); ++i)
    if (mma_type_name(static_cast<MmaType>(i)) == m) return static_cast<MmaType>(i);
  return std::nullopt;
}

namespace {

bool is_float8(MmaType t) { return t == MmaType::E4M3 || t == MmaType::E5M2; }
bool is_int8(MmaType t) { return t == MmaType::S8 || t == MmaType::U8; }

// The mma.sync forms WarpLab simulates (all .row.col): an empty string, or why not.
std::string supported_mma(const TensorMods& t, bool satfinite) {
  const int shape = t.m * 10000 + t.n * 100 + t.k;
  if (!t.a_row || !t.b_col) return "only the .row.col layout exists for this shape";
  if ((t.a == MmaType::F16 || t.a == MmaType::BF16) && t.a == t.b) {
    if (shape != 160808 && shape != 160816) return "f16/bf16 mma needs .m16n8k8 or .m16n8k16";
    if (t.d == MmaType::F32 && t.c == MmaType::F32) return satfinite ? "no .satfinite here" : "";
    if (t.a == MmaType::F16 && t.d == MmaType::F16 && t.c == MmaType::F16)
      return satfinite ? "no .satfinite here" : "";
    return "f16 mma accumulates in .f32 or .f16 (bf16: .f32 only)";
  }
  if (t.a == MmaType::TF32 && t.b == MmaType::TF32) {
    if (shape != 160808) return "tf32 mma is simulated for .m16n8k8 only";
    if (t.d != MmaType::F32 || t.c != MmaType::F32) return "tf32 mma accumulates in .f32";
    return satfinite ? "no .satfinite here" : "";
  }
  if (is_int8(t.a) && is_int8(t.b)) {
    if (shape != 160832) return "s8/u8 mma is simulated for .m16n8k32 only";
    if (t.d != MmaType::S32 || t.c != MmaType::S32) return "s8/u8 mma accumulates in .s32";
    return "";
  }
  if (is_float8(t.a) && is_float8(t.b)) {
    if (shape != 160832) return "e4m3/e5m2 mma needs .m16n8k32";
    if (t.d != MmaType::F32 || t.c != MmaType::F32)
      return "e4m3/e5m2 mma is simulated with .f32 accumulators only";
    return satfinite ? "no .satfinite here" : "";
  }
  return "this combination of element types";
}

}  // namespace

// ".m16n8k16" -> 16, 8, 16; ".m8n8" -> 8, 8, 0.
bool parse_tensor_shape(std::string_view m, TensorMods& t) {
  int v[3] = {0, 0, 0};
  const char keys[3] = {'m', 'n', 'k'};
  size_t i = 0;
  for (int part = 0; part < 3 && i < m.size(); ++part) {
    if (m[i] != keys[part]) return false;
    ++i;
    const size_t begin = i;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9' && i - begin < 3)
      v[part] = v[part] * 10 + (m[i++] - '0');
    if (i == begin) return false;
  }
  if (i != m.size() || v[0] == 0 || v[1] == 0) return false;
  if (v[0] > 255 || v[1] > 256 || v[2] > 255) return false;
  t.m = static_cast<uint8_t>(v[0]), t.n = static_cast<uint16_t>(v[1]),
  t.k = static_cast<uint8_t>(v[2]);
  return true;
}

bool is_tensor_op(Opcode op) {
  return op == Opcode::Mma || op == Opcode::Ldmatrix || op == Opcode::Stmatrix ||
         op == Opcode::Movmatrix;
}

void Parser::apply_tensor_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                                    std::string_view opcode_text, int line) {
  TensorMods& t = inst.mod.tensor;
  const Opcode op = inst.op;
  const std::string quoted = "'" + std::string(opcode_text) + "'";
  std::vector<MmaType> types;
  bool have_shape = false, have_layout_a = false, satfinite = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string_view m = parts[i];
    if (m == "sync")
      inst.mod.sync = true;
    else if (m == "aligned")
      inst.mod.aligned = true;
    else if (!have_shape && parse_tensor_shape(m, t))
      have_shape = true;
    else if (op == Opcode::Mma && (m == "row" || m == "col")) {
      if (!have_layout_a)
        t.a_row = m == "row", have_layout_a = true;
      else
        t.b_col = m == "col";
    } else if (op == Opcode::Mma && m == "satfinite")
      satfinite = true;
    else if (op == Opcode::Mma && m == "sp")
      fail_unsupported(line, quoted + ": sparse mma (mma.sp) is not simulated");
    else if (op == Opcode::Mma && parse_mma_type(m))
      types.push_back(*parse_mma_type(m));
    else if (op == Opcode::Mma &&
             (m == "f64" || m == "b1" || m == "s4" || m == "u4" || m.rfind("kind::", 0) == 0 ||
              m == "and" || m == "xor" || m == "popc" || m == "block_scale" ||
              m.rfind("scale_vec", 0) == 0))
      fail_unsupported(line, quoted + ": this mma form (." + std::string(m) + ") is not simulated");
    else if ((op == Opcode::Ldmatrix || op == Opcode::Stmatrix) &&
             (m == "x1" || m == "x2" || m == "x4"))
      t.num = static_cast<uint8_t>(m[1] - '0');
    else if (op != Opcode::Mma && m == "trans")
      t.trans = true;
    else if ((op == Opcode::Ldmatrix || op == Opcode::Stmatrix) &&
             (m == "shared" || m == "shared::cta"))
      inst.space = Space::Shared;
    else if (op != Opcode::Mma && m == "b16")
      inst.type = Type::B16;
    else if (op != Opcode::Mma && (m == "b8" || m == "b8x16" || m.rfind("b6x16", 0) == 0 ||
                                   m.rfind("b4x16", 0) == 0 || m == "src_fmt" || m == "dst_fmt"))
      fail_unsupported(line, quoted + ": only the .b16 form is simulated");
    else
      fail(line, "unknown modifier '." + std::string(m) + "' in " + quoted);
  }
  if (!inst.mod.sync || !inst.mod.aligned) fail(line, quoted + " needs .sync.aligned");
  if (!have_shape) fail(line, quoted + " needs a shape (.m16n8k16, .m8n8, ...)");
  if (op == Opcode::Mma) {
    if (types.size() != 4) fail(line, quoted + " needs four types: .dtype.atype.btype.ctype");
    t.d = types[0], t.a = types[1], t.b = types[2], t.c = types[3];
    if (const std::string why = supported_mma(t, satfinite); !why.empty())
      fail_unsupported(line, quoted + " is not simulated: " + why);
    inst.mod.sat = satfinite;
    return;
  }
  if (t.m != 8 || t.n != 8 || t.k != 0)
    fail_unsupported(line, quoted + ": only the .m8n8 shape is simulated");
  if (inst.type != Type::B16) fail(line, quoted + " needs the type .b16");
  if (op == Opcode::Movmatrix) {
    if (!t.trans) fail(line, quoted + " needs .trans");
    return;
  }
  if (t.num == 0) fail(line, quoted + " needs .x1, .x2 or .x4");
  // Without .shared the address is generic (it must still point into shared memory).
  if (inst.space == Space::None) inst.space = Space::Generic;
}

}  // namespace warplab::ptx::detail
