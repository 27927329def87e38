// The compiler's schedule, as the timing model applies it: what `warplab ptx --schedule` shows.
//
// The GPU runs ptxas's SASS, not the PTX: ptxas unrolls loops and moves loads above the
// arithmetic that waits for them, so one warp keeps many loads in flight. The timing model does
// the same to the PTX while it runs it (sm.h, CompilerConfig). This file is the static side of
// that rule, for students to read: for each loop of a kernel, how many loads an iteration has,
// which of them can move (their address comes from arithmetic, not from another load), where
// something stops them (a store to the same state space, an atomic, a barrier or a fence), and so
// how many loads the model lets one warp issue back to back.
// Simplified: loops are found as backward branches in one function's instruction list; the
// count is a static summary of the rule, the run itself decides (a branch that splits the warp
// also stops hoisting, which only a run shows).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ptx/ir.h"
#include "sim/timing/config.h"

namespace warplab::timing {

struct LoopSchedule {
  int32_t first = 0, last = 0;            // instruction indices: loop head .. its backward branch
  int32_t first_line = 0, last_line = 0;  // their PTX lines
  ptx::SourceLoc loc;                     // CUDA location of the loop's first instruction
  int loads = 0;                          // plain loads (global, local, shared) and ldmatrix
  int ldmatrix = 0;                       // of those: ldmatrix (a load that moves like the others)
  int movable = 0;                        // of those: address from arithmetic alone
  int kept_branches = 0;                  // conditional branches ptxas keeps (kept_branch)
  int32_t stop_line = 0;  // first store/atomic/barrier/fence that holds back a load (0: none)
  bool unrolled = false;                  // ptxas unrolls it (see unrolls())
  int ahead = 0;                          // loads one warp may issue back to back in this loop
};

// Memory as ptxas tells it apart from an instruction alone: its state space. A generic address
// (no space in the PTX: LD/ST in the SASS) may be any of them.
enum : uint8_t { kMemGlobal = 1, kMemShared = 2, kMemLocal = 4, kMemAny = 7 };
uint8_t memory_of(const ptx::Instruction& i);

// A plain store (st, weak, not volatile): the memory it may write (kMem*), else 0. A later load
// of other memory moves above it, since state spaces never overlap: ptxas hoists matmul_tiled's
// LDG of the B tile above the STS of the A tile, so both global loads are in flight at once.
// Atomics, ordered or volatile stores hold back every load.
uint8_t store_memory(const ptx::Instruction& i);

// For each instruction of `f`: when it is a shared load that ptxas widens into a vector load
// (LDS.64/LDS.128), the vector's bytes, else 0. Loads after it in its basic block that read the
// next bytes from the same base register (`[%rd3]`, `[%rd3+4]`, ...: matmul_tiled's A-tile row)
// join it, up to 16 bytes; a branch, label, barrier, store to shared memory, or a write of the
// base register ends the search. The timing model charges the vector's wavefronts to it when its
// lanes' addresses are aligned (sm.cpp: vectorize) and no wavefronts to the loads that join it.
std::vector<uint8_t> shared_vector_bytes(const ptx::Function& f);

// Whether ptxas unrolls the loop closed by the backward branch at instruction `branch` of `f`
// (on top of what NVVM already unrolled into the PTX). In the SASS of the lesson and corpus
// kernels, ptxas unrolls a loop whose counter steps by a constant (matmul_naive's k += 4: 16
// LDGs per body; row_max's c += 1024: 16) and leaves alone one whose step is a register
// (c += blockDim.x, i += gridDim.x * blockDim.x: the PTX body's loads only) or that NVVM marked
// `.pragma "nounroll"` (its remainder loops).
bool unrolls(const ptx::Function& f, int32_t branch);

// Whether the conditional branch at instruction `pc` of `f` stays a branch in the SASS, so that
// no load below it moves above it (ptxas does not speculate loads: lesson 17's peeled copy
// iterations, scripts/microbench/h100-l17-mma-2026-11-27.sass). A forward branch over at most
// compiler.predicate_max_instructions PTX instructions, none of them a branch, is predicated by
// ptxas instead (no branch left: loads move across it); so is nothing that is not a conditional
// branch to a label. The timing model's guarded_branch (sm_compiler.cpp) applies this rule.
bool kept_branch(const ptx::Function& f, int32_t pc, const CompilerConfig& compiler);

// For each instruction of `f`: 1 at a plain store in the first peeled copy of a loop, else 0.
// NVVM peels a loop's remainder iterations (trip count mod 4) into a chain of guarded copies of
// its body, each ended by `@p bra` to one label (the unrolled main loop after it). ptxas, at the
// register count it picks by itself, loads the first of those copies through one register set
// when the chain sits inside an outer loop and its loads are wide (at least
// compiler.peeled_copy_serial_bytes a thread: LDG.128, four registers each): LDG -> STS -> LDG ->
// STS, where the later copies issue their LDGs together (lesson 17's mma matmul, 72 registers:
// three global round trips a k-step, scripts/microbench/h100-l17-mma-2026-11-27.sass).
// scripts/microbench/PTXAS-COPY-2026-11-27.md has the kernels this is read from and those where
// ptxas does otherwise (a larger register budget, narrower loads, no outer loop, and two kernels
// with LDG.128 in an outer loop). A store so marked is a fence for the timing model
// (sm_compiler.cpp: guarded_branch): no load of the copy moves above it.
std::vector<uint8_t> serial_copy_stores(const ptx::Function& f, const CompilerConfig& compiler);

// A forward conditional branch of `f`, as `warplab ptx --schedule` lists it.
struct BranchSchedule {
  int32_t pc = 0, line = 0;  // instruction index, PTX line
  ptx::SourceLoc loc;        // its CUDA location
  int skipped = 0;           // PTX instructions it jumps over
  bool kept = false;         // kept_branch: loads below it wait for it
  int loads_below = 0;       // loads (and ldmatrix) before the next branch or label: held by it
};
std::vector<BranchSchedule> branch_schedules(const ptx::Function& f,
                                             const CompilerConfig& compiler);

// Loops of `f` (innermost first, by position), under `compiler`'s rule, for a kernel that ptxas
// gave `registers_per_thread` registers (loads in flight hold
// compiler.load_register_share of them at most).
std::vector<LoopSchedule> loop_schedules(const ptx::Function& f, const CompilerConfig& compiler,
                                         int registers_per_thread = 32);

// A PTX instruction that ptxas expands into a sequence of SASS instructions (IEEE division,
// reciprocal and square root; 32-bit integer division and remainder): the preset's entry for it
// (its issue cycles, SFU instructions and latency; sm.cpp issues it as one instruction that holds
// the scheduler for the sequence), or nullptr.
const PipeConfig* expansion_of(const PipesConfig& pipes, const ptx::Instruction& i);

// An IEEE-rounded float division, reciprocal or square root: ptxas expands it into a fast path
// with a branch around a CALL to a slow-path subroutine (BSSY ... CALL.REL.NOINC ... BSYNC), and
// moves no load across that region. gen2's pagerank_pull (one division an edge): every
// iteration's four loads issue after the previous division's BSYNC, none earlier
// (scripts/microbench/gen2-sass/sparse.sass).
bool calls_slow_path(const ptx::Instruction& i);

// Whether any instruction of `f` reads the register that instruction `pc` writes (its first
// operand): an atomic whose old value nothing reads is a RED in the SASS (ptxas drops the
// return), one whose value is read an ATOMG that waits for it (l2.atomic_return_latency).
bool result_read(const ptx::Function& f, size_t pc);

}  // namespace warplab::timing
