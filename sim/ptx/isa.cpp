#include "sim/ptx/isa.h"

#include <array>
#include <string>
#include <unordered_map>

#include "sim/ptx/ir.h"

namespace warplab::ptx {
namespace {

constexpr std::array<OpcodeInfo, kOpcodeCount> kTable = {{
#define WARPLAB_OP(E, NAME, UNIT, DESC) {Opcode::E, NAME, UnitClass::UNIT, DESC},
#include "sim/ptx/isa.def"
#undef WARPLAB_OP
}};

struct TypeName {
  Type type;
  std::string_view name;
  int bits;
};
constexpr std::array<TypeName, 21> kTypes = {{
    {Type::None, "", 0},          {Type::Pred, "pred", 1},    {Type::B8, "b8", 8},
    {Type::B16, "b16", 16},       {Type::B32, "b32", 32},     {Type::B64, "b64", 64},
    {Type::B128, "b128", 128},    {Type::U8, "u8", 8},        {Type::U16, "u16", 16},
    {Type::U32, "u32", 32},       {Type::U64, "u64", 64},     {Type::S8, "s8", 8},
    {Type::S16, "s16", 16},       {Type::S32, "s32", 32},     {Type::S64, "s64", 64},
    {Type::F16, "f16", 16},       {Type::F16x2, "f16x2", 32}, {Type::BF16, "bf16", 16},
    {Type::BF16x2, "bf16x2", 32}, {Type::F32, "f32", 32},     {Type::F64, "f64", 64},
}};

}  // namespace

int type_bits(Type t) { return kTypes[static_cast<int>(t)].bits; }
std::string_view type_name(Type t) { return kTypes[static_cast<int>(t)].name; }
std::optional<Type> parse_type(std::string_view name) {
  for (const auto& t : kTypes)
    if (!t.name.empty() && t.name == name) return t.type;
  return std::nullopt;
}
bool is_float(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 ||
         t == Type::F32 || t == Type::F64;
}
bool is_signed_int(Type t) { return t >= Type::S8 && t <= Type::S64; }
bool is_unsigned_int(Type t) { return t >= Type::U8 && t <= Type::U64; }
bool is_bits(Type t) { return t >= Type::B8 && t <= Type::B128; }

std::string_view space_name(Space s) {
  switch (s) {
    case Space::None:
      return "";
    case Space::Reg:
      return "reg";
    case Space::Global:
      return "global";
    case Space::Shared:
      return "shared";
    case Space::Local:
      return "local";
    case Space::Param:
      return "param";
    case Space::Const:
      return "const";
    case Space::Generic:
      return "generic";
    case Space::SharedCluster:
      return "shared::cluster";
  }
  return "";
}

std::string_view rounding_name(Rounding r) {
  constexpr std::array<std::string_view, 10> n = {"",    "rn",  "rz",  "rm",  "rp",
                                                  "rni", "rzi", "rmi", "rpi", "rna"};
  return n[static_cast<int>(r)];
}

std::string_view cmp_name(CmpOp c) {
  constexpr std::array<std::string_view, 19> n = {"",    "eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                                  "lo",  "ls",  "hi",  "hs",  "equ", "neu", "ltu",
                                                  "leu", "gtu", "geu", "num", "nan"};
  return n[static_cast<int>(c)];
}

std::string_view unit_name(UnitClass u) {
  constexpr std::array<std::string_view, 12> n = {
      "typed", "int",  "fp32",   "fp64",  "half", "sfu",
      "ldst",  "barrier", "warp", "branch", "misc", "tensor"};
  return n[static_cast<int>(u)];
}

const OpcodeInfo& opcode_info(Opcode op) { return kTable[static_cast<int>(op)]; }

std::optional<Opcode> parse_opcode(std::string_view mnemonic) {
  if (mnemonic == "barrier") return Opcode::Bar;
  // The families whose members differ by modifiers (the parser picks the member).
  if (mnemonic == "cp") return Opcode::CpAsync;
  if (mnemonic == "mbarrier") return Opcode::Mbarrier;
  if (mnemonic == "elect") return Opcode::Elect;
  if (mnemonic == "wgmma") return Opcode::Wgmma;
  if (mnemonic == "tensormap") return Opcode::TensormapReplace;
  for (const auto& e : kTable)
    if (e.name == mnemonic) return e.op;
  return std::nullopt;
}

UnitClass unit_of(const Instruction& inst) {
  const UnitClass u = opcode_info(inst.op).unit;
  const Type t = inst.type;
  if ((inst.op == Opcode::Rcp || inst.op == Opcode::Sqrt) && inst.mod.approx && t == Type::F32)
    return UnitClass::Sfu;
  if (u != UnitClass::Typed) return u;
  if (inst.op == Opcode::Cvt) {
    // Conversions that touch f64 run on the FP64 pipe; others that involve a float on the SFU-side
    // conversion path are modelled as Fp32 (the model's simplification).
    if (t == Type::F64 || inst.type2 == Type::F64) return UnitClass::Fp64;
    if (is_float(t) || is_float(inst.type2)) return UnitClass::Fp32;
    return UnitClass::Int;
  }
  switch (t) {
    case Type::F32:
      return UnitClass::Fp32;
    case Type::F64:
      return UnitClass::Fp64;
    case Type::F16:
    case Type::F16x2:
    case Type::BF16:
    case Type::BF16x2:
      return UnitClass::Half;
    default:
      return UnitClass::Int;
  }
}

std::string_view inst_class_name(InstClass c) {
  constexpr std::array<std::string_view, kInstClassCount> n = {
      "int",    "fp32",   "fp64",    "half", "sfu",     "load", "store",
      "atomic", "shared", "barrier", "warp", "control", "misc", "tensor"};
  return n[static_cast<int>(c)];
}

InstClass class_of(const Instruction& inst) {
  switch (inst.op) {
    case Opcode::Ld:
    case Opcode::Ldu:
      return inst.space == Space::Shared ? InstClass::Shared : InstClass::Load;
    case Opcode::St:
      return inst.space == Space::Shared ? InstClass::Shared : InstClass::Store;
    case Opcode::Atom:
    case Opcode::Red:
      return InstClass::Atomic;
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::CpAsync:
    case Opcode::CpAsyncBulk:
    case Opcode::CpAsyncBulkTensor:
    case Opcode::CpAsyncBulkPrefetchTensor:
      return InstClass::Load;
    case Opcode::Ldmatrix:
    case Opcode::Stmatrix:
      return InstClass::Shared;
    default:
      break;
  }
  switch (unit_of(inst)) {
    case UnitClass::Int:
      return InstClass::Int;
    case UnitClass::Fp32:
      return InstClass::Fp32;
    case UnitClass::Fp64:
      return InstClass::Fp64;
    case UnitClass::Half:
      return InstClass::Half;
    case UnitClass::Sfu:
      return InstClass::Sfu;
    case UnitClass::Barrier:
      return InstClass::Barrier;
    case UnitClass::Warp:
      return InstClass::Warp;
    case UnitClass::Branch:
      return InstClass::Control;
    case UnitClass::Tensor:
      return InstClass::Tensor;
    default:
      return InstClass::Misc;
  }
}

const Function* Module::find_function(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

int32_t Module::find_variable(std::string_view name) const {
  for (size_t i = 0; i < variables.size(); ++i)
    if (variables[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

std::string_view mma_type_name(MmaType t) {
  constexpr std::array<std::string_view, 10> n = {"",     "f16", "bf16", "tf32", "e4m3",
                                                  "e5m2", "s8",  "u8",   "f32",  "s32"};
  return n[static_cast<int>(t)];
}

std::string_view special_reg_name(SpecialReg r) {
  constexpr std::array<std::string_view, 33> n = {"",
                                                  "%tid",
                                                  "%ntid",
                                                  "%ctaid",
                                                  "%nctaid",
                                                  "%laneid",
                                                  "%warpid",
                                                  "%nwarpid",
                                                  "%smid",
                                                  "%nsmid",
                                                  "%gridid",
                                                  "%clock",
                                                  "%clock64",
                                                  "%globaltimer",
                                                  "%lanemask_eq",
                                                  "%lanemask_lt",
                                                  "%lanemask_le",
                                                  "%lanemask_gt",
                                                  "%lanemask_ge",
                                                  "%total_smem_size",
                                                  "%dynamic_smem_size",
                                                  "%reserved_smem_offset_begin",
                                                  "%reserved_smem_offset_end",
                                                  "%reserved_smem_offset_cap",
                                                  "%reserved_smem_offset_0",
                                                  "%reserved_smem_offset_1",
                                                  "%clusterid",
                                                  "%nclusterid",
                                                  "%cluster_ctaid",
                                                  "%cluster_nctaid",
                                                  "%cluster_ctarank",
                                                  "%cluster_nctarank",
                                                  "%is_explicit_cluster"};
  return n[static_cast<int>(r)];
}

}  // namespace warplab::ptx
