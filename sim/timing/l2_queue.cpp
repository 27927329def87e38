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
    held_.push_back({line, at, sector_mask, full_mask, word_mask, drain, false});
    ++counts_.held_writes;
    if (drain) *drain = std::max(*drain, floor);
    return floor;
  }
  // At once (the L2 first takes the turn, which hands this queue over before it: issue order).
  if (gate && gate->in_parallel_cycle()) ++counts_.turn_writes;
  const uint64_t done = l2.write(line, sector_mask, full_mask, word_mask, at);
  if (drain) *drain = std::max(*drain, done);
  return done;
}

uint64_t L2Queue::read_now(L2& l2, uint64_t line, uint32_t sector_mask, uint64_t at,
                           int* dram_sectors, uint32_t* from_dram) {
  if (l2.gate() && l2.gate()->in_parallel_cycle()) ++counts_.turn_reads;
  return l2.read(line, sector_mask, at, dram_sectors, from_dram);
}

uint32_t L2Queue::hold_read(uint64_t line, uint32_t sector_mask, uint64_t at) {
  held_.push_back({line, at, sector_mask, 0, 0, nullptr, true});
  ++counts_.held_reads;
  return reads_++;
}

void L2Queue::flush(L2& l2) {
  answers_.clear();
  for (const Held& h : held_) {
    if (h.read) {
      answers_.push_back(l2.read(h.line, h.sector_mask, h.at));
      continue;
    }
    const uint64_t done = l2.write(h.line, h.sector_mask, h.full_mask, h.word_mask, h.at);
    if (h.drain) *h.drain = std::max(*h.drain, done);
  }
  held_.clear();
  reads_ = 0;
}

}  // namespace warplab::timing
