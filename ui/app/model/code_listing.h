// The code view's two derived listings beside the CUDA and the PTX (ui/app/code_panel.cpp):
//
// - The model's schedule: what the timing model does in place of ptxas's scheduler (the same
//   rule `warplab ptx --schedule` prints, sim/timing/schedule.h): which loops it unrolls, how
//   many loads one warp issues ahead of their first use, where a store or barrier holds loads
//   back, and which PTX instructions stand for a SASS sequence. Each line names the PTX line it
//   is about, so clicking it picks that line in the other panes.
// - The SASS a GPU would run: the PTX assembled by the toolkit's ptxas for sm_90 and listed by
//   cuobjdump -sass. Both are programs of the CUDA toolkit found on PATH, in $CUDA_HOME/bin or
//   /usr/local/cuda/bin; without them the listing is empty and `note` says which is missing.
//   (The simulator itself executes the PTX; the SASS is for reading what ptxas made of it.)
// No ImGui (tests/718).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/func/executor.h"
#include "sim/timing/config.h"

namespace warplab::app {

struct ListingLine {
  int32_t ptx_line = 0;  // the PTX line it is about (0: a heading)
  std::string text;
};

// `registers`: per kernel, what ptxas gave it (a kernel not in it is assumed 32, as the model
// does); `files`: the module's .file table, for naming a loop's CUDA line.
std::vector<ListingLine> schedule_listing(const func::Program& program,
                                          const timing::GpuConfig& config,
                                          const std::map<std::string, int>& registers);

struct SassListing {
  std::vector<std::string> lines;
  std::string note;  // why there is no listing, or which tools made it
};

// Runs ptxas and cuobjdump on `ptx` in a fresh temporary directory (removed after). `arch`:
// "sm_90". Never throws; a failing tool gives its first error line in `note`.
SassListing sass_listing(const std::string& ptx, const std::string& arch = "sm_90");

// The path of a CUDA toolkit program (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin), or "".
std::string find_cuda_tool(const std::string& name);

}  // namespace warplab::app
