// An index over a recorded timing trace, built once when a run arrives: rows (one per SM warp
// slot), each row's spans, issues and accesses sorted by cycle, and look-ups the panels need
// (the span or access under a cycle). Read-only after build; no ImGui.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/timing/trace.h"

namespace warplab::app {

struct TraceRow {
  int32_t sm = 0, slot = 0;
  std::vector<timing::WarpSpan> spans;  // sorted by begin
  std::vector<uint32_t> issues;         // indices into Trace::issues, sorted by cycle
  std::vector<uint32_t> accesses;       // indices into Trace::accesses, sorted by issue
};

struct TraceIndex {
  std::vector<TraceRow> rows;                // sorted by (sm, slot)
  uint64_t first_cycle = 0, last_cycle = 0;  // over all spans (0, 0 when empty)

  // The span of `row` that contains `cycle`, if any.
  const timing::WarpSpan* span_at(size_t row, double cycle) const;
  // The last issue of `row` at or before `cycle` (index into Trace::issues), if any.
  std::optional<uint32_t> issue_at_or_before(const timing::Trace& t, size_t row,
                                             double cycle) const;
  // The access of `row` in flight at `cycle` (issued at or before, not yet ready), else the last
  // one issued before it; index into Trace::accesses.
  std::optional<uint32_t> access_near(const timing::Trace& t, size_t row, double cycle) const;
  // The row of (sm, slot), or -1.
  int row_of(int32_t sm, int32_t slot) const;
};

TraceIndex build_trace_index(const timing::Trace& trace);

}  // namespace warplab::app
