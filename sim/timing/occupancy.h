// Occupancy: how many blocks of a kernel fit on one SM at once.
//
// Hardware: an SM holds a block only if it has room for all of it at once: its warps (64 warps per
// SM on the H100), a block slot (32), its registers and its shared memory. Registers are handed out
// per warp in units of 256 and each sub-partition has its own quarter of the register file;
// shared memory is handed out in 128-byte units, plus 1 KiB the driver reserves per block on
// sm_80 and later. Whichever resource runs out first limits the blocks per SM; "theoretical
// occupancy" is the resulting resident warps over the maximum. The CUDA occupancy calculator
// (cuda_occupancy.h) applies exactly these rules, and so does this file.
//
// Simplified: the L1/shared carve-out is not chosen per kernel; every SM may use shared_per_sm.
#pragma once

#include <cstdint>
#include <string>

#include "sim/timing/config.h"

namespace warplab::timing {

struct Occupancy {
  int warps_per_block = 0;
  int blocks_per_sm = 0;         // the minimum of the four limits below
  int limit_warps = 0, limit_blocks = 0, limit_registers = 0, limit_shared = 0;
  std::string limiter;           // "warps", "blocks", "registers" or "shared memory"
  int registers_per_warp = 0;    // after granularity
  int shared_per_block = 0;      // bytes after granularity and the reserved KiB
  double theoretical = 0;        // resident warps / max warps per SM, in [0, 1]
};

// `threads_per_block` threads, `registers_per_thread` registers each, `shared_bytes` of static +
// dynamic shared memory per block. An Error when one block can never fit.
Expected<Occupancy> compute_occupancy(const CoreConfig& core, int threads_per_block,
                                      int registers_per_thread, int shared_bytes);

}  // namespace warplab::timing
