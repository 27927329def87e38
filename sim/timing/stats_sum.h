// Sums shares of one launch's functional counts: one host thread's share (the parallel loop, the
// multi-threaded fast-forward) or the skipped blocks' (sampled mode). Every count is a sum, so the
// order of the shares doesn't matter and any thread count gives the same totals.
#pragma once

#include "sim/func/launch.h"

namespace warplab::timing {

inline void add_stats(func::LaunchStats& into, const func::LaunchStats& from) {
  into.warp_instructions += from.warp_instructions;
  into.thread_instructions += from.thread_instructions;
  for (size_t c = 0; c < into.warp_by_class.size(); ++c) {
    into.warp_by_class[c] += from.warp_by_class[c];
    into.thread_by_class[c] += from.thread_by_class[c];
  }
  for (const auto& [line, n] : from.by_ptx_line) {
    auto& d = into.by_ptx_line[line];
    d.warp_instructions += n.warp_instructions;
    d.thread_instructions += n.thread_instructions;
  }
  for (const auto& [line, n] : from.by_src_line) {
    auto& d = into.by_src_line[line];
    d.warp_instructions += n.warp_instructions;
    d.thread_instructions += n.thread_instructions;
  }
  into.blocks += from.blocks;
  into.warps += from.warps;
  into.threads += from.threads;
}

}  // namespace warplab::timing
