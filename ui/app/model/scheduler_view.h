// One SM's warp schedulers over time: the whole-GPU view's zoom into one SM.
//
// Hardware: an SM is four sub-partitions (SMSPs), each with its own warp scheduler, register file
// and pipes, and a warp stays on one of them for its life. Every cycle each scheduler looks at
// its warps and issues one instruction from a warp that is ready; the policy picks among the
// ready ones (lrr rotates, gto keeps the same warp until it stalls). When none is ready the
// scheduler's issue slot for that cycle is lost, and its warps' states say why (all waiting on
// memory: stall_long_scoreboard, ...). Nsight Compute counts the same cycles as "issue slot
// utilization" and "no eligible".
//
// From the trace of a traced SM, nothing estimated: a warp in state `selected` in a cycle is the
// warp its scheduler issued; a cycle with none is a lost issue slot, attributed to the state most
// of the scheduler's warps were in (the first in warp-state order on a tie). The model places
// warp slot s on scheduler s % sub_partitions (timing::Trace::sub_partitions). Past the trace's
// detail limit (Trace::truncated) there are no spans: last_cycle ends there. No ImGui (tests/715).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/timing/trace.h"
#include "ui/app/model/trace_index.h"

namespace warplab::app {

// Cycles [begin, end) in which one scheduler did the same thing.
struct SchedulerRun {
  enum class Kind : uint8_t { Issued, Stalled, Empty } kind = Kind::Empty;
  uint64_t begin = 0, end = 0;
  int32_t slot = -1;  // Issued: the warp slot that issued
  // Stalled: the state most of its warps were in. Issued: always Selected.
  timing::WarpState why = timing::WarpState::Selected;
  int16_t warps = 0;  // warps resident on the scheduler
  int16_t ready = 0;  // of them, ready to issue (the issuing one included)
};

// One pixel column's share of a scheduler's cycles.
struct SchedulerColumn {
  double cycles = 0, issued = 0, empty = 0;  // cycles in the column, with an issue, with no warp
  // Lost cycles by the state they are attributed to.
  std::array<double, timing::kWarpStateCount> stalled{};
  // The state with the most lost cycles (Selected when none was lost).
  timing::WarpState main_stall() const;
};

struct SchedulerView {
  int sm = -1;
  int schedulers = 0;  // sub-partitions
  uint64_t first_cycle = 0, last_cycle = 0;
  std::vector<std::vector<SchedulerRun>> runs;  // per scheduler, by begin, without gaps
  std::vector<std::vector<int>> rows;  // per scheduler: its warp slots' rows in the TraceIndex

  // The run of scheduler `s` containing `cycle`, or nullptr.
  const SchedulerRun* run_at(int s, uint64_t cycle) const;
  // Scheduler `s` over [c0, c1).
  SchedulerColumn totals(int s, double c0, double c1) const;
  // `n` columns of `cycles_per_column` cycles each, from `first`.
  std::vector<SchedulerColumn> columns(int s, double first, double cycles_per_column, int n) const;
};

// Empty (schedulers == 0) when `sm` was not traced in detail or the trace lacks sub_partitions.
SchedulerView build_scheduler_view(const timing::Trace& trace, const TraceIndex& index, int sm);

}  // namespace warplab::app
