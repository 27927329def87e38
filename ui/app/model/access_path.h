// One warp memory access's path from lanes to sectors, decoded from the trace: which 128-byte
// line and which 32-byte sector each lane's address falls in, and where each sector was served.
//
// Hardware: the LSU groups a warp's 32 addresses by cache line and, within each line, by 32-byte
// sector (the unit the L1, L2 and DRAM move). Consecutive 4-byte lanes fan into one sector eight
// at a time (coalesced: 32 lanes, 4 sectors of one line); with a stride of 128 bytes or more
// every lane needs a line of its own. The trace keeps this compactly (timing::AccessRecord's
// line slice and 2-bit lane_sectors); access_path() unpacks it for the memory panel. No ImGui,
// so tests/706 checks it headless.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/timing/trace.h"

namespace warplab::app {

struct AccessPath {
  static constexpr int kSectorsPerLine = 4;  // every preset: 128-byte lines of 32-byte sectors

  struct Lane {
    bool active = false;  // in the access's exec_mask
    int line = -1;        // index into lines: the line of the lane's first byte (-1: none)
    int sector = -1;      // sector of the lane's first byte in that line, 0..3 (-1: none)
  };
  struct Line {
    uint64_t address = 0;     // byte address of the line
    uint32_t lane_mask = 0;   // lanes whose bytes fall in it (a misaligned lane may be in two)
    uint8_t sector_mask = 0;  // bit s: sector s is needed
    int sectors_needed = 0;
    std::array<timing::SectorSource, kSectorsPerLine> source{};  // None where not needed
    bool needed(int s) const { return (sector_mask >> s) & 1u; }
  };

  std::vector<Line> lines;  // in the coalescer's order (first-touch lane order)
  std::array<Lane, 32> lanes{};
  int sectors = 0;                                       // needed, over all lines
  int l1_sectors = 0, l2_sectors = 0, dram_sectors = 0;  // by where they were served
  // True when the trace holds the access's lines and every active lane maps into one of them.
  // False for shared memory (banks, not lines), for traces without the per-line data and for
  // inconsistent slices: `lines` is then empty and a panel falls back to the record's counts.
  bool complete = false;

  // How many active lanes map (by their first byte) into sector `s` of line `line`.
  int lanes_into(int line, int s) const;
};

// Decodes `a`'s lines from `t.access_lines`.
AccessPath access_path(const timing::Trace& t, const timing::AccessRecord& a);

// "L1 hit", "L2", "DRAM", "not needed".
const char* sector_source_name(timing::SectorSource s);

}  // namespace warplab::app
