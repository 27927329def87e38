// Register slots shared by registers that are never live at the same time.
//
// PTX registers are virtual: NVRTC writes a new one for nearly every value (matmul_tiled's PTX
// declares 105 data registers), and ptxas then maps them onto the few physical registers a thread
// has, reusing one once the value it held is no longer needed. WarpLab gives each register a
// slot of 32 lanes x 8 bytes per warp (decoded.h), so such a kernel's warps hold 27 KB of
// registers each, most of it dead values: 132 SMs' worth is hundreds of MB, far more than the
// host's caches, and every warp instruction reads its operands from there (issue 26:
// scripts/microbench/footprint-2026-11-29-stop47.md).
//
// What this unit does (for the simulator's speed; nothing simulated changes): registers whose
// live ranges never overlap share one slot, as in a register allocator. The analysis is that of
// one thread, over the control-flow graph of reg_init.h: a register is live at an instruction
// when some path from there reads it before writing it (a write under a guard predicate may not
// happen, so it does not end a live range). Two registers interfere when one is written where
// the other is live, or both are operands of one instruction (a handler may read a source after
// writing a destination in the same lane); each gets the lowest slot no interfering register
// already has. Each lane only ever reads what its own thread wrote, so what holds for one thread
// holds for the warp's lanes on any mix of divergent paths: every instruction here reads and
// writes only its own lane (the kernels reg_init.h follows; a kernel with anything else, calls,
// shuffles, votes, mma, asynchronous copies, keeps one slot per register). Registers read before
// written (reg_init.h: zeroed for each block) keep slots of their own.
// The scoreboard and the compiler model name registers by their PTX index (StepHead, worked out
// before the slots are shared), so the timing model sees the same registers as before; only the
// functional executor's storage moves. DecodedKernel::shared_slots says how many slots the
// kernel's registers then use.
#pragma once

namespace warplab::func {

struct DecodedKernel;

// Shares the slots of `k`'s registers (above) when the kernel qualifies: one function, every
// instruction one that reg_init.h follows (k.zero_slots set), at most 4096 data registers.
// Rewrites the register slots of k.code's operands and of k.zero_slots, and sets
// k.shared_slots; the slots it leaves unused stay in the register file (zeroed once, when a
// block slot is created, and not touched again). Returns whether it shared any.
bool share_register_slots(DecodedKernel& k);

}  // namespace warplab::func
