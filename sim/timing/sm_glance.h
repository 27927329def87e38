// What the whole-GPU loop reads of each SM between cycles (gpu_model.cpp, parallel_loop.h).
//
// The loop decides, between cycles, which SMs are due, when the next cycle is, whether a block
// can be dispatched (and to which SM), whether the launch is done, stuck or faulted. In the
// parallel loop each SM's state was last written by whichever host thread ticked it; reading
// a line or two of every SM for those answers costs the loop's thread a cache miss each. So
// the thread that ticks (or dispatches to) an SM copies those few answers into its glance, and
// the loop reads one array of them. A glance is always what the SM would answer now: every
// change of those answers comes from a tick, a launch or a dispatch, each followed by a look.
#pragma once

#include <cstdint>

#include "sim/timing/sm.h"

namespace warplab::timing {

// What the loop reads of an SM between cycles (which SMs are due, when the next is, whether one
// has room or faulted, instructions issued), refreshed by the thread that ticked it. Kept in one
// array, so that the loop's thread reads a few cache lines each cycle instead of a line or two
// of every SM that another thread has just written.
struct SmGlance {
  uint64_t wake = kNever;  // next_wake() while busy, else kNever
  uint64_t instructions = 0;
  // Its LaunchContext's changes (each SM has its own with a pool), modulo 2^32: the livelock
  // watch only asks whether their sum moved, and a cycle moves it by far less than 2^32 (24
  // bytes a glance, not 32).
  uint32_t changes = 0;
  bool busy = false, room = false, fault = false;
  void look(const Sm& sm) {
    busy = sm.busy();
    wake = busy ? sm.next_wake() : kNever;
    instructions = sm.instructions();
    changes = static_cast<uint32_t>(sm.changes());
    room = sm.has_room();
    fault = sm.fault().has_value();
  }
  // Whether the SM has something to do at cycle `now` (the loop's test, as of this glance).
  bool due(uint64_t now) const { return busy && wake <= now; }
};

}  // namespace warplab::timing
