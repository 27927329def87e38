// The code view's numbers per line (ui/app/code_panel.cpp): for every PTX line and every line of
// the kernel's own source, the warp instructions the timing model issued there, the warp-cycles
// its warps spent there by state (the model's stall-reason mix, what Nsight Compute's source view
// shows as "warp stall sampling"), and for memory instructions the requests, the sectors they
// needed after coalescing and, for shared memory, the wavefronts and bank conflicts.
//
// Instruction counts and warp states cover every SM (the model counts them everywhere); the
// memory columns come from the trace's access records, which only the traced SM has, so they
// are per request (sectors/request, conflicts/request) and need no scaling. No ImGui (tests/718).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/timing/warp_state.h"
#include "ui/app/model/run_snapshot.h"

namespace warplab::app {

struct LineProfile {
  uint64_t warp_instructions = 0;
  timing::WarpStateCycles states{};  // warp-cycles spent on the line, per state, every SM
  // Memory, traced SM only: global/local/atomic requests (one per warp instruction) and their
  // sectors after coalescing; shared-memory requests, wavefronts and bank conflicts.
  uint64_t requests = 0, sectors = 0;
  uint64_t shared_requests = 0, wavefronts = 0, bank_conflicts = 0;

  uint64_t stall_cycles() const;  // every state but selected
  double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0; }
  // Extra shared-memory wavefronts per request (0: conflict-free; 31: every lane on one bank).
  double conflicts_per_request() const {
    return shared_requests ? double(bank_conflicts) / double(shared_requests) : 0;
  }
};

// The stall reasons of a line, largest first, as fractions of its stall cycles (selected is
// not a stall and is left out); at most `top` of them, those under 1% dropped.
std::vector<std::pair<timing::WarpState, double>> stall_mix(const LineProfile& p, int top = 3);

struct CodeProfile {
  std::map<int32_t, LineProfile> by_ptx, by_src;  // PTX line; line of RunSnapshot::source_path
  uint64_t max_stall_ptx = 0, max_stall_src = 0;  // largest stall_cycles() (bar scaling)
};

// Sums over the run's launches. Source lines come from RunSnapshot::ptx_to_src.
CodeProfile code_profile(const RunSnapshot& run);

// The colour class of a source line for the colour-matched mapping between the panes: lines next
// to each other get different classes, the same line the same in every pane. In [0, kLineHues).
inline constexpr int kLineHues = 8;
inline int line_hue(int32_t src_line) { return src_line <= 0 ? -1 : (src_line * 5) % kLineHues; }

}  // namespace warplab::app
