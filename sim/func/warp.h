// One warp's architectural state: 32 lanes of registers, predicates, and its SIMT stack.
//
// On the GPU a warp's registers live in the SM's register file, banked so that one instruction
// reads an operand for all 32 lanes at once. WarpLab stores them the same way round, structure of
// arrays: regs[slot * 32 + lane], so a handler's lane loop walks contiguous memory. Predicates are
// one 32-bit lane mask each, which makes guard evaluation a single AND.
// Modelled: per-lane registers and predicates, exited lanes, barrier waits. Simplified: no
// register banks or operand collectors (that is the timing model's concern).
#pragma once

#include <cstdint>

#include "sim/func/call_frames.h"
#include "sim/func/cta.h"
#include "sim/func/simt_stack.h"

namespace warplab::func {

struct Warp {
  int32_t index = 0;               // warp index within the block (%warpid)
  uint64_t* R = nullptr;           // data registers, R[slot * 32 + lane]
  uint32_t* P = nullptr;           // predicates, one lane mask each
  uint8_t* lane_params = nullptr;  // per-lane .param area of device-function calls
  SimtStack stack;
  CallFrames frames;    // saved frames of the recursive calls in flight (call_frames.h)
  uint32_t valid = 0;   // lanes that exist (a partial last warp has fewer than 32)
  uint32_t exited = 0;  // lanes that executed exit (or returned from the kernel)
  WarpStatus status = WarpStatus::Ready;
  int32_t bar_id = -1;     // barrier being waited on
  int32_t bar_pc = -1;     // pc of the bar instruction being waited on (bar.red result)
  uint32_t bar_lanes = 0;  // lanes that executed it
  uint64_t issued = 0;     // warp instructions issued (functional-mode %clock)
  // Its last instruction was an mbarrier test_wait/try_wait whose phase had not completed for
  // some lane: functional mode ends the warp's turn there (executor.cpp: run_block).
  bool mbarrier_wait = false;
  int32_t mbarrier_pc = -1;  // ... and that instruction's pc
};

}  // namespace warplab::func
