// The warpgroup MMA unit: wgmma.mma_async in time, per SM (SASS HGMMA).
//
// What the hardware does: a Hopper SM multiplies a warpgroup's 64xN tile on its four tensor cores
// together (each sub-partition's core takes its warp's 16 rows, B is read once from shared memory
// for all four). The operation can start only when all four warps of the warpgroup have issued
// the instruction; it then occupies the SM's tensor cores for an *issue interval* that grows with
// N, and its accumulators are ready a *latency* later. The warps do not wait at the instruction:
// they go on, close their wgmmas into groups (wgmma.commit_group) and wait for them
// (wgmma.wait_group N: until at most N groups are pending). Wgmmas that accumulate into the same
// registers follow each other at the issue interval: the unit forwards the accumulator.
//
// Measured on the H100 (scripts/microbench/h100-wgmma-2026-11-26.tsv, wgmma_timing.cu, m64nNk16
// bf16 from shared memory, N = 8..256):
//   issue interval per SM, two or four warpgroups: max(N / 2, 16 + N / 4) cycles
//     (18.1, 20.1, 24.1, 32.0, 64.0, 128.0 for N = 8, 16, 32, 64, 128, 256: 4096 dense FLOP per
//     cycle per SM from N = 64 on);
//   one warpgroup, 8 wgmmas on one accumulator then wait 0: 25.1 ... 138.1 per wgmma, which is
//     (7 intervals + 1 latency) / 8: no extra cost for the chain (wgmma_chain_gap = 0);
//   a loop of fence + one wgmma + commit + wait 0: about 68 + N / 2 (72.6 ... 132.7; 207 at 256),
//     of which the model's fence, commit, wait and loop control take 12 cycles: latency 56 + N / 2.
// tests/342 runs these loops on the h100-sxm preset (every figure within 10% of the H100's).
// Modelled: per SM, wgmmas start in the order their warpgroups complete them, one after the other:
//   start = max(issue of the group's last warp, unit free, the group's previous start + its
//           interval + wgmma_chain_gap)
//   unit free = start + interval(N);  accumulators ready = start + latency(N)
//   interval(N) = max(N / wgmma_columns_per_cycle, wgmma_issue_base + N /
//   wgmma_issue_columns_per_cycle) latency(N)  = wgmma_latency_base + N /
//   wgmma_latency_columns_per_cycle
// (preset section [tensor]). wgmma.wait_group holds the warp until the groups it waits for are
// ready. The same times are used for every input type (tf32 k8 and FP8 k32 do the same work per
// instruction at half and twice the f16 FLOP rate: the H100's peaks, not measured here) and for A
// from registers (the published ~13 cycles minimum against ~18 from shared memory is not
// modelled). Simplified: a warp that waits for a wgmma whose other warps have not issued it yet is
// timed as if they issued it in that cycle (the warps of a warpgroup run the same code and issue
// it within a few cycles of each other); the shared-memory reads of A and B take no bank cycles
// from other instructions; wgmma.fence and commit_group cost an issue slot only.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "sim/ptx/ir.h"
#include "sim/timing/config.h"
#include "sim/timing/trace.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

class WgmmaPipe {
 public:
  // `unit_trace`: where each wgmma's time on the tensor cores is recorded (trace.h AsyncRecord).
  explicit WgmmaPipe(const TensorConfig& cfg, UnitTrace unit_trace = {})
      : cfg_(cfg), trace_(unit_trace) {}

  // The formulas of the top comment, for a wgmma of width n (cycles, rounded up).
  uint64_t interval(int n) const;
  uint64_t latency(int n) const;

  // Warp `warp` (its index in the block) of block `block` (the block's linear index: any identity
  // unique among the blocks resident on the SM) issued `in`, an instruction of isa.def's
  // "warpgroup MMA" section, at `now`. Returns the cycle before which the warp may not issue its
  // next instruction (0: no hold).
  uint64_t issue(uint64_t block, int warp, const ptx::Instruction& in, uint64_t now);
  // sm.cpp's hook: holds the warp's next fetch (fetch_ready, reason) until issue() allows it.
  void hold(uint64_t block, int warp, const ptx::Instruction& in, uint64_t now,
            uint64_t& fetch_ready, WarpState& reason) {
    if (const uint64_t t = issue(block, warp, in, now); t > fetch_ready)
      fetch_ready = t, reason = WarpState::Wait;
  }
  // The block left the SM: forget its warpgroups.
  void block_done(uint64_t block);

  // When the unit is next free (for tests and reports).
  uint64_t free_at() const { return free_; }

 private:
  struct Op {
    int n = 0;
    int issued = 0;           // warps of the group that issued it
    uint64_t last_issue = 0;  // the latest of their issue cycles
    uint64_t ready = 0;       // accumulators ready (once issued == 4)
  };
  struct WarpGroups {
    uint32_t seq = 0;                          // its next wgmma's index in the group's ops
    std::vector<uint32_t> open;                // ops not committed yet
    std::deque<std::vector<uint32_t>> closed;  // committed groups, oldest first
  };
  struct Group {
    std::deque<Op> ops;  // ops[i] is wgmma number first + i
    uint32_t first = 0;
    uint64_t chain_free = 0;  // the earliest start of its next wgmma (wgmma_chain_gap)
    WarpGroups warps[4];
  };
  void start(Group& g, Op& op, int32_t ptx_line);
  uint64_t ready_of(const Group& g, uint32_t i, uint64_t now) const;
  void trim(Group& g);

  const TensorConfig& cfg_;
  uint64_t free_ = 0;
  std::map<std::pair<uint64_t, int>, Group> groups_;  // (block, warpgroup)
  UnitTrace trace_;
};

}  // namespace warplab::timing
