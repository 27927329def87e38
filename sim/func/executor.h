// The functional SIMT executor's public entry points.
//
// Program::load checks and decodes a parsed module once (an unsupported instruction is an error
// here, naming opcode, kernel and PTX line). run_functional executes a whole grid; Cta (cta.h)
// exposes one resident block warp by warp for the timing model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/common/error.h"
#include "sim/func/hazard.h"
#include "sim/func/launch.h"
#include "sim/func/memory.h"
#include "sim/ptx/ir.h"

namespace warplab::func {

class DecodedModule;  // the executor's own fast form (registers resolved, handlers picked)

class Program {
 public:
  // Decodes every kernel of `module` with the functions it calls. A kernel that contains or calls
  // code WarpLab does not simulate (an unsupported instruction, an external function, a recursive
  // function that keeps .local memory) does not stop the others: its error is kept and returned
  // by check_kernel and by any launch of it. Errors name module.path, the PTX line, the opcode,
  // the kernel and the CUDA line (.loc).
  static Expected<Program> load(ptx::Module module);
  // Ok when `kernel` can run; else why not (the same error its launch would give).
  Status check_kernel(const std::string& kernel) const;

  const ptx::Module& module() const;
  const ptx::Function* kernel(const std::string& name) const;
  const DecodedModule& decoded() const { return *decoded_; }
  // Static resource figures known from PTX alone (the real ones come from nvJitLink).
  uint32_t static_shared_bytes(const std::string& kernel) const;
  // Local memory per thread (__local_depot frames of the kernel and its callees), bytes.
  uint64_t local_bytes(const std::string& kernel) const;

 private:
  std::shared_ptr<const DecodedModule> decoded_;
};

struct FunctionalOptions {
  bool count_lines = true;             // fill LaunchStats::by_ptx_line / by_src_line
  uint64_t max_warp_instructions = 0;  // 0 = unlimited; else stop with a fault (runaway loops)
  // Only the blocks whose linear index (x fastest) is in [first_block, end_block) run (the
  // timing model's sampled mode fast-forwards a range of blocks this way); the default: all.
  uint64_t first_block = 0, end_block = ~uint64_t{0};
};

struct FunctionalResult {
  LaunchStats stats;
  std::optional<LaunchFault> fault;  // set when the launch stopped early; memory writes made
                                     // before the fault remain
  std::vector<Hazard> hazards;       // synccheck/racecheck findings (LaunchConfig turns them on)
};

// Runs every block of the grid to completion (blocks in order, warps of a block interleaved at
// barriers). Returns an Error only for a launch that cannot start (unknown kernel, wrong parameter
// block size, too much shared memory, block larger than 1024 threads); a kernel's own faults come
// back in FunctionalResult::fault.
Expected<FunctionalResult> run_functional(const Program& program, DeviceMemory& memory,
                                          const LaunchConfig& launch,
                                          const FunctionalOptions& options = {});

// The device address of a module-scope .global or .const variable (__device__, __constant__) in
// `memory`: the storage every launch of `program` on this memory uses, allocated with the
// variable's initial contents on first use. The host reads and writes it there between launches
// (cudaMemcpyToSymbol / cuModuleGetGlobal on a GPU).
uint64_t module_variable_address(const ptx::Module& module, const ptx::Variable& var,
                                 DeviceMemory& memory);

}  // namespace warplab::func
