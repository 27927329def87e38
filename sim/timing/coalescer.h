// The coalescer: turns one warp's global memory access into cache-line requests.
//
// Hardware: when a warp executes a load or store, the LSU collects the 32 lanes' addresses and
// groups them by 128-byte cache line; within each line it marks which 32-byte sectors are needed.
// Sectors are the unit the L1, L2 and DRAM move. A warp whose 32 lanes read 32 consecutive floats
// touches one line and 4 sectors ("coalesced"); with a stride of 32 floats it touches 32 lines and
// 32 sectors, moving 8x the bytes for the same useful data.
//
// Modelled: lines in first-touch lane order, sector masks, sector and line counts (Nsight
// Compute's sectors per request). Simplified: a request is one warp instruction (Nsight counts
// requests the same way for 32-bit accesses); no special case for uniform-address broadcast.
#pragma once

#include <array>
#include <cstdint>

namespace warplab::timing {

struct LineRequest {
  uint64_t line = 0;         // line address (byte address / line_bytes)
  uint32_t sector_mask = 0;  // bit s = sector s of the line is needed
  uint32_t lane_mask = 0;    // lanes whose access falls in this line
  uint32_t full_mask = 0;    // of sector_mask: sectors whose every byte the lanes cover
  uint32_t word_mask = 0;    // 32nds of the line (4 bytes of a 128-byte line) wholly covered
};

struct CoalescedAccess {
  std::array<LineRequest, 64> lines;  // a misaligned lane may touch two lines
  int line_count = 0;
  int sectors = 0;  // total sectors over all lines
};

// Coalesces the lanes in `exec_mask` each accessing `access_bytes` at addr[lane].
void coalesce(const std::array<uint64_t, 32>& addr, uint32_t exec_mask, uint32_t access_bytes,
              uint32_t line_bytes, uint32_t sector_bytes, CoalescedAccess& out);

}  // namespace warplab::timing
