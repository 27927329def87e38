// The whole GPU over time: every SM's blocks, from dispatch until their last warp frees its slot,
// drawn as bands of warp slots (the whole-GPU view).
//
// Hardware: the block scheduler hands blocks to SMs until each holds as many as its resources
// allow (the occupancy limit: registers, shared memory, warp slots, blocks per SM); as a block
// retires another takes its place. A grid of many times that number runs in "waves"; when too
// few blocks are left to fill every SM, some SMs sit idle while the last ones finish (the tail).
//
// From the trace's block records (timing::BlockRecord, every SM). A block's band sits in one of
// the SM's block slots (the lowest free one when it arrived): the real SM gives a block any free
// warp slots, not necessarily adjacent ones; the count is what matters. No ImGui (tests/714).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timing/trace.h"

namespace warplab::app {

struct GpuBlock {
  uint64_t block = 0;           // linear index
  uint64_t begin = 0, end = 0;  // cycles on the SM
  int warps = 0;
  int slot = 0;  // block slot on its SM (0 .. blocks_per_sm - 1): its band's position
  int wave = 0;  // block / (SMs x blocks per SM): the wave it belongs to when all SMs fill
};

struct GpuWaves {
  int sm_count = 0;
  int blocks_per_sm = 0, warps_per_block = 0, max_warps_per_sm = 0;  // the occupancy limit
  std::vector<std::vector<GpuBlock>> sms;                            // per SM, by begin
  uint64_t first_cycle = 0, last_cycle = 0;
  uint64_t last_dispatch = 0;  // when the grid's last block arrived: the tail starts
  size_t blocks = 0;
  bool truncated = false;  // the trace kept only some blocks

  // Warps resident on every SM together, as a step function: from step_cycle[i] on (until the
  // next step), step_warps[i] warps. Its ceiling is sm_count x blocks_per_sm x warps_per_block.
  std::vector<uint64_t> step_cycle;
  std::vector<int> step_warps;

  // Warps resident on `sm` at `cycle`.
  int resident_warps(int sm, double cycle) const;
  // Warps resident on the whole GPU at `cycle`.
  int total_resident_warps(double cycle) const;
  // Fraction of SM-cycles in [begin, end) with no block resident, over every SM.
  double idle_fraction(uint64_t begin, uint64_t end) const;
};

GpuWaves build_gpu_waves(const timing::Trace& t, int blocks_per_sm, int warps_per_block,
                         int max_warps_per_sm);

}  // namespace warplab::app
