// The SM's turn at what all SMs share (parallel_loop.h explains the loop that uses it).
//
// When several host threads simulate the SMs of one cycle at once, each SM may do its own work
// (its warps, pipelines, L1, shared memory) whenever it likes, but it must touch what the SMs
// share (the L2 and DRAM, device memory, the printf buffer) only in its turn: after every SM that
// the one-thread loop ticks before it in that cycle has finished its tick. The shared units call
// wait_turn() before they change or read shared state; the one-thread loop has no gate.
#pragma once

namespace warplab::timing {

class TurnGate {
 public:
  // Returns once the calling SM may touch shared state (at once outside a parallel cycle, and
  // at once on later calls within the same tick).
  virtual void wait_turn() = 0;

 protected:
  ~TurnGate() = default;
};

}  // namespace warplab::timing
