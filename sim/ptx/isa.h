// PTX's types, state spaces, modifiers and the instruction table (isa.def), shared by every layer.
//
// PTX is NVIDIA's virtual ISA: nvcc/NVRTC emit it, and the driver's JIT (ptxas) turns it into the
// SASS a real SM executes. WarpLab simulates PTX, not SASS, so instruction counts here are PTX
// instruction counts: close to, but not the same as, what Nsight Compute counts on the SASS.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace warplab::ptx {

enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  F32,
  F64,
};

int type_bits(Type t);                                  // storage width in bits (Pred: 1, None: 0)
bool is_float(Type t);                                  // f16, f16x2, bf16, bf16x2, f32, f64
bool is_signed_int(Type t);                             // s8..s64
bool is_unsigned_int(Type t);                           // u8..u64
bool is_bits(Type t);                                   // b8..b128
std::string_view type_name(Type t);                     // ".f32" -> "f32"
std::optional<Type> parse_type(std::string_view name);  // "f32" -> F32 (no leading dot)

enum class Space : uint8_t {
  None,
  Reg,
  Global,
  Shared,
  Local,
  Param,
  Const,
  Generic,
  SharedCluster
};
std::string_view space_name(Space s);

enum class Rounding : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna };
std::string_view rounding_name(Rounding r);

enum class CmpOp : uint8_t {
  None,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // ordered (float) or plain (integer)
  Lo,
  Ls,
  Hi,
  Hs,  // unsigned integer
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,  // unordered float: true if either operand is NaN
  Num,
  Nan,  // both not NaN / either NaN
};
std::string_view cmp_name(CmpOp c);

enum class BoolOp : uint8_t { None, And, Or, Xor };   // setp/set combining op
enum class MulMode : uint8_t { None, Lo, Hi, Wide };  // integer mul/mad/mul24
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, Cas, Exch, And, Or, Xor };
enum class BarMode : uint8_t {
  None,
  Sync,
  Arrive,
  Red,
  WarpSync
};  // bar.sync == barrier.sync.aligned;
    // WarpSync = bar.warp.sync (__syncwarp)
enum class FnsMode : uint8_t { None };
enum class TestpMode : uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class ShfMode : uint8_t { None, LeftWrap, LeftClamp, RightWrap, RightClamp };
enum class PrmtMode : uint8_t { None, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
enum class CacheOp : uint8_t { None, Ca, Cg, Cs, Lu, Cv, Wb, Wt };
// Memory-consistency qualifiers of ld/st/atom/red/fence/membar (the functional model ignores them;
// they are kept for the timing model, disassembly and lessons on the memory model).
enum class MemScope : uint8_t { None, Cta, Gpu, Sys, Cluster };  // membar.gl is Gpu
enum class MemSem : uint8_t { None, Weak, Relaxed, Acquire, Release, AcqRel, Sc };

// ---- tensor cores: the shape, layouts and element types of mma/ldmatrix/stmatrix/movmatrix ----
// mma.sync names four element types (d, a, b, c), some of which (tf32, e4m3, e5m2) are not types a
// register can be declared with, so they live here rather than in Instruction::type.
enum class MmaType : uint8_t { None, F16, BF16, TF32, E4M3, E5M2, S8, U8, F32, S32 };
std::string_view mma_type_name(MmaType t);
struct TensorMods {
  uint8_t m = 0, k = 0;  // .m16n8k16 (mma), .m8n8 (ldmatrix/stmatrix/movmatrix), .m64n256k16
  uint16_t n = 0;        // (wgmma: N up to 256)
  bool a_row = true;            // .row (A row-major) / .col
  bool b_col = true;            // .col (B column-major) / .row
  MmaType d = MmaType::None, a = MmaType::None, b = MmaType::None, c = MmaType::None;
  uint8_t num = 0;     // ldmatrix/stmatrix .x1/.x2/.x4 (number of 8x8 matrices)
  bool trans = false;  // ldmatrix/stmatrix/movmatrix .trans
  // wgmma.mma_async (parse_wgmma.cpp): the immediate operands, and where A comes from
  bool a_desc = false;           // A from a shared-memory matrix descriptor (else 4 registers)
  bool neg_a = false, neg_b = false;  // imm-scale-a/b = -1
  bool trans_a = false, trans_b = false;  // imm-trans-a/b = 1: MN-major in shared memory
};

// mbarrier.<op> (isa.def: Mbarrier).
enum class MbarOp : uint8_t {
  None,
  Init,
  Arrive,      // .expect_tx and .noComplete are flags (Modifiers)
  ArriveDrop,  // arrive_drop: also drops one expected arrival for the phases after
  ExpectTx,
  CompleteTx,
  TestWait,
  TryWait,
  Inval,
  PendingCount
};

// Every modifier an instruction can carry. Fields that do not apply stay at their defaults.
struct Modifiers {
  Rounding rounding = Rounding::None;
  CmpOp cmp = CmpOp::None;
  BoolOp bool_op = BoolOp::None;  // setp.lt.and..., set.*.and
  MulMode mul = MulMode::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  AtomOp atom = AtomOp::None;  // atom/red op; redux.sync op (add/min/max/and/or/xor)
  BarMode bar = BarMode::None;
  BoolOp bar_red = BoolOp::None;  // bar.red.and/or (.popc uses popc = true)
  TestpMode testp = TestpMode::None;
  ShfMode shf = ShfMode::None;
  PrmtMode prmt = PrmtMode::None;
  CacheOp cache = CacheOp::None;
  uint8_t vec = 1;  // .v2 / .v4 vector width of ld/st (1 = scalar)
  bool ftz = false;
  bool sat = false;
  bool approx = false;
  bool full = false;       // div.full.f32
  bool carry_out = false;  // .cc (add.cc, sub.cc, addc.cc, mad.cc ...)
  bool uni = false;        // bra.uni, call.uni
  bool sync = false;       // .sync variants of shfl/vote/match/redux/bar
  bool aligned = false;    // barrier.sync.aligned
  bool nc = false;         // ld.global.nc (read-only data path)
  bool volatile_ = false;
  bool relaxed_or_acquire = false;  // ld/st/atom memory-order qualifiers (sem ignored by the model)
  bool popc = false;                // bar.red.popc
  bool shiftamt = false;            // bfind.shiftamt (unused), kept for completeness
  bool abs = false;                 // min/max .abs (unused by nvcc), kept for completeness
  bool nan = false;                 // min/max .NaN
  bool xorsign = false;             // min/max .xorsign.abs
  bool match_all = false;           // match.all (false: match.any)
  bool relu = false;                // cvt .relu
  bool to_space = false;            // cvta.to.<space> (false: cvta.<space>, i.e. to generic)
  bool mode_l2_evict = false;       // cache-eviction hints are parsed and ignored
  MemScope mem_scope = MemScope::None;  // .cta/.gpu/.sys (membar.gl/.cta/.sys too)
  MemSem mem_sem = MemSem::None;        // .relaxed/.acquire/.release/.acq_rel/.sc/.weak
  TensorMods tensor;                    // mma/ldmatrix/stmatrix/movmatrix (parse_tensor.cpp)
  // asynchronous copies and barriers (isa.def's section of that name)
  MbarOp mbar = MbarOp::None;
  Space async_src = Space::None;  // cp.async(.bulk): the source space (Instruction::space: dst)
  bool parity = false;            // mbarrier.test_wait/try_wait.parity
  bool expect_tx = false;         // mbarrier.arrive.expect_tx
  bool no_complete = false;       // mbarrier.arrive.noComplete
  bool noinc = false;             // cp.async.mbarrier.arrive.noinc
  bool bulk_group = false;        // cp.async.bulk ... .bulk_group (else mbarrier::complete_tx)
  bool bulk_read = false;         // cp.async.bulk.wait_group.read
  bool cache_hint = false;        // .L2::cache_hint: a last operand (the policy), ignored
  bool proxy_async = false;       // fence.proxy.async
  bool mbarrier_init = false;     // fence.mbarrier_init
  bool cluster_barrier = false;   // barrier.cluster.arrive/wait (parse_instruction.cpp)
  // TMA tensor copies and tensor maps (parse_tma.cpp)
  uint8_t tma_rank = 0;          // cp.async.bulk.tensor.Nd: N
  uint8_t tmap_field = 0;        // tensormap.replace: tensormap_field_offset's field number
  bool proxy_tensormap = false;  // fence.proxy.tensormap::generic
};

// The functional-unit classes the timing model has pipelines for.
enum class UnitClass : uint8_t {
  Typed,
  Int,
  Fp32,
  Fp64,
  Half,
  Sfu,
  Ldst,
  Barrier,
  Warp,
  Branch,
  Misc,
  Tensor  // the sub-partition's tensor core (mma.sync)
};
std::string_view unit_name(UnitClass u);

enum class Opcode : uint16_t {
#define WARPLAB_OP(E, NAME, UNIT, DESC) E,
#include "sim/ptx/isa.def"
#undef WARPLAB_OP
  Count_
};

struct OpcodeInfo {
  Opcode op;
  std::string_view name;  // PTX mnemonic, e.g. "add"
  UnitClass unit;         // Typed = resolved by type (unit_of)
  std::string_view description;
};

const OpcodeInfo& opcode_info(Opcode op);
// The section "asynchronous copies and barriers" of isa.def: cp.async*, mbarrier, elect.
constexpr bool is_async_op(Opcode op) { return op >= Opcode::CpAsync && op <= Opcode::Elect; }
// The section "warpgroup MMA": wgmma.mma_async, wgmma.fence, wgmma.commit_group, wgmma.wait_group.
constexpr bool is_wgmma_op(Opcode op) { return op >= Opcode::Wgmma && op <= Opcode::WgmmaWait; }
// An access the timing model sends through the SM's load/store path (L1TEX, shared memory):
// loads, stores, atomics, prefetches, ldmatrix/stmatrix, cp.async (LDGSTS), and the tensor-map
// writes ptxas lowers to plain ones (tensormap.replace: STS/STG; tensormap.cp_fenceproxy: an
// ATOMG.EXCH a lane a word, sim/func/exec_tma.cpp).
constexpr bool is_lsu_access(Opcode op) {
  return op == Opcode::Ld || op == Opcode::Ldu || op == Opcode::St || op == Opcode::Atom ||
         op == Opcode::Red || op == Opcode::Prefetch || op == Opcode::Prefetchu ||
         op == Opcode::Ldmatrix || op == Opcode::Stmatrix || op == Opcode::CpAsync ||
         op == Opcode::TensormapReplace || op == Opcode::TensormapCpFenceproxy;
}
std::optional<Opcode> parse_opcode(std::string_view mnemonic);  // "barrier" maps to Bar
constexpr int kOpcodeCount = static_cast<int>(Opcode::Count_);

struct Instruction;
// The unit an instruction issues to: resolves Typed by the instruction's type, and moves
// approximate rcp/sqrt and f64 transcendentals to the right pipe.
UnitClass unit_of(const Instruction& inst);

// Instruction classes used for counts in reports (a coarse, stable grouping of unit_of()).
enum class InstClass : uint8_t {
  Int,
  Fp32,
  Fp64,
  Half,
  Sfu,
  Load,
  Store,
  Atomic,
  Shared,
  Barrier,
  Warp,
  Control,
  Misc,
  Tensor,
  Count_
};
std::string_view inst_class_name(InstClass c);
InstClass class_of(const Instruction& inst);
constexpr int kInstClassCount = static_cast<int>(InstClass::Count_);

}  // namespace warplab::ptx
