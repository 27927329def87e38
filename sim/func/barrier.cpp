#include "sim/func/barrier.h"

#include <bit>

namespace warplab::func {

void BarrierUnit::reset() {
  for (auto& b : bars_) {
    b.arrived_threads = b.arrived_warps = b.expected = 0;
    b.waiting.clear();
    b.released.clear();
    b.red = Red::None;
    b.popc = 0;
    b.all = true;
    b.any = false;
    b.result = 0;
    b.arrived_lanes = b.done_lanes = 0;
    b.partial = b.done_all = b.done_partial = false;
  }
}

bool BarrierUnit::arrive(int id, int warp, uint32_t expected_threads, bool waits, Red red,
                         uint32_t lanes, uint32_t pred, int live_warps) {
  Bar& b = bars_[id];
  if (b.arrived_warps == 0) {
    b.expected = expected_threads;
    b.red = red;
    b.popc = 0;
    b.all = true;
    b.any = false;
  }
  b.arrived_warps++;
  b.arrived_threads += 32;
  b.arrived_lanes += std::popcount(lanes);
  if (red != Red::None) {
    const uint32_t t = pred & lanes;
    b.popc += std::popcount(t);
    b.all = b.all && t == lanes;
    b.any = b.any || t != 0;
  }
  if (waits) b.waiting.push_back(warp);
  return complete_if_ready(b, live_warps);
}

bool BarrierUnit::complete_if_ready(Bar& b, int live_warps) {
  if (b.arrived_warps == 0) return false;
  const bool ready = b.expected ? b.arrived_threads >= b.expected
                                : b.arrived_warps >= static_cast<uint32_t>(live_warps);
  if (!ready) return false;
  switch (b.red) {
    case Red::Popc:
      b.result = b.popc;
      break;
    case Red::And:
      b.result = b.all ? 1 : 0;
      break;
    case Red::Or:
      b.result = b.any ? 1 : 0;
      break;
    case Red::None:
      b.result = 0;
      break;
  }
  b.released.swap(b.waiting);
  b.waiting.clear();
  b.arrived_threads = b.arrived_warps = 0;
  b.done_lanes = b.arrived_lanes;
  b.done_all = b.expected == 0;
  b.done_partial = b.partial;
  b.arrived_lanes = 0;
  b.partial = false;
  return true;
}

std::vector<int> BarrierUnit::on_warp_exit(int live_warps) {
  std::vector<int> done;
  for (int i = 0; i < kBarriers; ++i)
    if (bars_[i].expected == 0 && complete_if_ready(bars_[i], live_warps)) done.push_back(i);
  return done;
}

int BarrierUnit::waiting_total() const {
  int n = 0;
  for (const auto& b : bars_) n += static_cast<int>(b.waiting.size());
  return n;
}

bool BarrierUnit::any_waiting() const {
  for (const auto& b : bars_)
    if (!b.waiting.empty()) return true;
  return false;
}

}  // namespace warplab::func
