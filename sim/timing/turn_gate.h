// The SM's turn at what all SMs share (parallel_loop.h explains the loop that uses it).
//
// When several host threads simulate the SMs of one cycle at once, each SM may do its own work
// (its warps, pipelines, L1, shared memory) whenever it likes, but it must touch what the SMs
// share (the L2 and DRAM, device memory, the printf buffer) only in its turn: after every SM that
// the one-thread loop ticks before it in that cycle has finished its tick. The shared units call
// wait_turn() before they change or read shared state; the one-thread loop has no gate.
#pragma once

namespace warplab::func {
struct StepInfo;
}

namespace warplab::timing {

class TurnGate {
 public:
  // Returns once the calling SM may touch shared state (at once outside a parallel cycle, and
  // at once on later calls within the same tick).
  // The turn hands over the L2 requests that the SMs before it in the order, and the caller,
  // held back in this cycle (l2_queue.h), so the L2 sees them first.
  virtual void wait_turn() = 0;
  // Whether the calling SM is inside a parallel cycle and has not had its turn yet: a request
  // whose answer the tick does not read (l2_queue.h) may then wait for the turn or the cycle's
  // end instead of waiting for the turn now.
  virtual bool before_turn() const = 0;
  // Whether the calling SM is inside a parallel cycle, before or after its turn (the host's
  // counts only: TimingResult::turn_l2_reads).
  virtual bool in_parallel_cycle() const { return false; }
  // Before a functional step that touches device memory (sm.cpp: fetch): waits for the turn,
  // or, in a parallel cycle of a launch whose such steps are all plain loads and stores
  // (touch_log.h), returns true at once: the caller runs the step and passes it to touched(),
  // which logs the bytes it touched.
  virtual bool before_touch() = 0;
  virtual void touched(const func::StepInfo& step) = 0;

 protected:
  ~TurnGate() = default;
};

}  // namespace warplab::timing
