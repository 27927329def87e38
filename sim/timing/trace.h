// The timing trace: what the desktop UI animates, as plain data (no UI types).
//
// Like a profiler's capture, a trace is a list of timestamped records: per warp, spans of one
// state (stall_long_scoreboard from cycle 1200 to 1890 ...) and the instructions it issued; per
// memory access, its journey (lanes -> addresses -> lines and sectors -> L1 hit/miss -> L2 -> DRAM
// -> data back, with each line's sector mask and where each sector was served); and GPU-wide
// counters (L1, L2 and DRAM traffic per interval). A whole H100 run
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
  uint64_t max_events = 1'000'000;       // detail records kept (spans + issues + accesses + lines)
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

// Where one sector of an access was served from (2 bits).
enum class SectorSource : uint8_t { None = 0, L1 = 1, L2 = 2, Dram = 3 };

// One 128-byte line a global/local/atomic access touched, in the coalescer's order (first-touch
// lane order). Kept in Trace::access_lines; an AccessRecord names its slice. 16 bytes.
struct AccessLine {
  uint64_t address = 0;         // byte address of the line (a multiple of the line size)
  uint32_t lane_mask = 0;       // lanes whose access falls in this line
  uint8_t sector_mask = 0;      // bit s: the access needs sector s (32 bytes) of the line
  uint8_t sources = 0;          // bits 2s..2s+1: SectorSource of sector s (None if not needed)
  // Loads: L1 = L1 hit (or merged into a miss already in flight in this SM's L1), L2 = L2 hit,
  // Dram = fetched from DRAM (or merged into a DRAM fetch in flight at the L2). Stores: L2 (written
  // into it). Atomics: L2 (they execute there, whether or not the line first came from DRAM).
  SectorSource source(int sector) const {
    return static_cast<SectorSource>((sources >> (2 * sector)) & 3u);
  }
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
  // Lane -> line -> sector mapping (global, local and atomic accesses; empty for shared):
  // Trace::access_lines[line_begin, line_begin + line_count) are the lines touched; lane L's
  // line is the first whose lane_mask has bit L, and its sector in that line is
  // (lane_sectors >> 2L) & 3 (the sector of the lane's first byte; a misaligned lane may also
  // touch the next sector or line, which then has bit L too). Cost: 16 bytes here plus 16 per
  // line, instead of 32 addresses (256 bytes) per access. Sector indices
  // and AccessLine's 8-bit sector_mask assume lines of at most 4 sectors (every preset: 128 / 32).
  // Shared accesses use the same pair for their lanes' addresses instead:
  // Trace::shared_addresses[line_begin, line_begin + line_count) hold the byte address (in the
  // block's shared memory) of each lane in exec_mask, in lane order (4 bytes per lane).
  uint32_t line_begin = 0, line_count = 0;
  uint64_t lane_sectors = 0;    // 2 bits per lane, for lanes in exec_mask
};

// One block's stay on an SM, from dispatch until its last warp freed its slot. Recorded for every
// SM (not only the detailed ones): the whole-GPU view draws waves and the tail effect from them.
struct BlockRecord {
  int32_t sm = 0;
  int32_t warps = 0;            // warp slots the block holds
  uint64_t block = 0;           // linear block index
  uint64_t begin = 0, end = 0;  // cycles
};

// Asynchronous work on a traced SM, recorded by its unit (async_copy.h, tma.h, wgmma_pipe.h):
// a TMA copy from its issue until its last byte has landed (or been written), a cp.async fill
// until its data is in shared memory, an mbarrier wait that was answered (from the try/test_wait
// to the warp's release, `done` = when the phase completed), and a warpgroup MMA on the SM's
// tensor cores (from its start until the unit is free again, `done` = accumulators ready).
struct AsyncRecord {
  enum class Kind : uint8_t { TmaLoad, TmaStore, TmaPrefetch, CpAsync, MbarrierWait, Wgmma };
  int32_t sm = 0, slot = -1;    // slot -1: the SM's unit, no one warp (wgmma)
  Kind kind = Kind::TmaLoad;
  uint64_t begin = 0, end = 0;  // cycles
  uint64_t done = 0;            // see above (0 when the kind has none)
  uint64_t bytes = 0;           // copies: bytes moved; wgmma: N (the tile's width)
  int32_t ptx_line = 0;
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
  double dram_peak_bytes_per_second = 0;  // the preset's DRAM peak (plots draw it as a limit)
  int32_t sm_count = 0;
  // Warp schedulers per SM (sub-partitions): warp slot s belongs to scheduler s % sub_partitions,
  // which issues at most one of its warps' instructions per cycle, picked by the named policy.
  int32_t sub_partitions = 0;
  std::string warp_scheduler;  // "lrr", "gto" (warp_scheduler.h)
  std::vector<WarpSpan> spans;
  std::vector<IssueRecord> issues;
  std::vector<AccessRecord> accesses;
  std::vector<AccessLine> access_lines;   // the lines of the accesses (AccessRecord::line_begin)
  std::vector<uint32_t> shared_addresses; // shared accesses' lane addresses (AccessRecord)
  std::vector<BlockRecord> blocks;        // every SM's blocks, in retirement order
  std::vector<AsyncRecord> async;         // the traced SMs' asynchronous work (AsyncRecord)
  std::vector<CounterSample> counters;
  std::vector<std::string> strings;
  bool truncated = false;       // max_events reached: detail stops there, counters go on
  bool blocks_truncated = false;  // max_events block records reached: later blocks not kept

  bool wants(int sm, uint64_t cycle) const;
  // Detail records kept so far, each access line and each 4 shared lane addresses counting as
  // one, so the detail is bounded by max_events records (AccessLine 16 bytes, the other records
  // at most 128). Block records are bounded separately (block_room), as they cover every SM.
  bool room() {
    return !(truncated = truncated || spans.size() + issues.size() + accesses.size() +
                                          access_lines.size() + shared_addresses.size() / 4 +
                                          async.size() >=
                                          options.max_events);
  }
  bool block_room() {
    return !(blocks_truncated = blocks_truncated || blocks.size() >= options.max_events);
  }
  int32_t intern(const std::string& s);
};

// A unit's way into the trace (async_copy.h, wgmma_pipe.h): the launch's trace (nullptr: none)
// and the SM the unit belongs to. record() keeps the record when the SM and cycle are traced.
struct UnitTrace {
  Trace* trace = nullptr;
  int32_t sm = 0;
  void record(AsyncRecord r) const {
    if (!trace || !trace->wants(sm, r.begin) || !trace->room()) return;
    r.sm = sm;
    trace->async.push_back(r);
  }
};

// Chrome trace-event JSON (the "JSON Object Format": {"traceEvents": [...]}).
Status write_chrome_trace(const Trace& trace, std::ostream& out);

}  // namespace warplab::timing
