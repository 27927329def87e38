// Block scheduler: see block_scheduler.h.
#include "sim/timing/block_scheduler.h"

#include <cmath>

namespace warplab::timing {

BlockScheduler::BlockScheduler(const func::Dim3& grid, double interval)
    : grid_(grid), total_(grid.count()), interval_(interval) {}

uint64_t BlockScheduler::next_due() const {
  return done() ? kNever : static_cast<uint64_t>(std::ceil(due_));
}

Status BlockScheduler::dispatch(uint64_t now, std::vector<Sm>& sms) {
  while (!done() && due_ <= double(now)) {
    // 1. The next SM (round-robin) with room for one more block.
    size_t tried = 0;
    while (tried < sms.size() && !sms[rr_].has_room()) {
      rr_ = (rr_ + 1) % sms.size();
      ++tried;
    }
    if (tried == sms.size()) return Ok{};   // every SM is full: wait for a block to finish
    // 2. Place the block (x fastest, as CUDA numbers them), or the one a sampled run goes on with.
    if (skip_) next_ = skip_(next_, now);
    if (done()) return Ok{};
    const uint64_t i = next_;
    const func::Dim3 index{static_cast<uint32_t>(i % grid_.x),
                           static_cast<uint32_t>(i / grid_.x % grid_.y),
                           static_cast<uint32_t>(i / (uint64_t{grid_.x} * grid_.y))};
    if (auto st = sms[rr_].launch_block(index, i, now); !st) return st;
    ++next_;
    rr_ = (rr_ + 1) % sms.size();
    // 3. The distributor is busy for one interval.
    due_ = std::max(due_, double(now) - interval_) + interval_;
  }
  return Ok{};
}

}  // namespace warplab::timing
