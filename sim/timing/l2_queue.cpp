// An SM's L2 requests held to the end of the cycle: see l2_queue.h.
#include "sim/timing/l2_queue.h"

#include <algorithm>

namespace warplab::timing {

uint64_t L2Queue::write(L2& l2, uint64_t line, uint32_t sector_mask, uint32_t full_mask,
                        uint32_t word_mask, uint64_t at, uint64_t* drain) {
  // Held only when the answer is known to be later than `at` (>= now): the tick's one reader,
  // an exiting warp's "drained by now?", then sees "no" from the floor as from the answer.
  TurnGate* gate = l2.gate();
  const uint64_t floor = l2.write_floor(at);
  if (gate && floor > at && gate->before_turn()) {
    held_.push_back({line, at, sector_mask, full_mask, word_mask, drain});
    if (drain) *drain = std::max(*drain, floor);
    return floor;
  }
  // At once (the L2 first takes the turn, which hands this queue over before it: issue order).
  const uint64_t done = l2.write(line, sector_mask, full_mask, word_mask, at);
  if (drain) *drain = std::max(*drain, done);
  return done;
}

void L2Queue::flush(L2& l2) {
  for (const Held& h : held_) {
    const uint64_t done = l2.write(h.line, h.sector_mask, h.full_mask, h.word_mask, h.at);
    if (h.drain) *h.drain = std::max(*h.drain, done);
  }
  held_.clear();
}

}  // namespace warplab::timing
