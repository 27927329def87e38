// What the simulator's checkers report besides faults (compute-sanitizer's synccheck and racecheck).
//
// A fault (launch.h) stops a launch. A hazard does not: the launch runs on, and every hazard is
// reported at the end, as compute-sanitizer does. Two checkers fill this list when enabled:
//   - synccheck: a warp-level `.sync` instruction whose member mask does not name the executing
//     lane, names lanes that have exited or are not converged with it, or differs between members;
//     a `bar.sync` reached by only part of a warp (divergent barrier). The GPU leaves all of these
//     undefined.
//   - racecheck: two accesses to the same shared (or global, within one block) address by
//     different warps with no barrier between them, at least one a write (RAW, WAR, WAW).
#pragma once

#include <cstdint>
#include <string>

#include "sim/func/launch.h"

namespace warplab::func {

struct Hazard {
  enum class Kind { WarpSyncMask, DivergentBarrier, RaceRAW, RaceWAR, RaceWAW };
  Kind kind = Kind::WarpSyncMask;
  std::string kernel;
  Dim3 block, thread;  // the lane that saw the hazard
  int32_t ptx_line = 0;
  std::string src_file;  // CUDA source file ("" when unknown)
  int32_t src_line = 0;
  // racecheck: the other side of the race (thread, PTX and CUDA line); unused by synccheck.
  Dim3 other_thread;
  int32_t other_ptx_line = 0;
  std::string other_src_file;
  int32_t other_src_line = 0;
  uint64_t address = 0;
  ptx::Space space = ptx::Space::None;
  std::string message;  // full human-readable report
};

// Which checkers run (both off by default: they cost time).
struct CheckOptions {
  bool synccheck = false;
  bool racecheck = false;
};

}  // namespace warplab::func
