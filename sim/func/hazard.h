// What the simulator's checkers report besides faults (compute-sanitizer's synccheck and
// racecheck).
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
#include <vector>

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
  // How many times this hazard was seen: hazards of one kind between the same pair of PTX lines
  // are reported once (the first one seen, with its threads), with the count (merge_hazard).
  uint64_t count = 1;
};

// Adds `h` to `list`, or counts it on the entry of the same kind, kernel and PTX line pair.
inline void merge_hazard(std::vector<Hazard>& list, Hazard&& h) {
  for (Hazard& e : list)
    if (e.kind == h.kind && e.ptx_line == h.ptx_line && e.other_ptx_line == h.other_ptx_line &&
        e.kernel == h.kernel) {
      e.count += h.count;
      return;
    }
  list.push_back(std::move(h));
}
inline void merge_hazards(std::vector<Hazard>& into, std::vector<Hazard>&& from) {
  for (Hazard& h : from) merge_hazard(into, std::move(h));
  from.clear();
}
// "divergent_barrier", "race_raw", ... (JSON and reports).
inline const char* hazard_kind_name(Hazard::Kind k) {
  switch (k) {
    case Hazard::Kind::WarpSyncMask:
      return "warp_sync_mask";
    case Hazard::Kind::DivergentBarrier:
      return "divergent_barrier";
    case Hazard::Kind::RaceRAW:
      return "race_raw";
    case Hazard::Kind::RaceWAR:
      return "race_war";
    case Hazard::Kind::RaceWAW:
      return "race_waw";
  }
  return "unknown";
}

// Which checkers run (both off by default: they cost time).
struct CheckOptions {
  bool synccheck = false;
  bool racecheck = false;
};

}  // namespace warplab::func
