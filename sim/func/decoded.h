// The executor's decoded form of a kernel: what the SM's instruction decoder produces once.
//
// Hardware decodes each SASS instruction into control signals (which register-file ports to read,
// which unit to send it to) when it is fetched. WarpLab does that work once, at Program::load:
// every PTX instruction of a kernel (and of the device functions it calls) becomes a DInst with
//   - its operands resolved to *slots* of a flat per-warp register file (regs[slot][lane]);
//     immediates, symbol addresses and per-warp constant special registers (%tid, %ctaid, ...)
//     get slots of their own, filled when a warp is created, so a handler never asks "is this an
//     immediate?" in its lane loop;
//   - predicates resolved to indices of a per-warp predicate file (one 32-bit lane mask each);
//   - one handler function pointer, picked by opcode, type and modifiers;
//   - branch targets and reconvergence points (immediate post-dominators, cfg.h) as kernel pcs.
// The kernel and every function it can call are laid out in one code array, each function's
// registers in their own slot range. A recursive call saves the callee's slots and .param area
// first and restores them at its return (call_frames.h), so one range serves every activation.
// Simplified: no register allocation or SASS scheduling; PTX virtual registers are the registers
// (the timing model's scoreboard names them by their PTX index). Only their storage is shared:
// registers never live at the same time may use one slot (reg_share.h), for the simulator's
// speed, with the same values in every register a thread reads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/common/error.h"
#include "sim/ptx/ir.h"

namespace warplab::func {

struct Exec;
struct DInst;
// One warp instruction's semantics: loops over the lanes of x.exec (see exec.h).
using Handler = void (*)(Exec& x, const DInst& d);

constexpr int32_t kNoPc = -2;  // "never reconverges" (the immediate post-dominator is the exit)

// What a const slot holds; filled per warp (lane values) when the warp is created.
struct ConstSlot {
  enum class Kind : uint8_t { Value, Special, GlobalVar } kind = Kind::Value;
  uint64_t value = 0;  // Value: the bits; GlobalVar: byte offset added to the address
  ptx::SpecialReg special = ptx::SpecialReg::None;
  uint8_t component = 0;
  int32_t variable = -1;  // GlobalVar: index into Module::variables
};

struct DInst {
  static constexpr int kMaxSources = 10;  // mma.sync: 4 A + 2 B + 4 C registers
  Handler fn = nullptr;
  int32_t d[4] = {-1, -1, -1, -1};  // destination register slots (or predicate indices)
  int32_t s[kMaxSources] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};  // source register slots
  int32_t p[3] = {-1, -1, -1};              // predicate source indices
  uint8_t pneg = 0;                         // bit i: predicate source i is negated ("!%p")
  uint8_t nd = 0, ns = 0, np = 0;           // counts of d, s, p
  uint8_t vec = 1;                          // ld/st vector width, mov pack/unpack element count
  uint8_t size = 0;                         // memory: bytes per element; else result bytes
  uint8_t cls = 0;                          // ptx::InstClass for counting
  bool guard_neg = false;
  uint8_t dpred = 0;                    // bit i: d[i] is a predicate index
  bool sign = false;                    // loads: sign-extend into the register
  ptx::Space space = ptx::Space::None;  // memory: resolved space (Generic for generic)
  bool kernel_param = false;            // ld.param reads the kernel's parameter block
  int32_t guard = -1;                   // predicate index, -1 when unguarded
  int64_t offset = 0;                   // memory: address offset
  int32_t target = -1;                  // bra: target pc; call: callee entry pc
  int32_t rpc = kNoPc;                  // bra: reconvergence pc
  int32_t callee = -1;                  // call: index into DecodedKernel::funcs
  int32_t func = 0;                     // index into DecodedKernel::funcs of the owning function
  uint64_t aux = 0;                     // handler-specific constant
  uint64_t dmask = ~0ull;               // destination register width mask
  const ptx::Instruction* ir = nullptr;
  int32_t local_pc = 0;  // index within its function
};

// The fields of a step's StepInfo (cta.h) that the instruction alone fixes, worked out once at
// decode (step_head) so that CtaImpl::step copies them: its registers as the scoreboard names
// them (function-local indices of destinations, then of data and predicate sources and the
// guard), what kind of instruction it is, and the function it belongs to.
struct StepHead {
  std::array<int32_t, 8> dst_regs{};
  std::array<int32_t, 12> src_regs{};
  uint8_t dst_count = 0, src_count = 0;
  bool is_memory = false, is_store = false, is_atomic = false, is_branch = false,
       is_barrier = false;
  uint32_t access_bytes = 0;
  int32_t function = 0;  // into Module::functions
  uint8_t cls = 0;       // ptx::class_of(*ir), for the counts by class
};

// A call site's parameter copies (offsets in the per-lane .param area).
struct ParamCopy {
  uint32_t from = 0, to = 0, size = 0;
};
struct CallSite {
  std::vector<ParamCopy> args;     // caller's call-scope .param -> callee's parameters (at call)
  std::vector<ParamCopy> returns;  // callee's return values -> caller's call-scope .param (at ret)
  int32_t callee = -1;             // index into DecodedKernel::funcs (-1: a built-in function)
  bool recursive = false;          // the callee may be running already: save its frame first
};

// A function as placed in a kernel's code array.
struct DFunc {
  int32_t module_index = 0;  // into Module::functions
  int32_t entry_pc = 0;      // first pc in DecodedKernel::code
  int32_t reg_base = 0;      // first data slot of its registers
  int32_t pred_base = 0;
  uint32_t param_base = 0;       // per-lane parameter area: its .param arguments
  uint32_t return_base = 0;      // ... its return values
  uint32_t call_param_base = 0;  // ... the .param slots of its call scopes
  // Its frame, what a recursive call saves: data slots [reg_base, reg_base + reg_count),
  // predicates [pred_base, pred_base + pred_count), per-lane .param bytes [area_begin, area_end).
  int32_t reg_count = 0, pred_count = 0;
  uint32_t area_begin = 0, area_end = 0;
  bool recursive = false;  // it can call itself, directly or through others
};

struct DecodedKernel {
  std::string name;
  int32_t module_index = 0;  // into Module::functions
  std::vector<DInst> code;
  std::vector<StepHead> heads;     // per pc: step_head(code[pc])
  std::vector<DFunc> funcs;        // funcs[0] is the kernel itself
  std::vector<int32_t> reg_width;  // per data slot: register width in bits
  // per data slot: the function-local register index, or -1 (none, or several: reg_share.h)
  std::vector<int32_t> slot_reg;
  std::vector<int32_t> pred_reg;   // per predicate slot: the function-local register index, or -1
  // The data slots a block slot zeroes for each block it runs after the first (reg_init.h);
  // nullopt: every slot but the const slots.
  std::optional<std::vector<int32_t>> zero_slots;
  int32_t data_slots = 0;          // function registers + specials + consts + sink
  // The slots the kernel's registers occupy once reg_share.h has shared them (0: not shared,
  // one slot per register, funcs[0].reg_count of them).
  int32_t shared_slots = 0;
  int32_t pred_slots = 0;
  int32_t sink_slot = 0, sink_pred = 0;
  int32_t first_const_slot = 0;   // [first_const_slot, data_slots-1): const slots
  std::vector<ConstSlot> consts;  // one per const slot
  std::vector<CallSite> calls;    // indexed by DInst::aux of call instructions
  std::vector<std::vector<int32_t>> slot_lists;  // wgmma's accumulator slots, by DInst::aux
  uint64_t param_bytes = 0;       // kernel parameter block size
  uint32_t lane_param_bytes = 0;  // per-lane .param area (device-function calls)
  uint64_t static_shared_bytes = 0;
  uint32_t dynamic_shared_align = 16;
  uint64_t local_bytes = 0;          // per thread (__local_depot)
  std::vector<int32_t> global_vars;  // module variables (.global/.const) the kernel references
  bool uses_clock = false;
  bool uses_cluster_barrier = false;  // holds a barrier.cluster (Cta::next_is_cluster_barrier)
  bool uses_reserved_smem = false;  // reads %reserved_smem_offset_* (cooperative-groups tiles)
  std::vector<std::unique_ptr<ptx::Instruction>> synthetic;  // implicit returns (end of function)
};

class DecodedModule {
 public:
  ptx::Module module;
  std::vector<DecodedKernel> kernels;
  std::unordered_map<std::string, int32_t> kernel_index;
  // Kernels that cannot run (unsupported code in them or in a function they call): name -> why.
  std::unordered_map<std::string, Error> kernel_errors;
  const DecodedKernel* find(const std::string& name) const {
    auto it = kernel_index.find(name);
    return it == kernel_index.end() ? nullptr : &kernels[it->second];
  }
};

}  // namespace warplab::func
