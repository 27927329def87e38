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
// And the L1's misses of plain loads (ld, ldu; strong ones too: L1Tex::load). A read's answer is
// later than now + the L2 hit latency (L2::read_floor: 277 cycles on the H100 preset), so inside
// the tick it only says "not back yet": until the flush the L1 and the SM keep a held answer in
// its place (kHeld + an index: above every cycle a tick compares it with), and the flush writes
// the answer wherever one went (L1Tex::flush_l2, Sm::flush_l2 list them).
// Not held (asked at once, in turn): atomics, cp.async's loads (their answers go to the async
// unit at once), the TMA's and the functional steps' touches.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timing/l2.h"
#include "sim/timing/turn_gate.h"

namespace warplab::timing {

// What an SM's queue held and asked in turn inside parallel cycles (the host's counts only,
// TimingResult::held_l2_reads ...).
struct L2QueueCounts {
  uint64_t held_reads = 0, turn_reads = 0, held_writes = 0, turn_writes = 0;
};

class L2Queue {
 public:
  // A held answer: kHeld + its index, for a value the flush fills in (is_held).
  static constexpr uint64_t kHeld = uint64_t{1} << 62;
  static bool is_held(uint64_t v) { return v - kHeld < (uint64_t{1} << 40); }
  // Whether a request made now would be held: the SM is inside a parallel cycle and has not had
  // its turn yet (TurnGate::before_turn).
  static bool holding(const L2& l2) { return l2.gate() && l2.gate()->before_turn(); }

  // A store of `sector_mask` of `line` (covering `full_mask` whole and the 32nds in `word_mask`)
  // arriving at the L2 at `at`; raises `*drain` to the cycle it is complete there, at once or
  // when the queue is handed over (flush). Returns the answer when asked at once, else its floor
  // (L2::write_floor(at), raising *drain at once too).
  uint64_t write(L2& l2, uint64_t line, uint32_t sector_mask, uint32_t full_mask,
                 uint32_t word_mask, uint64_t at, uint64_t* drain);
  // A read asked at once (L2::read), counted.
  uint64_t read_now(L2& l2, uint64_t line, uint32_t sector_mask, uint64_t at, int* dram_sectors,
                    uint32_t* from_dram);
  // Holds a read of `sector_mask` of `line` arriving at the L2 at `at` (call when holding()):
  // returns its index among the reads held since the last flush; answer(index) after it.
  uint32_t hold_read(uint64_t line, uint32_t sector_mask, uint64_t at);
  // Hands the held requests to the L2 in the order they were made and writes the stores'
  // answers; the reads' answers stay in answer(i) until the next flush.
  void flush(L2& l2);
  bool empty() const { return held_.empty(); }
  uint32_t held_reads() const { return reads_; }
  uint64_t answer(uint32_t i) const { return answers_[i]; }
  const L2QueueCounts& counts() const { return counts_; }

 private:
  struct Held {
    uint64_t line, at;
    uint32_t sector_mask, full_mask, word_mask;
    uint64_t* drain;  // a store's, or nullptr
    bool read;
  };
  std::vector<Held> held_;
  uint32_t reads_ = 0;  // reads in held_
  std::vector<uint64_t> answers_;
  L2QueueCounts counts_;
};

}  // namespace warplab::timing
