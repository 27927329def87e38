// Memory traffic over simulated time, from the trace's accesses: what is in flight on each link of
// the path lanes -> LSU/coalescer -> L1 -> L2 -> DRAM at a cycle, and how many bytes each link
// delivered over a window before it (the memory-flow view animates both).
//
// Hardware: a warp's load leaves the LSU as sector requests after coalescing, waits its turn at
// the L1's tag stage, and either hits (data from L1) or misses to the L2, which either holds the
// sector or fetches it from DRAM (in groups of sectors, the preset's L2 fetch_bytes, so DRAM can
// move more than was asked for); the data comes back up the same way. Each link carries at most
// its bandwidth, so a kernel that needs 32 sectors per warp (stride 32) queues where one that
// needs 4 (stride 1) streams.
//
// What the trace records per access (timing::AccessRecord): when it issued, when it reached the
// L1's tag stage, when its data was back, and how many sectors hit in L1, came from the L2 or
// from DRAM. It does not record when each sector passed the L2, so here a sector is "in flight"
// on its deepest link (L1<->L2 for L2 hits, L2<->DRAM for DRAM fetches) from the tag stage until
// the access's data is back. Rates count delivered bytes, as the DRAM's do (Dram::bytes_delivered:
// finished transfers and the part of each one in progress), never bytes when requested: an
// access's bytes move between its tag stage and its data being back (stores: complete in the L2),
// and as the trace does not say when each sector moved, they are spread evenly over that time; a
// window counts the part inside it. Only the traced SM(s) have accesses; GPU-wide DRAM traffic is
// in the trace's counter samples (bytes as the buses moved them). No ImGui (tests/712).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/timing/config.h"
#include "sim/timing/trace.h"

namespace warplab::app {

// The links, top to bottom.
enum class FlowLink : int { LsuToL1 = 0, L1ToL2 = 1, L2ToDram = 2 };
inline constexpr int kFlowLinks = 3;

// One access in flight at a cycle, for the animation.
struct FlowItem {
  uint32_t access = 0;  // index into Trace::accesses
  // Where it is: waiting between the LSU and the L1 tag stage, or past the tag stage with its
  // misses below (progress 0..1 over [tag_stage, ready): down the links, then back up).
  enum class Stage : uint8_t { ToL1, BelowL1 } stage = Stage::ToL1;
  double progress = 0;
  bool store = false;
  int l1_hit = 0, from_l2 = 0, from_dram = 0;  // requested sectors by where they are served
  int dram_fetched = 0;  // sectors DRAM moves for it (sector groups: can exceed from_dram)
};

struct FlowState {
  // Queue occupancy per link at the cycle: accesses and sectors in flight on it.
  std::array<int, kFlowLinks> accesses{}, sectors{};
  int l1_hit_sectors = 0;       // of accesses past the tag stage, the sectors the L1 serves
  std::vector<FlowItem> items;  // at most max_items, the oldest first
};

// Bytes over a window [begin, end) of cycles.
struct FlowRates {
  uint64_t begin = 0, end = 0;
  std::array<double, kFlowLinks> bytes{};  // moved on each link (sectors x 32, spread as above)
  double useful_bytes = 0;                 // what the lanes asked for (active lanes x access size)
  double moved_bytes = 0;                  // what the L1 handed over for them (sectors x 32)
  double tag_lines = 0;                    // 128-byte lines looked up at the L1 tag stage
  double requests = 0;                     // warp requests (after the coalescer: lines, sectors)
  // The L2 slices' time the window's accesses took, in sector times (see L2Costs), on the read
  // path (loads, atomics) and the write path (stores): the L1<->L2 link's use in the model.
  double l2_read_time = 0, l2_write_time = 0;
  double l2_sectors = 0;  // the traced SM's sectors sent to the L2 (its L1 misses, stores, atomics)
  // Whole GPU: DRAM bytes of the counter samples wholly inside the window, which cover
  // [gpu_begin, gpu_end) (0, 0: none does; the window is shorter than a sample).
  uint64_t gpu_dram_bytes = 0, gpu_begin = 0, gpu_end = 0;
  uint64_t gpu_l2_sectors = 0;  // the same samples' L2 sectors (read and written, every SM)
};

// GB/s (1e9 bytes per second) of `bytes` over `cycles` of the SM clock (Trace::clock_mhz).
double flow_gbps(double bytes, uint64_t cycles, double clock_mhz);

// What an access costs the L2 slice that serves it, in sector times (the preset's [l2] section;
// sim/timing/l2.cpp occupy): each line a warp request sends to the L2 pays its sectors plus
// request_sectors (tag and header); a store sector the lanes cover only in part is a
// read-modify-write of the ECC-protected sector, partial_write_sectors instead of 1, and its
// request partial_request_sectors (negative: request_sectors x partial_write_sectors). Loads and
// atomics queue on a slice's read
// path, stores on its write path. The defaults count sectors only.
struct L2Costs {
  double request_sectors = 0;
  double partial_write_sectors = 1;
  double full_write_sectors = 1;
  double partial_request_sectors = -1;
};

// Built once per trace: global/local/atomic accesses ordered by issue, and running sums that
// give each quantity's bytes delivered by any cycle (see above), so a frame's queries cost a
// binary search each.
struct FlowIndex {
  static constexpr uint64_t kSectorBytes = 32;        // every preset
  // The links, useful bytes, moved bytes, L1 tag-stage lines, requests (accesses), L2 slice time
  // on the read path and on the write path (sector times, L2Costs), sectors sent to the L2.
  static constexpr int kQuantities = kFlowLinks + 7;
  std::vector<uint32_t> by_issue;                     // indices into Trace::accesses
  uint64_t longest = 0;                               // largest ready - issue
  uint64_t first_cycle = 0, last_cycle = 0;           // first issue, last data back
  // Accesses by tag stage (start) and by data back (end), each with prefix sums (one entry more,
  // from 0) of bytes b, rate r = b / (end - start) and r x start per quantity. An access whose
  // data is back at its tag stage counts b at that cycle.
  using Sums = std::array<double, kQuantities>;
  std::vector<uint64_t> start_cycle, end_cycle;
  std::vector<Sums> start_rate, start_rate_x, end_bytes, end_rate, end_rate_x;

  FlowState at(const timing::Trace& t, double cycle, size_t max_items = 256) const;
  // Sectors in flight on each link at `samples` cycles evenly spread over
  // [first_cycle, last_cycle] (both ends included): the queues over the whole launch.
  std::array<std::vector<int>, kFlowLinks> occupancy(const timing::Trace& t, int samples) const;
  // Bytes of each quantity delivered before `cycle`.
  Sums delivered(double cycle) const;
  FlowRates rates(const timing::Trace& t, uint64_t begin, uint64_t end) const;
};

FlowIndex build_flow_index(const timing::Trace& t, const L2Costs& costs = {});

// Slice time (sector times, L2Costs) one access takes at the L2: {read path, write path}. A store
// sector counts as covered in full when its lanes' bytes add up to the sector (lanes write
// distinct addresses; the coalescer checks each byte).
std::array<double, 2> l2_slice_time(const timing::Trace& t, const timing::AccessRecord& a,
                                    const L2Costs& costs);

// The launch's steady state: from the first block's end to the last block's dispatch, while
// blocks still wait for a slot and every SM keeps working; a grid of one wave has none, and the
// whole launch [first issue, last data back] stands for it (`steady` false).
struct SteadyWindow {
  uint64_t begin = 0, end = 0;
  bool steady = false;
};
SteadyWindow steady_window(const timing::Trace& t, const FlowIndex& ix);

// What each link can carry in the timing model, per SM cycle, with where that limit lives:
// lanes->L1 is the L1 tag stage (tag_lookups_per_cycle lines of line_bytes per cycle per SM; a
// warp request needs one lookup per 128-byte line it touches, so stride 32 needs 32 where stride 1
// needs 1 per 128 bytes); L1<->L2 is the L2's slices, each serving sectors_per_cycle_per_slice
// sector times per cycle on its read path and as many on its write path (bytes_per_cycle: the
// sectors' bytes when every request is whole sectors with no overhead), and L2<->DRAM the DRAM's
// peak, both for the whole GPU.
struct LinkCapacities {
  std::array<double, kFlowLinks> bytes_per_cycle{};  // lanes->L1: lookups x line bytes
  std::array<std::string, kFlowLinks> basis;
  double tag_lines_per_cycle = 0;  // the L1 tag stage's lookups per cycle per SM
  double l2_sector_times_per_cycle = 0;  // slices x sectors_per_cycle_per_slice, per path
  L2Costs l2_costs;
  int sm_count = 0;
};
LinkCapacities link_capacities(const timing::GpuConfig& config);

// SMs with a block resident at some cycle of [begin, end): those sharing the L2 and DRAM.
int active_sms(const timing::Trace& t, uint64_t begin, uint64_t end);

// Each link's use over a window as a fraction of its modelled capacity: lanes->L1 as tag-stage
// lines over the lookups the window allows (the traced SM's own); L1<->L2 as the slice time of the
// busier path (read or write) and L2<->DRAM as bytes, against the whole GPU's capacity. Where the
// window holds counter samples, those give the GPU-wide volume (L2 sectors of every SM, costed at
// the traced SM's slice time per sector on each path; DRAM bytes as the buses moved them): the
// SMs need not share the L2 evenly (in the model an SM served first each cycle gets more of it).
// Otherwise the traced SM's traffic against its even share (capacity / sms_sharing). `busiest`:
// the link with the largest fraction. Without slice times (l2_sector_times_per_cycle 0) L1<->L2
// counts bytes.
struct LinkUse {
  std::array<double, kFlowLinks> fraction{};
  int busiest = 0;
  bool l2_write_path = false;  // L1<->L2's busier path is the slices' write path
  bool gpu_wide = false;       // L1<->L2 and L2<->DRAM from the counter samples (every SM)
};
LinkUse link_use(const FlowRates& r, const LinkCapacities& capacities, int sms_sharing);

}  // namespace warplab::app
