// Block scheduler: see block_scheduler.h.
#include "sim/timing/block_scheduler.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace warplab::timing {

BlockScheduler::BlockScheduler(const func::Dim3& grid, double interval)
    : grid_(grid), total_(grid.count()), interval_(interval) {}

BlockScheduler::BlockScheduler(const func::Dim3& grid, double interval, func::Dim3 shape,
                               uint32_t threads, const ClusterConfig& cfg, size_t sm_count)
    : grid_(grid),
      total_(grid.count()),
      interval_(interval),
      shape_(shape),
      threads_(threads),
      groups_(cluster_groups(cfg, sm_count, static_cast<uint32_t>(shape.count()))) {}

std::vector<BlockScheduler::Group> BlockScheduler::cluster_groups(const ClusterConfig& cfg,
                                                                  size_t sm_count, uint32_t size) {
  std::vector<Group> groups;
  if (size <= 2) {  // a TPC: SMs 2k and 2k+1
    for (size_t sm = 0; sm + 1 < sm_count; sm += 2) groups.push_back({sm, 2});
    if (sm_count % 2) groups.push_back({sm_count - 1, 1});
    return groups;
  }
  std::istringstream in(cfg.gpc_sms);
  size_t first = 0, n = 0;
  while (in >> n && first + n <= sm_count) groups.push_back({first, n}), first += n;
  if (!groups.empty()) return groups;
  const size_t gpcs =
      std::clamp<size_t>(static_cast<size_t>(cfg.gpcs), 1, std::max<size_t>(sm_count, 1));
  for (size_t g = 0; g < gpcs; ++g)
    groups.push_back({g * sm_count / gpcs, (g + 1) * sm_count / gpcs - g * sm_count / gpcs});
  return groups;
}

BlockScheduler::~BlockScheduler() = default;

uint64_t BlockScheduler::next_due() const {
  return done() ? kNever : static_cast<uint64_t>(std::ceil(due_));
}

Status BlockScheduler::dispatch(uint64_t now, std::vector<Sm>& sms,
                                const std::vector<SmGlance>& glances) {
  placed_.clear();
  if (shape_.count() > 1) return dispatch_clusters(now, sms);
  while (!done() && due_ <= double(now)) {
    // 1. The next SM (round-robin) with room for one more block.
    size_t tried = 0;
    while (tried < sms.size() && !(glances[rr_].room && sms[rr_].has_room())) {
      rr_ = (rr_ + 1) % sms.size();
      ++tried;
    }
    if (tried == sms.size()) return Ok{};  // every SM is full: wait for a block to finish
    // 2. Place the block (x fastest, as CUDA numbers them), or the one a sampled run goes on with.
    if (skip_) next_ = skip_(next_, now);
    if (done()) return Ok{};
    const uint64_t i = next_;
    const func::Dim3 index{static_cast<uint32_t>(i % grid_.x),
                           static_cast<uint32_t>(i / grid_.x % grid_.y),
                           static_cast<uint32_t>(i / (uint64_t{grid_.x} * grid_.y))};
    placed_.push_back(rr_);
    if (auto st = sms[rr_].place_block(index, i, now, defer_); !st) return st;
    ++next_;
    rr_ = (rr_ + 1) % sms.size();
    // 3. The distributor is busy for one interval.
    due_ = std::max(due_, double(now) - interval_) + interval_;
  }
  return Ok{};
}

Status BlockScheduler::dispatch_clusters(uint64_t now, std::vector<Sm>& sms) {
  const uint32_t size = static_cast<uint32_t>(shape_.count());
  // The largest group must hold a cluster, or it could never start.
  size_t largest = 0;
  for (const Group& g : groups_) largest = std::max(largest, g.count);
  if (size > largest)
    return Error{"", 0,
                 "a cluster of " + std::to_string(size) + " blocks needs " + std::to_string(size) +
                     " SMs of one GPC; the preset's " + std::to_string(groups_.size()) +
                     " GPCs have at most " + std::to_string(largest) +
                     " SMs (cluster.gpcs, cluster.gpc_sms)"};
  const func::Dim3 count{grid_.x / shape_.x, grid_.y / shape_.y, grid_.z / shape_.z};
  std::vector<size_t> chosen;
  while (!done() && due_ <= double(now)) {
    // 1. The first group, from the next one on, with `size` SMs that have room; in it the SMs
    //    with the fewest resident blocks (as the GPU spreads blocks over idle SMs first).
    size_t found = groups_.size();
    for (size_t k = 0; k < groups_.size() && found == groups_.size(); ++k) {
      const size_t gi = (next_group_ + k) % groups_.size();
      const Group& g = groups_[gi];
      chosen.clear();
      for (size_t sm = g.first; sm < g.first + g.count && sm < sms.size(); ++sm)
        if (sms[sm].has_room()) chosen.push_back(sm);
      if (chosen.size() < size) continue;
      std::stable_sort(chosen.begin(), chosen.end(), [&](size_t a, size_t b) {
        return sms[a].resident_blocks() < sms[b].resident_blocks();
      });
      chosen.resize(size);
      std::sort(chosen.begin(), chosen.end());
      found = gi;
    }
    if (found == groups_.size()) return Ok{};  // no group has room: wait for blocks to finish
    // 2. The cluster (x fastest, as CUDA numbers them) and its blocks, rank by rank.
    const uint64_t c = next_ / size;
    const func::Dim3 id{static_cast<uint32_t>(c % count.x),
                        static_cast<uint32_t>(c / count.x % count.y),
                        static_cast<uint32_t>(c / (uint64_t{count.x} * count.y))};
    clusters_.push_back(std::make_unique<func::ClusterState>());
    func::ClusterState* cluster = clusters_.back().get();
    cluster->reset(shape_, id, threads_, true);
    for (uint32_t r = 0; r < size; ++r) {
      const func::Dim3 index{id.x * shape_.x + r % shape_.x,
                             id.y * shape_.y + r / shape_.x % shape_.y,
                             id.z * shape_.z + r / (shape_.x * shape_.y)};
      const uint64_t linear = index.x + uint64_t{grid_.x} * (index.y + uint64_t{grid_.y} * index.z);
      placed_.push_back(chosen[r]);
      if (auto st = sms[chosen[r]].launch_block(index, linear, now, cluster, r); !st) return st;
    }
    next_ += size;
    // The next cluster tries the next group first (clusters spread over the GPCs).
    next_group_ = (found + 1) % groups_.size();
    // 3. The distributor is busy for one interval per block.
    due_ = std::max(due_, double(now) - interval_) + interval_ * size;
  }
  return Ok{};
}

}  // namespace warplab::timing
