// Fuzz target: the PTX front end and loader, then a short run of every kernel that loads.
//
// The input is PTX text. Whatever it is, parse_module must return a Module or an Error, and a
// Module must decode (func::Program::load) or say why. Each kernel that loads is disassembled and
// launched on one block with zeroed parameters, synccheck and racecheck on, under a small
// instruction limit (a mutated loop must not stall the fuzzer): faults are expected, crashes not.
#include <string>

#include "sim/func/executor.h"
#include "sim/ptx/disasm.h"
#include "sim/ptx/parser.h"
#include "tests/fuzz/fuzz_target.h"

using namespace warplab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto module = ptx::parse_module(text, "fuzz.ptx");
  if (!module) return 0;
  for (const ptx::Function& f : module->functions)
    for (const ptx::Instruction& in : f.instructions) (void)ptx::disassemble(*module, f, in);
  auto program = func::Program::load(std::move(*module));
  if (!program) return 0;
  int launched = 0;
  for (const ptx::Function& f : program->module().functions) {
    if (!f.is_entry || !program->check_kernel(f.name) || launched++ >= 4) continue;
    func::LaunchConfig lc;
    lc.kernel = f.name;
    lc.grid = {2, 1, 1};
    lc.block = {f.hints.reqntid[0] ? f.hints.reqntid[0] : 64,
                f.hints.reqntid[1] ? f.hints.reqntid[1] : 1,
                f.hints.reqntid[2] ? f.hints.reqntid[2] : 1};
    lc.params.assign(f.param_bytes, 0);
    lc.synccheck = lc.racecheck = true;
    lc.max_instructions_per_warp = 20000;
    func::DeviceMemory memory;
    func::FunctionalOptions opt;
    opt.max_warp_instructions = 200000;
    (void)func::run_functional(*program, memory, lc, opt);
  }
  return 0;
}
