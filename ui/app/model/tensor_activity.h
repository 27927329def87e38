// What the tensor-core machinery did on the traced SM, for drawing (no ImGui): the tensor pipe of
// each sub-partition, the TMA unit's copies, cp.async fills, mbarrier waits and warpgroup MMAs.
//
// The tensor pipe's rows are derived from the trace as the timing model schedules them
// (sim/timing/tensor_pipe.h): a warp's mma.sync issued at cycle t on sub-partition
// slot % sub_partitions holds that sub-partition's pipe for [t, t + interval) and its result is
// ready at t + latency; a warpgroup MMA (wgmma_pipe.h) holds all four sub-partitions' tensor
// cores for its recorded interval. The asynchronous work comes from the trace's AsyncRecords,
// written by the units themselves (async_copy.h, tma.h, wgmma_pipe.h).
//
// Fragments (the lanes view): which lane holds which element of an mma.sync's A, B and C/D tiles,
// as the PTX ISA's "Matrix Fragments for mma.m16n8k*" sections lay them out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/ptx/ir.h"
#include "sim/timing/config.h"
#include "sim/timing/trace.h"

namespace warplab::app {

// An mma.sync line of the PTX: its pipe figures in the preset and its shape and input type.
struct MmaLine {
  int64_t interval = 1, latency = 1;  // cycles (tensor_pipe_of)
  int m = 16, n = 8, k = 16;
  std::string type;  // "f16", "bf16", "tf32", "s8", "u8", "e4m3", "e5m2"
};
// Every mma.sync of the module, by PTX line.
std::map<int32_t, MmaLine> mma_lines(const ptx::Module& module, const timing::GpuConfig& cfg);

struct Interval {
  uint64_t begin = 0, end = 0;
  int32_t ptx_line = 0;
};

struct TensorActivity {
  int sub_partitions = 0;
  // Per sub-partition: the cycles its tensor pipe is held (mma.sync intervals and warpgroup MMAs),
  // sorted, overlapping ones merged.
  std::vector<std::vector<Interval>> pipe_busy;
  std::vector<timing::AsyncRecord> tma;         // TMA copies and prefetches, by issue
  std::vector<timing::AsyncRecord> cp_async;    // cp.async fills
  std::vector<timing::AsyncRecord> mbarrier;    // answered mbarrier waits
  std::vector<timing::AsyncRecord> wgmma;       // warpgroup MMAs
  uint64_t mma_sync_issues = 0;
  bool any() const {
    return mma_sync_issues > 0 || !tma.empty() || !cp_async.empty() || !mbarrier.empty() ||
           !wgmma.empty();
  }
  // Fraction of [begin, end) that sub-partition `sp`'s tensor pipe is held.
  double occupancy(int sp, uint64_t begin, uint64_t end) const;
  // Bytes the TMA moved in [begin, end) counted wholly at their copies' ends (for a rate).
  uint64_t tma_bytes_landed(uint64_t begin, uint64_t end) const;
};

// `sm`'s activity in the trace (the traced SM).
TensorActivity tensor_activity(const timing::Trace& trace, int sm,
                               const std::map<int32_t, MmaLine>& mma);

// One element of a fragment: the lane that holds it and its index in that lane's elements
// (a0..a7, b0..b3, c0..c3 in the PTX ISA's naming).
struct FragmentCell {
  int lane = -1, element = -1;
};
enum class FragmentOperand { A, B, C };
// The tile's size for the operand (A: m x k, B: k x n, C: m x n).
int fragment_rows(const MmaLine& mma, FragmentOperand op);
int fragment_cols(const MmaLine& mma, FragmentOperand op);
// Who holds element (row, col) of the operand's tile; lane -1 for a layout not drawn.
FragmentCell fragment_cell(const MmaLine& mma, FragmentOperand op, int row, int col);

}  // namespace warplab::app
