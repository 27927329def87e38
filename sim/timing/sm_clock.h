// The SM clock a launch runs at.
//
// An H100 does not hold its SMs at the top clock for every kernel. Read inside the kernels with
// clock64 against %globaltimer (scripts/microbench/sm_clock.cu, MMA-REGS-2026-11-27.md), a
// kernel of FP32 FMAs or of SIMT loads and FMAs runs at 1.98 GHz, but lesson 17's mma.sync matmul
// runs at 1.69-1.75 GHz on every SM, with 16 blocks as with 256, L2 cold or warm, at about 100 W:
// not a power limit the board reached, but a lower clock the GPU picks while its tensor cores
// run mma.sync (HMMA) work. It follows that work closely (sm_clock2.cu): in one kernel, a phase
// of FFMAs runs at 1.98 GHz, the phase of HMMAs after it at 1.80, the FFMAs after that at
// 1.97-1.98 again; a loop of HMMAs alone runs at 1.80 on one warp as on every SM, lesson 17's
// wgmma matmul at 1.79-1.80. A simulated cycle of such a launch is a longer time.
//
// Modelled: a launch whose kernel (or a function it calls) issues mma.sync runs at
// core.mma_clock_mhz, one that issues wgmma at core.wgmma_clock_mhz (each 0: core.clock_mhz);
// its cycles become microseconds at that clock. Simplified: the whole launch at one clock, the
// matmul's (a kernel with long phases without tensor work is timed too slow; a loop of HMMAs
// alone, at 1.80 GHz, about 5% too slow); and every unit keeps its per-cycle figures (latencies,
// L2 and DRAM bytes per cycle), i.e. the memory system is taken to slow down with the SM clock.
#pragma once

#include "sim/ptx/ir.h"
#include "sim/timing/config.h"

namespace warplab::timing {

// The clock in MHz that `kernel` of `module` runs at under `core`; `why` (may be null) is set to
// the instruction family that lowered it ("mma.sync", "wgmma") or left empty.
double launch_clock_mhz(const CoreConfig& core, const ptx::Module& module,
                        const ptx::Function& kernel, const char** why = nullptr);

}  // namespace warplab::timing
