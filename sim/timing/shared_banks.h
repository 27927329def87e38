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
// Simplified: no extra wavefronts for atomics on shared memory.
#pragma once

#include <array>
#include <cstdint>

namespace warplab::timing {

struct SharedAccessCost {
  int wavefronts = 0;        // passes through the banks
  int ideal_wavefronts = 0;  // passes a conflict-free access of the same width would need
  int bank_conflicts() const { return wavefronts - ideal_wavefronts; }
};

SharedAccessCost shared_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t access_bytes, uint32_t banks, uint32_t bank_bytes);

}  // namespace warplab::timing
