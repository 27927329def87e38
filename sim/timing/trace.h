// The timing trace: what the desktop UI animates, as plain data (no UI types).
//
// Like a profiler's capture, a trace is a list of timestamped records: per warp, spans of one
// state (stall_long_scoreboard from cycle 1200 to 1890 ...) and the instructions it issued; per
// memory access, its journey (lanes -> addresses -> lines and sectors -> L1 hit/miss -> L2 -> DRAM
// -> data back); and GPU-wide counters (L1, L2 and DRAM traffic per interval). A whole H100 run
// would be gigabytes, so the trace is bounded: full detail only for the chosen SMs and cycle
// window and up to max_events records; other SMs contribute only to the counters.
//
// write_chrome_trace() exports it as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev)
// opens: pid = SM, tid = warp slot, and a "GPU" process with the counter tracks. Timestamps are
// in SM cycles (Perfetto labels them microseconds: read "1 us" as one cycle).
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "sim/common/error.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

struct TraceOptions {
  bool enabled = false;
  std::vector<int> sms = {0};            // SMs traced in full detail
  uint64_t cycle_begin = 0;              // detail window [begin, end)
  uint64_t cycle_end = std::numeric_limits<uint64_t>::max();
  uint64_t max_events = 1'000'000;       // detail records kept (spans + issues + accesses)
  uint64_t counter_interval = 0;         // cycles per counter sample; 0 = about 2000 samples
};

struct WarpSpan {               // a warp in one state for [begin, end)
  int32_t sm = 0, slot = 0;
  WarpState state = WarpState::Selected;
  uint64_t begin = 0, end = 0;
  int32_t ptx_line = 0;         // the instruction the warp was waiting to issue
};

struct IssueRecord {            // an instruction issued
  int32_t sm = 0, slot = 0;
  uint64_t cycle = 0;
  int32_t ptx_line = 0;
  uint32_t block = 0;           // linear block index
  int32_t warp_in_block = 0;
  uint32_t active_mask = 0, exec_mask = 0;
  int32_t text = 0;             // index into Trace::strings (instruction as written)
};

struct AccessRecord {           // one warp memory access's journey
  int32_t sm = 0, slot = 0;
  uint64_t id = 0;
  int32_t ptx_line = 0;
  enum class Kind : uint8_t { GlobalLoad, GlobalStore, Atomic, LocalLoad, LocalStore, SharedLoad,
                              SharedStore } kind = Kind::GlobalLoad;
  uint32_t exec_mask = 0;
  uint32_t access_bytes = 0;
  uint64_t first_address = 0;   // lowest active lane's address
  uint64_t issue = 0, tag_stage = 0, ready = 0;   // cycles: issued, reached the L1 tags, data back
  int32_t lines = 0, sectors = 0;                 // after coalescing
  int32_t l1_hit_sectors = 0, l1_miss_sectors = 0, dram_sectors = 0;
  int32_t wavefronts = 0, bank_conflicts = 0;     // shared memory
};

struct CounterSample {          // GPU-wide traffic in [cycle - interval, cycle)
  uint64_t cycle = 0;
  uint64_t l1_sectors = 0;      // global/local sectors looked up in L1
  uint64_t l2_sectors = 0;      // sectors read from or written to L2
  uint64_t dram_bytes = 0;      // read + written
  uint64_t warps_issued = 0;    // warp instructions
};

struct Trace {
  TraceOptions options;
  std::string kernel;
  double clock_mhz = 0;
  int32_t sm_count = 0;
  std::vector<WarpSpan> spans;
  std::vector<IssueRecord> issues;
  std::vector<AccessRecord> accesses;
  std::vector<CounterSample> counters;
  std::vector<std::string> strings;
  bool truncated = false;       // max_events reached: detail stops there, counters go on

  bool wants(int sm, uint64_t cycle) const;
  bool room() { return !(truncated = truncated || spans.size() + issues.size() + accesses.size() >= options.max_events); }
  int32_t intern(const std::string& s);
};

// Chrome trace-event JSON (the "JSON Object Format": {"traceEvents": [...]}).
Status write_chrome_trace(const Trace& trace, std::ostream& out);

}  // namespace warplab::timing
