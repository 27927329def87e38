// The instruction mix of a kernel by PTX opcode family, static and executed: what `warplab
// compare` puts side by side for a Triton kernel and its CUDA twin (issue 24).
//
// A family is the opcode with the suffixes that change what the hardware does and without the
// ones that only name a type: ld.global.v4.b32 -> "ld.global.v4" (one 16-byte load per thread),
// ld.global.b32 -> "ld.global", fma.rn.f32 -> "fma.f32", setp.lt.s32 -> "setp",
// shfl.sync.bfly.b32 -> "shfl.sync", bar.sync -> "bar.sync". Floating-point types are kept
// (fma.f32 and fma.f16x2 are different pipes); integer and bit types are dropped.
//
// Static counts are the instructions written in the kernel's body (and in the functions it
// calls), as the PTX text has them; executed counts are warp instructions the simulator issued
// for each (a diverged path counts again), from the per-PTX-line counts of a run. Both count PTX
// instructions, not SASS: ptxas may unroll, fuse (mul + add -> fma) or split them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "sim/func/launch.h"
#include "sim/ptx/ir.h"

namespace warplab::lab {

struct MixCount {
  uint64_t written = 0;   // instructions in the PTX text
  uint64_t executed = 0;  // warp instructions issued (0 without a run)
};
using InstructionMix = std::map<std::string, MixCount>;  // family -> counts

// "ld.global.v4.b32" (the opcode as written, guard and operands removed) -> "ld.global.v4".
std::string opcode_family(std::string_view opcode);

// The mix of kernel `entry` in `module` and the functions it calls; `stats` (may be null) gives
// the executed counts by PTX line. An unknown entry gives an empty mix.
InstructionMix instruction_mix(const ptx::Module& module, const std::string& entry,
                               const func::LaunchStats* stats);

}  // namespace warplab::lab
