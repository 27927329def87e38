// Strong stores on their way to the L2: when another block's load can first see them.
//
// Hardware: a global store leaves the SM through the L1 (write-through) and the crossbar to the
// L2 slice that holds its line, the point where every SM's accesses meet. A load of another SM
// (or another block: the L1 is not coherent, so ld.volatile / ld.relaxed.gpu / ld.acquire /
// ld.global.cg go to the L2) returns the new value only if it reaches that slice after the store
// has been written there. On the H100 a flag written by one SM is seen by a polling SM about 600
// cycles after the store's issue, where one poll's L2 round trip is 288 (latency/flags.cu,
// scripts/microbench/h100-flags-2026-11-27.tsv; lessons/calibration/visibility.cu measures the
// threshold directly: scripts/microbench/h100-visibility-2026-11-27.md).
//
// Modelled: the functional executor runs a warp's load or store when the timing model fetches
// it (at about its issue), and device memory is written at once. With a delay D > 0 (the timing
// model's l1.store_visible_latency), a strong store (st.volatile, st.relaxed/.release: ptxas's
// STG.E.STRONG.*) also leaves the bytes it overwrote here, hidden behind it until D cycles after
// its execution; a strong load (what bypasses the L1) of a warp of another block (cluster) that
// runs before then reads those older bytes instead. The old value is one the load may legally
// return (the store is not yet ordered before it), a word once seen new is never seen old again,
// and a store followed by a fence (MEMBAR.SC.GPU holds the warp l1.fence_sc_latency cycles,
// longer than D) is visible by the time the fence lets the warp go, so fenced publication keeps
// its order; stores of one warp become visible in their issue order (D is one constant).
// Simplified: weak (plain) stores, atomics and the writer's own block see the new bytes at once
// (a block's barrier must make its global writes visible to its warps, and the H100's figure
// between two warps of one block, 1158 cycles a flag round trip against 1243 between SMs, is not
// modelled); a weak load of another block sees them at once too (it may hit a stale L1 line on
// the hardware, which the model's L1 does not hold either). A second store to a word before the
// first is visible keeps the word's older bytes hidden until D after the second.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>

namespace warplab::func {

class PendingStores {
 public:
  // D in cycles; 0 turns the mechanism off (and forgets what is pending).
  void set_delay(uint64_t cycles) {
    delay_ = cycles;
    if (cycles == 0) clear();
  }
  uint64_t delay() const { return delay_; }
  bool empty() const { return words_.empty(); }
  void clear() {
    words_.clear();
    expiry_.clear();
  }
  // A strong store of `size` bytes at `addr` by `writer` (its block or cluster) at `now`, about to
  // overwrite `old` (the bytes memory holds there now). Call before the write.
  void note_store(uint64_t addr, uint32_t size, const uint8_t* old, const void* writer, uint64_t now);
  // A strong load of `size` bytes at `addr` by `reader` at `now`, whose bytes `data` were read
  // from memory: replaces the bytes of stores that are not yet visible to it by older ones.
  void patch_load(uint64_t addr, uint32_t size, uint8_t* data, const void* reader, uint64_t now);

 private:
  struct Word {             // one aligned 8-byte word with bytes not yet visible
    uint64_t old = 0;       // the older bytes (those of `mask`)
    uint8_t mask = 0;       // bytes written by pending stores
    uint64_t visible_at = 0;
    const void* writer = nullptr;
  };
  void expire(uint64_t now);

  uint64_t delay_ = 0;
  std::unordered_map<uint64_t, Word> words_;             // by address / 8
  std::deque<std::pair<uint64_t, uint64_t>> expiry_;     // (visible_at, word), in time order
};

}  // namespace warplab::func
