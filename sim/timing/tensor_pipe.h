// The tensor pipe: the matrix unit of each SM sub-partition, as mma.sync sees it.
//
// What the hardware does: each of an SM's four sub-partitions has its own tensor core beside its
// FP32, INT and SFU pipes. A warp's `mma.sync` (HMMA/IMMA in SASS) is issued by the sub-partition's
// scheduler like any instruction, then occupies the tensor core for several cycles while it
// multiplies the warp's fragments: a second mma from any warp of the same sub-partition waits until
// the core can accept it (the *issue interval*), and an mma that reads the previous one's
// accumulator waits for its result (the *latency*). Both depend on the shape (m16n8k16 does twice
// the work of m16n8k8) and the input type (tf32 runs at half the f16 rate per FLOP, s8 and FP8 at
// up to twice). With enough independent mma in flight, one sub-partition finishes 2*M*N*K /
// interval FLOP per cycle; a chain of dependent mma finishes one per latency.
//
// Modelled: one tensor pipe per sub-partition (the scheduler's pipe_free_ slot for
// UnitClass::Tensor), each mma form with its own latency and issue interval from the preset's
// [tensor] section (TensorConfig in config.h). ldmatrix and stmatrix are shared-memory
// instructions (the LSU pipe) charged as bank passes, one per 8x8 matrix when its rows fall in
// different bank groups (shared_cost_of, matrix_access_cost in shared_banks.h); movmatrix is a
// warp-level shuffle (the warp pipe).
// Measured on the H100 (scripts/microbench/h100-mma-timing-2026-11-26.tsv): m16n8k16 f16/bf16
// (f32 or f16 accumulators), m16n8k8 tf32 and m16n8k32 s8 take 24 cycles from issue to result and
// accept one warp's mma every 6 cycles per sub-partition (2731 dense FLOP per cycle per SM for
// f16, about 2/3 of wgmma's 4096); m16n8k8 f16 takes 17 and 4.
// Simplified: FP8 mma.sync, which sm_90 lacks (ptxas emits two f16 HMMA and FADDs), is one
// instruction of 52 cycles issued every 12, inferred and not measured; no register-bank or
// operand-collector limits.
#pragma once

#include "sim/ptx/ir.h"
#include "sim/timing/config.h"
#include "sim/timing/shared_banks.h"

namespace warplab::timing {

// The latency and issue interval of an mma.sync instruction (its shape and input type).
const PipeConfig& tensor_pipe_of(const TensorConfig& t, const ptx::Instruction& mma);

// The bank passes of a warp's shared-memory access: ldmatrix/stmatrix move whole 8x8 matrices
// (matrix_access_cost), every other instruction is charged by shared_access_cost.
SharedAccessCost shared_cost_of(const ptx::Instruction& inst, const std::array<uint64_t, 32>& addr,
                                uint32_t exec_mask, uint32_t access_bytes,
                                const SharedConfig& shared, bool serialize);

}  // namespace warplab::timing
