// Which registers a block must find zeroed: the data slots some thread may read before it has
// written them.
//
// PTX leaves a register undefined until it is written; WarpLab gives such a read 0 (so a kernel
// that reads one behaves the same on every run and thread count). A block slot that runs one
// block after another (Cta::relaunch) would otherwise zero every register of every warp for
// each block: 23 registers x 32 lanes x 8 bytes x 8 warps = 47 KiB for vec_add, a per-block cost
// of the timing model (issue 26). Most kernels write each register before reading it, so only
// the slots this analysis cannot prove written are zeroed; the others keep the previous block's
// values, which no thread reads.
//
// The analysis: for each instruction of the kernel, the data slots written on every path from
// the entry (a forward "must" data-flow over the control-flow graph of one thread: an
// instruction under a guard predicate may not write; branches, ret and exit end or join paths).
// A source slot outside that set at some instruction is read-before-write. It follows only
// instructions that read their own lane's sources and write their destinations in every lane
// they execute for (arithmetic, moves, conversions, loads, stores, branches, barriers without a
// result); a kernel with anything else (calls, warp shuffles and votes, mma, carry flags,
// asynchronous copies, ...) keeps the old rule: every slot is zeroed.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace warplab::func {

struct DecodedKernel;

// The data slots (sorted; const slots excluded: reset writes them) a fresh block must zero, or
// nullopt when the kernel holds an instruction the analysis does not follow (zero them all).
std::optional<std::vector<int32_t>> slots_read_before_written(const DecodedKernel& k);

// The control-flow graph of one thread that the analysis follows (also reg_share.h's): each
// pc's successors (the next pc unless an unguarded bra, ret or exit ends the path; a branch's
// target). nullopt when an instruction has no IR or a branch's target is outside the code.
std::optional<std::vector<std::vector<int>>> thread_successors(const DecodedKernel& k);

}  // namespace warplab::func
