// setmaxnreg: a warpgroup changes its registers per thread while it runs.
//
// Hardware (sm_90a): warp-specialised kernels give their producer warpgroups (which only issue
// TMA copies) few registers and their consumer warpgroups (which hold wgmma accumulators) many.
// `setmaxnreg.dec.sync.aligned.u32 N` lowers the executing warpgroup's registers per thread to N
// and returns the rest to the block's pool; `setmaxnreg.inc.sync.aligned.u32 N` raises them to N,
// waiting until the pool holds enough. N is a constant from 24 to 256, a multiple of 8 (the
// parser checks it); every thread of the warp executes it (.sync.aligned), and all four warps of
// a warpgroup execute the same one.
// Modelled: per warp, its registers per thread; the block's pool in registers (a warp's change
// of d per thread moves 32 d); .inc waits (the warp runs it again, like a failed mbarrier wait)
// while the pool is short; .inc below or .dec above the current count faults, as does a warp
// with inactive lanes or a warpgroup the block does not complete. The count starts at the
// kernel's .maxnreg. Simplified: without .maxnreg the first setmaxnreg of a warp only sets its
// count (the count ptxas chose is unknown to PTX), and the register file itself is not resized
// (results never depend on it). Timing: a Misc-pipe instruction (isa.def).
#include <algorithm>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"

namespace warplab::func {

void setmaxnreg_h(Exec& x, const DInst& d) {
  CtaImpl& c = *x.cta;
  Warp& w = *x.w;
  const uint32_t n = static_cast<uint32_t>(d.ir->ops[0].bits);
  const bool inc = d.ir->mod.atom == ptx::AtomOp::Inc;
  auto trap = [&](const std::string& why) {
    c.raise(x, d, LaunchFault::Kind::Trap, std::countr_zero(x.active | 0x80000000u), 0, 0, false,
            ptx::Space::None, why);
  };
  const uint32_t live = w.valid & ~w.exited;
  if (x.exec != live) {
    trap("setmaxnreg.sync.aligned: every live thread of the warp must execute it together");
    return;
  }
  const size_t group = static_cast<size_t>(w.index) / 4;
  if (group * 4 + 4 > c.warps.size()) {
    trap("setmaxnreg: warp " + std::to_string(w.index) + " is in warpgroup " +
         std::to_string(group) + ", which the block's " + std::to_string(c.block.count()) +
         " threads do not complete (a warpgroup is 4 warps, 128 threads)");
    return;
  }
  if (c.warp_regs.size() != c.warps.size())
    c.warp_regs.assign(c.warps.size(), c.mod->module.functions[c.k->module_index].hints.maxnreg);
  uint32_t& cur = c.warp_regs[static_cast<size_t>(w.index)];
  if (cur != 0 && (inc ? n < cur : n > cur)) {
    trap(std::string("setmaxnreg.") + (inc ? "inc" : "dec") + " to " + std::to_string(n) +
         " registers per thread from " + std::to_string(cur) + ": ." + (inc ? "inc" : "dec") +
         " may only " + (inc ? "raise" : "lower") + " the count");
    return;
  }
  if (cur != 0) {
    const int64_t delta = (static_cast<int64_t>(n) - cur) * 32;
    if (delta > c.reg_pool) {  // .inc: wait for another warpgroup's .dec
      x.control = true;
      w.mbarrier_wait = true;
      w.mbarrier_pc = x.pc;
      if (x.info) x.info->wait_failed = true;
      return;
    }
    c.reg_pool -= delta;
    if (delta < 0) c.mbarrier_changed();
  }
  cur = n;
}

}  // namespace warplab::func
