// The block barrier: bar.sync / __syncthreads (SASS BAR.SYNC) in time.
//
// What the hardware does: each block has barrier counters (16 named barriers) in its SM. A warp
// that reaches bar.sync adds its arrival to the counter and stops issuing; when the counter
// reaches the block's warp count, the barrier releases every waiting warp, which may issue again
// some cycles later. Arrivals are counted one at a time, so a barrier takes longer the more warps
// it waits for, even when they all arrive in the same cycle.
//
// Measured on the H100 (scripts/microbench/latency/chains.cu, h100-latency-2026-11-26.csv, rows
// `bar`): one block looping over IADD3 + BAR.SYNC takes 17.5 cycles a step with one warp and 2
// more per warp with 2, 3 and 4 warps (19.5, 21.5, 23.5; one warp per scheduler, arriving
// together), 34.4 with 8 and 56.6 with 16 warps (2.7 more per warp there).
// Modelled: a block's arrivals are counted in issue order, one every `barrier_arrival_cycles`
// (pipes.barrier_arrival_cycles); the barrier releases its warps `barrier.latency` cycles after
// the last arrival is counted (or after the last live warp exits, when exits complete it):
//   counted(i) = max(issue(i), counted(i-1) + barrier_arrival_cycles)
//   release    = counted(last) + barrier.latency
// With 2 cycles per arrival and a latency of 16 the H100 preset gives 17.4, 19.4, 21.4, 23.4
// cycles a step for 1-4 warps, and 31.4 and 47.6 for 8 and 16 warps (the H100: 34.4 and 56.6)
// on lessons/calibration/latency_chains.toml (scripts/microbench/latency/sim_compare.py).
// Simplified: one counter per block, independent of the other blocks on the SM (the
// microbenchmark ran one block; whether blocks share a counting unit is not measured); named
// barriers (bar.sync 1..15) and bar.arrive count like barrier 0; the extra 0.7 cycles per warp
// beyond one warp per scheduler is not modelled.
#pragma once

#include <cstdint>

#include "sim/timing/config.h"

namespace warplab::timing {

class BlockBarrier {
 public:
  // A warp's arrival issued at `now` (a block's arrivals come in issue order).
  void arrive(const PipesConfig& p, uint64_t now);
  // The cycle the barrier releases its warps when the last one needed arrived or exited at `now`;
  // forgets the arrivals (the next barrier starts counting afresh).
  uint64_t release(const PipesConfig& p, uint64_t now);

 private:
  double counted_ = 0;       // when the latest arrival was counted
  double counter_free_ = 0;  // when the counter takes the next arrival
};

}  // namespace warplab::timing
