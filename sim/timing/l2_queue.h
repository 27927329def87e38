// An SM's L2 requests held to the end of the cycle (the parallel loop's deferral).
//
// What the hardware does: an SM's L1 sends its misses and stores to the L2 over the network and
// goes on with its work; the answer comes back hundreds of cycles later (277 cycles at the
// least on the H100 preset: L1 -> L2 -> L1). Within the cycle that sent it, nothing the SM does
// can depend on the answer's value.
// What is modelled: when the parallel loop (parallel_loop.h) ticks an SM that has not yet had
// its turn at the shared units in this cycle, the SM's L1 puts such a request here instead of
// asking the L2 (the L2 would make it wait for its turn: every SM before it in the order must
// have ended its tick). The loop hands the queue to the L2 in the one-thread order: when the SM
// takes its turn anyway later in its tick (its own queued requests first, so the L2 sees its
// requests in issue order), or, after every due SM has ended its tick, SM by SM in the loop's
// order. The L2 so sees exactly the one-thread loop's sequence of requests, and each answer goes
// where the immediate answer would have gone.
// Held here now: plain stores (global and local). A store's answer (the cycle it is complete in
// the L2) only raises its warp's drain time (sm_warp.h: drain_until), which the tick that issued
// the store reads once: a warp issues one instruction a tick, and an exiting warp is freed at
// once only if drained by now. Held, the drain takes the answer's floor at once (L2::write_floor,
// later than now, as the answer is) and the answer at the flush (max: the same value).
// Not held (asked at once, in turn): loads and atomics, whose answers the tick uses at once
// (parallel_loop.h: "Not done"), and the TMA's and the functional steps' touches.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timing/l2.h"
#include "sim/timing/turn_gate.h"

namespace warplab::timing {

class L2Queue {
 public:
  // A store of `sector_mask` of `line` (covering `full_mask` whole and the 32nds in `word_mask`)
  // arriving at the L2 at `at`; raises `*drain` to the cycle it is complete there, at once or
  // when the queue is handed over (flush). Returns the answer when asked at once, else its floor
  // (L2::write_floor(at), raising *drain at once too).
  uint64_t write(L2& l2, uint64_t line, uint32_t sector_mask, uint32_t full_mask,
                 uint32_t word_mask, uint64_t at, uint64_t* drain);
  // Hands the held requests to the L2 in the order they were made and writes their answers.
  void flush(L2& l2);
  bool empty() const { return held_.empty(); }

 private:
  struct Held {
    uint64_t line, at;
    uint32_t sector_mask, full_mask, word_mask;
    uint64_t* drain;
  };
  std::vector<Held> held_;
};

}  // namespace warplab::timing
