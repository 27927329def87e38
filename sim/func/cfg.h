// Control-flow graph of one PTX function and the reconvergence point of every branch.
//
// When a warp diverges, the hardware must know where its paths meet again. The compiler (ptxas)
// computes it as the branch's immediate post-dominator: the first instruction that every path
// from the branch to the function's exit must pass through. WarpLab does the same on the PTX:
// basic blocks split at labels and after control transfers, then post-dominators by the
// Cooper-Harvey-Kennedy iterative algorithm on the reversed graph, with one virtual exit node that
// ret/exit/trap lead to. A branch whose post-dominator is that virtual exit never reconverges
// (both sides end by leaving the function).
// Simplified: no SASS-level BSSY/BSYNC placement; the PTX CFG stands in for the SASS one.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ptx/ir.h"

namespace warplab::func {

// For each instruction of `f`: the index of its reconvergence instruction if it is a branch
// (kNoPc when the paths only meet at the function's exit), -1 for non-branches.
std::vector<int32_t> reconvergence_points(const ptx::Function& f);

}  // namespace warplab::func
