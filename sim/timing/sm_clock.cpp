// The SM clock a launch runs at: see sm_clock.h.
#include "sim/timing/sm_clock.h"

#include <algorithm>
#include <vector>

namespace warplab::timing {

namespace {

// Whether `f`, or a function it calls (to any depth), issues an instruction of opcode `op`.
bool issues(const ptx::Module& m, const ptx::Function& f, ptx::Opcode op,
            std::vector<const ptx::Function*>& seen) {
  if (std::find(seen.begin(), seen.end(), &f) != seen.end()) return false;
  seen.push_back(&f);
  for (const ptx::Instruction& i : f.instructions) {
    if (i.op == op) return true;
    if (i.op == ptx::Opcode::Call && i.callee >= 0 &&
        i.callee < static_cast<int32_t>(m.functions.size()) &&
        issues(m, m.functions[i.callee], op, seen))
      return true;
  }
  return false;
}

}  // namespace

double launch_clock_mhz(const CoreConfig& core, const ptx::Module& module,
                        const ptx::Function& kernel, const char** why) {
  if (why) *why = "";
  // The lower of the two when a kernel issues both.
  double clock = core.clock_mhz;
  std::vector<const ptx::Function*> seen;
  if (core.mma_clock_mhz > 0 && core.mma_clock_mhz < clock &&
      issues(module, kernel, ptx::Opcode::Mma, seen)) {
    clock = core.mma_clock_mhz;
    if (why) *why = "mma.sync";
  }
  seen.clear();
  if (core.wgmma_clock_mhz > 0 && core.wgmma_clock_mhz < clock &&
      issues(module, kernel, ptx::Opcode::Wgmma, seen)) {
    clock = core.wgmma_clock_mhz;
    if (why) *why = "wgmma";
  }
  return clock;
}

}  // namespace warplab::timing
