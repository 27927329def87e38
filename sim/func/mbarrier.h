// mbarrier: the split arrive/wait barrier object that lives in shared memory (sm_80 and later).
//
// Hardware: an mbarrier is a 64-bit word in shared memory that the SM updates atomically. It counts
// the phase it is in, how many arrivals the phase still waits for (pending count), how many each
// phase expects (expected count, set by mbarrier.init), and a transaction count (tx-count): bytes
// that asynchronous copies (TMA, cp.async.bulk) have announced (expect_tx) and not yet delivered
// (complete_tx). The current phase completes when the pending count and the tx-count are both
// zero; then the phase advances, the pending count is reloaded with the expected count and the
// tx-count starts again at zero. Threads wait for a phase with mbarrier.test_wait (a test) or
// mbarrier.try_wait (a test that may suspend the thread for a while), naming the phase by the
// state an arrive returned or by its parity (0 for even phases, 1 for odd ones).
//
// Modelled: every field and rule above, with the PTX ISA's limits (counts from 1 to 2^20 - 1,
// tx-count within +-(2^20 - 1)); arrive with a count, arrive_drop (which also lowers the expected
// count), arrive.expect_tx, noComplete, expect_tx, complete_tx, inval, pending_count. Breaking a
// rule the ISA leaves undefined (a count of 0, more arrivals than pending, an mbarrier used before
// init or after inval) is reported as a kernel fault naming the rule.
// Simplified: the word's layout is WarpLab's own (NVIDIA does not document the hardware's; PTX
// treats the object and the states as opaque): bits 0-19 pending count, 20-39 expected count,
// 40-60 tx-count (21-bit two's complement), bit 62 initialised, bit 63 phase parity. A state that
// mbarrier.arrive returns is the word before the arrive.
#pragma once

#include <cstdint>
#include <string>

namespace warplab::func {

struct Mbarrier {
  static constexpr uint32_t kMaxCount = (1u << 20) - 1;
  static constexpr int32_t kMaxTx = (1 << 20) - 1;

  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  bool valid = false;
  bool parity = false;

  static Mbarrier decode(uint64_t word);
  uint64_t encode() const;
  // The pending count and phase parity a state (an encoded word) holds.
  static uint32_t pending_of(uint64_t state) { return static_cast<uint32_t>(state & kMaxCount); }
  static bool parity_of(uint64_t state) { return (state >> 63) != 0; }

  // Each operation returns "" or, for a use the PTX ISA leaves undefined, what was wrong.
  std::string init(uint64_t count);
  // Arrive-on `count` times (drop: lower the expected count by `count` too; no_complete: the
  // arrival must not complete the phase). `completed` tells whether the phase completed.
  std::string arrive(uint64_t count, bool drop, bool no_complete, bool& completed);
  std::string expect_tx(uint64_t bytes);
  std::string complete_tx(uint64_t bytes, bool& completed);
  std::string inval();
  // Whether the phase `state` was taken in (or, with parity, the last phase of that parity) has
  // completed: the object's phase parity has moved on from it.
  bool phase_done(uint64_t state_or_parity, bool parity_form) const;

 private:
  bool try_complete();
};

}  // namespace warplab::func
