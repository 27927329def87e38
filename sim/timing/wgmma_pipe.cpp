// The warpgroup MMA unit (see wgmma_pipe.h).
#include "sim/timing/wgmma_pipe.h"

#include <algorithm>
#include <cmath>

namespace warplab::timing {

uint64_t WgmmaPipe::interval(int n) const {
  const double peak = n / cfg_.wgmma_columns_per_cycle;
  const double floor =
      static_cast<double>(cfg_.wgmma_issue_base) + n / cfg_.wgmma_issue_columns_per_cycle;
  return static_cast<uint64_t>(std::ceil(std::max(peak, floor)));
}

uint64_t WgmmaPipe::latency(int n) const {
  return static_cast<uint64_t>(std::ceil(static_cast<double>(cfg_.wgmma_latency_base) +
                                         n / cfg_.wgmma_latency_columns_per_cycle));
}

void WgmmaPipe::start(Group& g, Op& op, int32_t ptx_line) {
  const uint64_t begin = std::max({op.last_issue, free_, g.chain_free});
  const uint64_t busy = interval(op.n);
  free_ = begin + busy;
  g.chain_free = begin + busy + static_cast<uint64_t>(cfg_.wgmma_chain_gap);
  op.ready = begin + latency(op.n);
  trace_.record({0, -1, AsyncRecord::Kind::Wgmma, begin, free_, op.ready, uint64_t(op.n), ptx_line});
}

// When op i of the group is ready; one whose warps have not all issued it is timed as if the
// missing warps issued it at `now` (wgmma_pipe.h: simplified), without taking the unit.
uint64_t WgmmaPipe::ready_of(const Group& g, uint32_t i, uint64_t now) const {
  const Op& op = g.ops[i - g.first];
  if (op.issued >= 4) return op.ready;
  const uint64_t begin = std::max({op.last_issue, now, free_, g.chain_free});
  return begin + latency(op.n);
}

// Drops the ops every warp of the group has waited for.
void WgmmaPipe::trim(Group& g) {
  uint32_t keep = UINT32_MAX;
  for (const WarpGroups& w : g.warps) {
    uint32_t oldest = w.seq;
    for (const auto& c : w.closed)
      if (!c.empty()) oldest = std::min(oldest, c.front());
    if (!w.open.empty()) oldest = std::min(oldest, w.open.front());
    keep = std::min(keep, oldest);
  }
  while (g.first < keep && !g.ops.empty() && g.ops.front().issued >= 4) {
    g.ops.pop_front();
    ++g.first;
  }
}

uint64_t WgmmaPipe::issue(uint64_t block, int warp, const ptx::Instruction& in, uint64_t now) {
  Group& g = groups_[{block, warp / 4}];
  WarpGroups& w = g.warps[warp % 4];
  switch (in.op) {
    case ptx::Opcode::Wgmma: {
      // 1. The warp's part of its next wgmma; the last of the four starts it.
      const uint32_t i = w.seq++;
      while (g.first + g.ops.size() <= i) g.ops.push_back(Op{in.mod.tensor.n});
      Op& op = g.ops[i - g.first];
      op.last_issue = std::max(op.last_issue, now);
      if (++op.issued == 4) start(g, op, in.ptx_line);
      w.open.push_back(i);
      return 0;
    }
    case ptx::Opcode::WgmmaCommit:
      w.closed.push_back(std::move(w.open));
      w.open.clear();
      return 0;
    case ptx::Opcode::WgmmaWait: {
      // 2. All but the newest N groups must be ready.
      const auto keep = static_cast<size_t>(in.ops.empty() ? 0 : in.ops[0].bits);
      uint64_t until = 0;
      while (w.closed.size() > keep) {
        for (uint32_t i : w.closed.front()) until = std::max(until, ready_of(g, i, now));
        w.closed.pop_front();
      }
      trim(g);
      return until > now ? until : 0;
    }
    default:  // wgmma.fence: an issue slot
      return 0;
  }
}

void WgmmaPipe::block_done(uint64_t block) {
  for (auto it = groups_.lower_bound({block, 0}); it != groups_.end() && it->first.first == block;)
    it = groups_.erase(it);
}

}  // namespace warplab::timing
