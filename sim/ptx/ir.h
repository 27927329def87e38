// The PTX module as WarpLab holds it after parsing: the IR.
//
// The parser (parser.h) produces it; the functional executor (sim/func) decodes it into its own
// fast form; the timing model, disassembly and UI read it. It carries no timing types.
// Registers are numbered densely per function so executors can keep them in flat arrays.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/ptx/isa.h"

namespace warplab::ptx {

enum class SpecialReg : uint8_t {
  None,
  Tid,
  Ntid,
  Ctaid,
  Nctaid,
  Laneid,
  Warpid,
  Nwarpid,
  Smid,
  Nsmid,
  Gridid,
  Clock,
  Clock64,
  Globaltimer,
  LanemaskEq,
  LanemaskLt,
  LanemaskLe,
  LanemaskGt,
  LanemaskGe,
  TotalSmemSize,
  DynamicSmemSize,
  // The shared-memory region the driver reserves per block (sm_80 and later; cooperative groups
  // keep their tile barriers there): its begin, end and size, and two offsets inside it.
  ReservedSmemBegin,
  ReservedSmemEnd,
  ReservedSmemCap,
  ReservedSmemOffset0,
  ReservedSmemOffset1,
  // Thread-block clusters. A launch without a cluster shape makes every block a cluster of one
  // (PTX: an implicit cluster): %clusterid = %ctaid, %cluster_ctarank = 0, ...
  ClusterId,
  NClusterId,
  ClusterCtaId,
  ClusterNCtaId,
  ClusterCtaRank,
  ClusterNCtaRank,
  IsExplicitCluster,
};
std::string_view special_reg_name(SpecialReg r);  // "%tid"

struct Operand {
  enum class Kind : uint8_t {
    None,
    Reg,      // %r1 (reg = index into Function::regs); neg = "!%p" for predicate sources
    Imm,      // integer or float literal; bits hold the value (see imm_kind)
    Addr,     // [base+offset]: base is a register (reg >= 0) or a symbol (symbol >= 0), or absolute
    Vec,      // {%r1, %r2, _, %r4}: vec[i] is a register index, -1 for the sink "_"
    Label,    // branch target: label = index into Function::instructions
    Special,  // %tid.x etc.: special + component (0=x,1=y,2=z)
    Symbol,   // a variable or function name used as a value (mov.u64 %rd1, smem;)
    Sink,     // "_" as a destination
  };
  enum class ImmKind : uint8_t { Int, F32, F64 };  // F32: 0fXXXXXXXX bits; F64: 0d... or decimal

  Kind kind = Kind::None;
  ImmKind imm_kind = ImmKind::Int;
  bool neg = false;  // predicate negation "!%p"
  uint8_t vec_count = 0;
  uint8_t component = 0;  // special register component
  SpecialReg special = SpecialReg::None;
  int32_t reg = -1;  // Reg, Addr base register
  enum class Scope : uint8_t {
    Variable,   // symbol indexes Module::variables (.global/.shared/.const/.local, any scope)
    Param,      // symbol indexes the current Function::params
    Return,     // symbol indexes the current Function::returns (func_retval0)
    CallParam,  // symbol indexes Function::call_params (".param" declared in a call scope { })
    Function,   // symbol indexes Module::functions (a function's address)
  };
  Scope scope = Scope::Variable;  // Addr/Symbol: what `symbol` indexes
  int32_t symbol = -1;            // Addr/Symbol: index (see scope); -1 with Addr = absolute/reg
  int32_t label = -1;             // Label: instruction index
  int64_t offset = 0;             // Addr: byte offset
  uint64_t bits = 0;              // Imm: value (Int: two's complement; F32/F64: IEEE bits)
  std::array<int32_t, 4> vec{-1, -1, -1, -1};
  std::vector<int32_t> wide;  // Vec of more than 4 elements (wgmma's accumulators): all of them
};

struct SourceLoc {
  int32_t file = -1;  // index into Module::files, -1 when unknown
  int32_t line = 0;
  int32_t column = 0;
};

struct Instruction {
  Opcode op = Opcode::Mov;
  Type type = Type::None;     // main type: add.f32 -> F32; cvt.f32.s32 -> F32 (destination)
  Type type2 = Type::None;    // second type: cvt.f32.s32 -> S32 (source); setp.lt.f32 -> None
  Space space = Space::None;  // ld/st/atom/red/cvta/isspacep/prefetch state space
  Modifiers mod;
  int32_t guard = -1;        // predicate register guarding the instruction (@%p), -1 when none
  bool guard_neg = false;    // @!%p
  std::vector<Operand> ops;  // destinations first, then sources, in PTX order; a "d|p" pair is
                             // two operands (the second after the first) and `pair_dest` is set
  bool pair_dest = false;    // setp/shfl/... wrote "%d|%p": ops[1] is the second destination
  int32_t callee = -1;       // Call: index into Module::functions
  std::vector<Operand>
      call_returns;                // Call: the (retval) params, Symbol operands, Scope::CallParam
  std::vector<Operand> call_args;  // Call: argument params, Symbol operands, Scope::CallParam
  int32_t ptx_line = 0;            // line in the PTX text (1-based)
  SourceLoc loc;                   // innermost .loc (may be an inlined header function)
  SourceLoc user_loc;  // outermost .loc (inlined_at chain resolved to the kernel's own file)
  std::string text;    // the instruction as written (for disassembly and errors)
};

struct RegInfo {
  std::string name;  // "%r7"
  Type type = Type::None;
};

struct Variable {
  std::string name;
  Space space = Space::None;  // Global, Shared, Const, Local, Param
  Type type = Type::B8;       // element type
  uint32_t align = 1;         // bytes
  uint64_t size = 0;          // bytes; 0 with is_extern for dynamic shared memory
  uint64_t count = 1;         // elements (size / element size), 0 for unsized arrays
  bool is_extern = false;
  bool is_visible = false;
  std::vector<uint8_t> init;  // initial bytes; bytes past its end (all when empty) are zeros
  int32_t ptx_line = 0;
  int32_t function = -1;  // declaring function (index into Module::functions) for
                          // function-scope variables (demoted .shared, __local_depot), else -1
};

struct Param {
  std::string name;
  Type type = Type::B8;  // element type
  uint32_t align = 0;    // 0 = natural
  uint64_t size = 0;     // bytes (arrays: elements * element size)
  uint64_t offset = 0;   // byte offset in the function's parameter block (kernel params
                         // are laid out with natural/declared alignment, as the driver does)
  bool is_ptr = false;   // .ptr attribute present (rare in nvcc output)
};

struct PerformanceHints {
  std::array<uint32_t, 3> maxntid{0, 0, 0};
  std::array<uint32_t, 3> reqntid{0, 0, 0};
  uint32_t minnctapersm = 0;
  uint32_t maxnreg = 0;
  // Thread-block clusters (sim/func/cluster.h): .reqnctapercluster X[,Y[,Z]] (0: none),
  // .explicitcluster, .maxclusterrank N (0: none).
  std::array<uint32_t, 3> reqnctapercluster{0, 0, 0};
  bool explicitcluster = false;
  uint32_t maxclusterrank = 0;
};

// Valid PTX that WarpLab does not simulate (an out-of-scope instruction, a register of a feature it
// lacks). The parser keeps the reason and goes on, so that only the kernels that contain or call
// it are refused, when they are launched (func::Program::check_kernel).
struct UnsupportedCode {
  int32_t ptx_line = 0;
  SourceLoc loc, user_loc;  // .loc where it stands (user_loc: the kernel's own source line)
  std::string message;
};

struct Function {
  std::string name;
  bool is_entry = false;  // .entry (kernel) vs .func
  bool is_visible = false;
  bool is_extern = false;      // declaration only
  std::vector<Param> params;   // kernel parameters / function arguments
  std::vector<Param> returns;  // .func return values
  uint64_t param_bytes = 0;    // total size of the parameter block
  std::vector<RegInfo> regs;
  std::vector<Param> call_params;  // .param declared inside call scopes { ... } (param0, retval0);
                                   // each gets its own slot even when names repeat across scopes
  std::vector<Instruction> instructions;
  std::vector<UnsupportedCode> unsupported;  // left out of `instructions`; refused at launch
  std::vector<std::pair<std::string, int32_t>> labels;  // name -> instruction index
  std::vector<int32_t> nounroll;  // instruction indices a `.pragma "nounroll";` precedes
  PerformanceHints hints;
  int32_t ptx_line = 0;
};

struct Module {
  std::string path;  // file the PTX came from (for errors)
  int version_major = 0, version_minor = 0;
  std::string target;  // "sm_90"
  int address_size = 64;
  std::vector<std::string> files;   // .file index -> path (index 0 unused if .file starts at 1)
  std::vector<Variable> variables;  // module-scope .global/.shared/.const variables, plus
                                    // function-scope .shared (demoted) and .local variables
  std::vector<Function> functions;

  const Function* find_function(std::string_view name) const;
  int32_t find_variable(std::string_view name) const;  // -1 when absent
};

// What one module may declare. PTX sets few limits of its own; these are ptxas's and the CUDA
// driver's for sm_90, or (where marked) WarpLab's, so that a hostile file is a load error naming
// its line instead of an allocation of many gigabytes. The parser checks every declaration, the
// decoder (sim/func/decode.cpp) the totals of each kernel.
namespace limits {
// WarpLab: virtual registers one function declares. nvcc's PTX for large kernels declares a few
// thousand (ptxas maps them onto at most 255 physical registers per thread); the simulator keeps
// 8 bytes per virtual register per thread, so a 1024-thread block of the limit takes 512 MiB.
inline constexpr uint64_t kRegistersPerFunction = 65536;
// ptxas: a kernel's static .shared variables take at most 48 KB (0xc000); more needs dynamic
// shared memory (extern .shared) and the launch's shared-memory size.
inline constexpr uint64_t kStaticSharedBytes = 48 * 1024;
// CUDA: local memory per thread, at most 512 KB.
inline constexpr uint64_t kLocalBytesPerThread = 512 * 1024;
// ptxas: the module's .const variables share one 64 KB constant bank.
inline constexpr uint64_t kConstBytes = 64 * 1024;
// WarpLab: the module's .global variables together, at most 1 GiB (each is allocated and
// zeroed when a kernel that uses it is launched; experiment buffers hold larger arrays).
inline constexpr uint64_t kGlobalBytes = uint64_t{1} << 30;
// CUDA 12.1 and later: a kernel's parameters take at most 32,764 bytes; a .param array of a
// device function is held to the same size.
inline constexpr uint64_t kParamBytes = 32764;
}  // namespace limits

}  // namespace warplab::ptx
