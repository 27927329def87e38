// The device-memory bytes that one parallel cycle's functional steps touched, and whether two SMs
// met on the same bytes (the parallel loop's check for plain loads and stores).
//
// What the hardware does: the SMs load and store global memory at the same time; two SMs that
// touch the same bytes in the same cycle, one of them storing, race, and the value a load sees
// depends on which request reaches the L2 first.
// What is modelled: the one-thread loop runs a cycle's SMs one after the other (SM 131 first,
// SM 0 last), and a warp's functional step reads and writes device memory when the warp fetches
// the instruction (sim/timing/sm.cpp: fetch). The parallel loop (parallel_loop.h) runs a cycle's
// SMs on several host threads; a step that touches device memory used to wait for the SM's turn
// (every SM before it in the order has ended its tick). For a kernel whose only device touches
// are plain loads and stores of global or constant memory (touches_loggable), the steps run at
// once instead, and each logs what it touched here: per 32-byte sector, the bytes and whether it
// stored. The results are the one-thread loop's unless two SMs touched the same bytes in the cycle
// with a store among them and the later SM in the order did so before its turn (it may have run
// before the earlier SM's touch); met() answers that at the cycle's end, and the loop then treats
// the cycle as a fault: run_timing simulates the launch again on one thread (gpu_model.cpp).
// How the check stays cheap: each touched sector has a shadow word per launch (8 bytes per 32 of
// device memory, allocated untouched: the host's zero pages), claimed with a compare-and-swap by
// the first SM that touches it in the cycle; a sector another SM touches too, a store among them,
// is marked contested, and only a cycle with a contested sector sorts its log (per byte, in the
// loop's order: a false alarm of the sector test costs nothing but the sort).
// Simplified: the check is per launch; a kernel with atomics, asynchronous or bulk copies, TMA,
// calls (printf), fences, generic-space accesses (a generic access's lanes may resolve to
// shared or local memory) or volatile/relaxed/acquire/scoped/.cv accesses keeps all its device
// touches on the turn, as before (those kernels' blocks usually talk to each other, so they would
// conflict often).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "sim/func/cta.h"
#include "sim/func/memory.h"
#include "sim/ptx/ir.h"

namespace warplab::timing {

// Whether every functional step of `kernel` that touches device memory is a plain load or store
// of global or constant memory, or a prefetch (which touches no bytes).
bool touches_loggable(const ptx::Function& kernel);

class TouchLog {
 public:
  // For one launch on `memory` (buffers may be added between cycles, none removed), with
  // `sm_count` SMs.
  TouchLog(const func::DeviceMemory& memory, size_t sm_count);
  // Whether the shadow words could be allocated (else the launch takes the turn, as before; a
  // buffer whose words cannot be allocated later makes every cycle that touches it a fault).
  bool ok() const { return ok_; }

  // Starts a parallel cycle (on the loop's thread: buffers allocated since, a module variable
  // bound by a block's first launch, get their shadow words here).
  void begin_cycle();
  // The device bytes `step` touched, by SM `sm` at `position` in the cycle's order; `in_turn`:
  // every SM before it had ended its tick (parallel_loop.h). Called by the thread ticking `sm`.
  void add(uint32_t sm, uint32_t position, bool in_turn, const func::StepInfo& step);
  // At the cycle's end (the SMs `due` ticked, every tick ended): whether the cycle may differ
  // from the one-thread loop's. Empties the cycle's log.
  bool met(const std::vector<uint32_t>& due);

 private:
  struct Touch {
    uint64_t sector;         // within the buffer
    uint32_t buffer, bytes;  // bytes: bit i for the sector's byte i
    uint16_t position;
    bool store, in_turn;
  };
  struct Free {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  void claim(uint32_t buffer, uint64_t sector, uint16_t position, bool store);
  void allocate();

  const func::DeviceMemory& memory_;
  std::vector<std::unique_ptr<uint64_t[], Free>> shadow_;  // per buffer, per sector
  std::vector<std::vector<Touch>> by_sm_;                  // the cycle's touches, per SM
  std::vector<Touch> hot_;  // met(): the touches of contested sectors
  bool ok_ = true;
  uint32_t stamp_ = 0;                  // the cycle's number
  std::atomic<bool> contested_{false};  // a sector was marked contested in this cycle
  std::atomic<bool> blind_{false};      // a buffer without shadow words was touched in it
};

}  // namespace warplab::timing
