// Fast-forwarding blocks for sampled simulation (sampling.h): the skipped blocks run functionally,
// and the L2 is left as they would have left it.
//
// The hardware: while the waves a sampled run skips would be running, their loads and stores go
// through the L2. A streaming kernel whose data is larger than the L2 fills it after some waves;
// from then on every miss evicts a line, and the dirty lines evicted (the stores of earlier
// waves) are written back to DRAM, which takes DRAM time from the reads. Skipping waves without
// their L2 traffic would leave the L2 as the last detailed wave left it, so the detailed waves
// after a skip would never reach that phase (a 2^24-float copy came out 22% fast this way).
//
// Modelled: every skipped block runs in the functional executor (func::Cta, one warp at a time
// up to its next barrier, blocks in grid order), so stores, atomics and instruction counts are
// exact; each global load, store and atomic it makes is coalesced into lines and sectors
// (coalescer.h) and replayed into the L2's tags (L2::replay): allocation, the replacement order,
// valid, dirty and partial sectors, exactly as the timing L2 would change them, but in no time.
// The detailed wave after a skip then finds the L2 full of the skipped waves' lines and dirty
// sectors, and pays for their write-backs as the full run does; the sampler's check of that wave
// sees the new cost and measures the new steady state before it skips again.
// Simplified: the L1 is not replayed (every global access of a skipped block reaches the L2, as
// a streaming kernel's do; reuse inside an SM's L1 would keep some of them from the L2, which
// changes only the L2's replacement order); the order of the skipped accesses is block after
// block, not the interleaving of the SMs; TMA and bulk copies are not replayed.
// Also here, for the within-wave rate sampler (rate_sampler.h): run_blocks runs a whole launch
// functionally, on several host threads when its blocks cannot see each other (below), and
// counts each block's warp instructions.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/common/error.h"
#include "sim/func/executor.h"

namespace warplab::timing {

class L2;

struct FastForwardResult {
  func::LaunchStats stats;                 // of the blocks that ran (Cta::step counts them)
  std::optional<func::LaunchFault> fault;  // set when a block faulted; the rest did not run
  uint64_t l2_requests = 0;                // line requests replayed into the L2
  uint64_t evicted_dirty_sectors = 0;      // dirty sectors the replay evicted
};

// Runs blocks [first, end) of `launch` (linear index, x fastest) functionally and replays their
// global accesses into `l2` (lines of `line_bytes`, sectors of `sector_bytes`). Errors as for
// run_functional's launch checks.
Expected<FastForwardResult> fast_forward(const func::Program& program, func::DeviceMemory& memory,
                                         const func::LaunchConfig& launch, uint64_t first,
                                         uint64_t end, L2& l2, uint32_t line_bytes,
                                         uint32_t sector_bytes);

// What run_blocks did.
struct BlockRunResult {
  func::LaunchStats stats;                 // of every block that ran (exact)
  std::vector<uint64_t> block_work;        // per block (linear index): its warp instructions
  std::optional<func::LaunchFault> fault;  // the first faulting block's (grid order); later
                                           // blocks did not run
  int threads = 1;                         // host threads whose results were kept
  std::string why_one_thread;              // when threads == 1 though more were offered
};

// What run_blocks reports while it runs, and what stops it (both optional).
struct BlockRunWatch {
  // Checked before each block: once set, run_blocks returns the Error "cancelled" (`memory`
  // then holds what ran so far), as run_timing's loop does.
  const std::atomic<bool>* cancel = nullptr;
  // Called on the calling thread about every `progress_seconds` of wall time with the blocks
  // done so far (all threads), the grid's and the seconds since run_blocks started.
  std::function<void(uint64_t done, uint64_t total, double seconds)> progress;
  double progress_seconds = 0.25;
};

// Runs every block of `launch` functionally in grid order's semantics (no L2 replay). With
// `threads` > 1 the grid is cut into that many contiguous ranges run at once, each on its own
// Cta, when the kernel's only device touches are plain global loads and stores
// (touch_log.h: touches_loggable); each range logs the 4 KiB pages it loaded and the 4-byte
// words it stored, and if a page one range stored is one another range loaded, or two ranges
// stored a common word, or a block faulted, `memory` is set back to `before` and the grid runs
// again on one thread: the result is always the one-thread run's. `before`: `memory` as the
// launch found it (required when threads > 1).
Expected<BlockRunResult> run_blocks(const func::Program& program, func::DeviceMemory& memory,
                                    const func::LaunchConfig& launch, int threads,
                                    const func::DeviceMemory* before,
                                    const BlockRunWatch* watch = nullptr);

}  // namespace warplab::timing
