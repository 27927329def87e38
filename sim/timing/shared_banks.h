// Shared memory banks: why some shared-memory accesses take several passes.
//
// Hardware: shared memory is split into 32 banks, each 4 bytes wide; consecutive 4-byte words go
// to consecutive banks. In one pass ("wavefront") each bank delivers one word, so a warp whose
// lanes read 32 different banks is served at once. Lanes that read the *same* word share it
// (broadcast), but lanes that read *different* words in the same bank are served in separate
// wavefronts: an N-way bank conflict costs N wavefronts.
//
// Modelled: wavefronts = the largest number of distinct words any bank must deliver; accesses
// wider than 4 bytes are split into groups of lanes that together move 128 bytes (as the hardware
// does for 64- and 128-bit accesses), each group costing its own wavefronts.
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

namespace warplab::timing {

struct SharedAccessCost {
  int wavefronts = 0;        // passes through the banks
  int ideal_wavefronts = 0;  // passes a conflict-free access of the same width would need
  int bank_conflicts() const { return wavefronts - ideal_wavefronts; }
};

// serialize: lanes on the same word each take a pass (atomic read-modify-writes) instead of
// sharing one (a broadcast).
SharedAccessCost shared_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t access_bytes, uint32_t banks, uint32_t bank_bytes,
                                    bool serialize = false);

}  // namespace warplab::timing
