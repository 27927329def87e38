// CTA barriers: bar.sync / barrier.sync, bar.arrive and bar.red.
//
// Each SM has 16 hardware barriers per block. A warp that executes `bar.sync id` stops issuing
// until the barrier has seen its expected number of threads: every thread of the block that has
// not exited when no count is given, else the count operand (a multiple of 32). `bar.arrive`
// counts toward a barrier without waiting (producer/consumer patterns). `bar.red.popc/.and/.or`
// also reduces a predicate over the participating threads and hands every waiter the result.
// Modelled: arrival is per warp (a warp counts as 32 threads, as the hardware counts it), exited
// warps are not waited for, named barriers 0..15 with counts, reductions. Simplified: a warp that
// reaches bar.sync on a diverged path arrives for all its lanes (undefined behaviour in CUDA).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace warplab::func {

class BarrierUnit {
 public:
  static constexpr int kBarriers = 16;
  enum class Red : uint8_t { None, Popc, And, Or };

  void reset();
  // Warp `warp` arrives at barrier `id` (expected_threads 0 = all live threads). `waits` is false
  // for bar.arrive. For bar.red, `lanes` are the participating lanes and `pred` their predicate
  // bits. Returns true when this arrival completes the barrier.
  bool arrive(int id, int warp, uint32_t expected_threads, bool waits, Red red, uint32_t lanes,
              uint32_t pred, int live_warps);
  // Re-checks barriers without a count after a warp exited. Returns the ids that completed.
  std::vector<int> on_warp_exit(int live_warps);
  // The warps released by the last completion of barrier `id` (valid until the next arrive).
  const std::vector<int>& released(int id) const { return bars_[id].released; }
  uint32_t red_result(int id) const { return bars_[id].result; }
  bool any_waiting() const;
  int waiting_total() const;  // warps waiting at any barrier
  // The last completion of barrier `id`: how many lanes executed it, whether it waited for every
  // thread of the block (no count), and whether a warp arrived with only some of its live lanes.
  uint32_t completed_lanes(int id) const { return bars_[id].done_lanes; }
  bool completed_all(int id) const { return bars_[id].done_all; }
  bool completed_partial(int id) const { return bars_[id].done_partial; }
  // synccheck: the next arrival at `id` comes from a warp with only some of its live lanes.
  void mark_partial(int id) { bars_[id].partial = true; }
  int waiting_count(int id) const { return static_cast<int>(bars_[id].waiting.size()); }
  uint32_t expected(int id) const { return bars_[id].expected; }

 private:
  struct Bar {
    uint32_t arrived_threads = 0;  // 32 per arriving warp
    uint32_t arrived_warps = 0;
    uint32_t expected = 0;     // 0 = every live warp
    std::vector<int> waiting;  // warps blocked on it
    std::vector<int> released;
    Red red = Red::None;
    uint32_t popc = 0;
    bool all = true, any = false;
    uint32_t result = 0;
    uint32_t arrived_lanes = 0;  // lanes that executed the instruction (synccheck)
    bool partial = false;        // a warp arrived with only some of its live lanes
    uint32_t done_lanes = 0;     // ... as of the last completion
    bool done_all = false, done_partial = false;
  };
  bool complete_if_ready(Bar& b, int live_warps);
  std::array<Bar, kBarriers> bars_{};
};

}  // namespace warplab::func
