// Shared memory banks: why some shared-memory accesses take several passes.
//
// Hardware: shared memory is split into 32 banks, each 4 bytes wide; consecutive 4-byte words go
// to consecutive banks. In one pass ("wavefront") each bank delivers one word, so a warp whose
// lanes read 32 different banks is served at once. Lanes that read the *same* word share it
// (broadcast), but lanes that read *different* words in the same bank are served in separate
// wavefronts: an N-way bank conflict costs N wavefronts.
//
// Modelled (the H100's cycles per warp load for 4-, 8- and 16-byte loads over 22 lane patterns,
// whole warp and part of it: scripts/microbench/shared_wide.cu, h100-shared-wide-2026-11-25.tsv,
// every one reproduced by test 402): a wavefront delivers at most one word per bank. 4- and
// 8-byte loads serve the whole warp at once; a 16-byte load serves it as two half-warps that take
// the same number of wavefronts each. For 8- and 16-byte loads, a quarter-warp (8 lanes) whose
// lanes read more distinct addresses than half its lanes takes two passes (so a warp's 8-byte
// loads of one address take 1 wavefront, of 32 consecutive ones 2; 16-byte loads: 2 and 4;
// matmul_tiled's LDS.128 of two A-tile rows: 2). Wavefronts = the larger of the busiest bank's
// distinct words and those passes; only what the banks add counts as bank conflicts (ncu's
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld, matched). ncu counts fewer wavefronts
// than the pipe takes for a part of a warp reading 8 or 16 bytes per lane (4 lanes: 1 against 2
// and 4 cycles); the model follows the cycles.
// Atomics: the shared-memory unit applies each lane's read-modify-write in its own pass, so lanes
// on one word do not share it: k lanes on one counter cost k passes (measured on the H100: an
// ATOMS.ADD with k lanes per address costs about k cycles of the SM's shared pipe, k = 2..32;
// validation/kernels/atomics.cu). ptxas turns `atomicAdd(&s[i], 1)` into ATOMS.POPC.INC, which
// counts the lanes of a word in one pass (flat across 1..32 lanes per address,
// scripts/microbench): callers pass `serialize = false` for that form.
// Simplified: the pass count of an atomic is its busiest bank's lane count; no separate ALU.
#pragma once

#include <array>
#include <cstdint>

#include "sim/ptx/ir.h"

namespace warplab::timing {

struct SharedAccessCost {
  int wavefronts = 0;        // passes through the banks
  int ideal_wavefronts = 0;  // passes a conflict-free access of the same width would need
  // Cycles the access holds the SM's shared-memory pipe, when not wavefronts / the preset's
  // wavefronts_per_cycle (0): ldmatrix/stmatrix, shared.matrix_cycles per matrix pass.
  double pipe_cycles = 0;
  int bank_conflicts() const { return wavefronts - ideal_wavefronts; }
};

// serialize: lanes on the same word each take a pass (atomic read-modify-writes) instead of
// sharing one (a broadcast).
SharedAccessCost shared_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t access_bytes, uint32_t banks, uint32_t bank_bytes,
                                    bool serialize = false);

// An atomic add of the constant 1 (or inc) on shared memory: ptxas emits ATOMS.POPC.INC, which
// counts a word's lanes in one pass (pass serialize = false for it).
bool counts_lanes(const ptx::Instruction& i);

// ldmatrix / stmatrix: lanes 8i..8i+7 (those of exec_mask) give the 16-byte rows of 8x8 matrix i.
// The unit moves one matrix per pass, its 8 rows spread over the banks (16 bytes = 4 banks each),
// so a matrix costs one wavefront when its rows fall in different bank groups, and k when k of its
// distinct rows share a bank group. Measured on the H100 (h100-mma-timing-2026-11-26.tsv, one warp
// chasing addresses): ld.shared.u32 28.7 cycles, ldmatrix x1 34.1 (one more IADD in its chase),
// x2 36.0, x4 39.5: about 1.8 cycles per extra matrix where this model charges 1 (one wavefront
// per cycle), so x4 comes out about 2.5 cycles early.
SharedAccessCost matrix_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t banks, uint32_t bank_bytes);

}  // namespace warplab::timing
