// racecheck: data races on shared memory (and on global memory within one block).
//
// On the GPU the warps of a block run concurrently and in no fixed order; only a barrier
// (__syncthreads, bar.sync) orders one warp's accesses before another's. Two accesses to the same
// byte by different warps with no barrier between them, at least one of them a write, race: the
// result depends on timing (compute-sanitizer's racecheck reports them as RAW, WAR and WAW
// hazards). Lanes of one warp writing different values to the same address in one instruction
// also race: the GPU stores one of them and does not say which. A store of the value memory
// already holds changes nothing in any order and is not counted as a write (in shared memory,
// only a value the block wrote counts: it starts undefined on the GPU).
//
// How it is checked: a shadow cell per byte of the block's shared memory (and, for global memory,
// per byte the block touches, in a hash map) remembers the last write and up to two reads by
// different warps, each with its warp, lane, instruction and *epoch*. The epoch counts barrier
// completions in the block, so an access from an earlier epoch is ordered by a barrier and cannot
// race. Every ld/st/atom/red is checked before it runs, lane by lane; a hazard names both sides.
// Epochs only grow (across blocks too), so cells need no clearing between blocks.
// Simplified: any barrier completion orders every warp of the block (named barriers with a
// thread count order only their participants on the GPU); accesses of one warp are ordered (the
// simulator runs a warp's lanes in lockstep; independent thread scheduling is not modelled), so
// intra-warp races other than same-instruction writes are not reported; atomics never race with
// atomics; memory fences and flags (spin-waits) are not understood as synchronisation; global
// memory is not checked between blocks. Off (LaunchConfig::racecheck false): no cost but one
// branch per warp instruction.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/func/hazard.h"

namespace warplab::func {

class CtaImpl;
struct DInst;
struct Warp;

class RaceChecker {
 public:
  // Sizes the shared-memory shadow (one cell per byte).
  void bind(uint64_t shared_bytes);
  // A fresh block: a new epoch; the global-memory shadow is emptied.
  void new_block();
  // A barrier of the block completed: accesses before it are ordered before those after.
  void barrier() { ++epoch_; }
  // Checks the accesses warp `w` is about to make with instruction `d` at `pc` (lanes `exec`),
  // before it runs; hazards go to c.race_hazard.
  void check(CtaImpl& c, const Warp& w, const DInst& d, int32_t pc, uint32_t exec);

  // One access as remembered by a cell.
  struct Side {
    uint64_t epoch = 0;  // 0: none
    int32_t pc = -1;
    uint16_t warp = 0;
    uint8_t lane = 0;
    uint8_t atomic = 0;
  };
  struct Cell {
    Side write, read0, read1;  // the last write; the first reads of two different warps
  };

 private:
  // Checks and records one lane's access of `bytes` bytes; true when a hazard was reported.
  bool touch(CtaImpl& c, Cell* cells, uint64_t addr, uint32_t bytes, bool write, const Side& me,
             ptx::Space space);
  std::vector<Cell> shared_;
  std::unordered_map<uint64_t, Cell> global_;
  std::vector<Cell*> scratch_;
  uint64_t epoch_ = 1;
  uint64_t block_epoch_ = 1;  // the current block's first epoch
};

}  // namespace warplab::func
