// SM sampling: a long launch of many waves timed on a subset of the SMs (opt-in with the rest of
// sampling.h: `--sampled`; run_timing uses it where within-wave rates find long blocks in a grid
// of at least the wave sampler's waves, 8 by default).
//
// Why: the rate of such a launch is not its first wave's. The first wave's blocks start together
// and stay in step; as blocks end and others take their place, the blocks of an SM settle, over
// several waves, into phases that overlap one block's global loads with another's shared-memory
// work, and the SM's rate climbs with them (lesson 5's tiled matmul at 2048x2048x512: 285 warp
// instructions a cycle in the first wave, 333 by the ninth: scripts/microbench/lesson5-rate-ramp-
// 2026-11-28-stop45.md). Only the detailed dynamics make that arrangement: carrying the blocks
// functionally across gaps between detailed windows resets it (scripts/microbench/carried-gaps-
// 2026-11-29-stop46.md). So every wave must run in detail, but not on every SM.
//
// What the hardware does: the SMs run alike blocks side by side and meet only at the L2, the
// DRAM and the block distributor. Each SM's share of the launch is its blocks, and each SM's
// share of the DRAM is its bandwidth over the SMs.
// The method: a GPU of `subset_sms` SMs (subset_config: the DRAM's channels and bus cut to the
// subset's share, each channel as wide as the GPU's, so a transfer takes the GPU's time; the
// block distributor's rate per SM kept; the L2 whole, and every latency as it is) runs the
// launch's first n blocks, n = blocks x subset_sms / sm_count (subset_blocks), in detail, every
// wave of them, on a copy of the starting memory. The launch's time is the subset's cycles times
// (the launch's functional work / the subset's blocks' work) times subset_sms / sm_count: the
// subset ran its share of the work on its share of the GPU. Every other counter is the subset's
// times the work ratio (scale_subset). Instruction counts and stores are exact: the whole launch
// runs functionally (fast_forward.h: run_blocks).
// Applies only where each block's work is its own (block_work_exact: no atomics or flags that
// hand work from block to block, which a subset of the blocks would share otherwise), and where
// the first wave's steady windows (rate_sampler.h, stage A) loaded the L2 lightly
// (SamplingOptions::subset_l2_load): the subset keeps the whole L2, whose slices its few SMs load
// far less than the GPU's do. In a grid of fewer waves, the within-wave rates' drain times the
// last wave (rate_sampler.h) and does better: lesson 12's matmul at 1024^3 (1.9 waves of one
// block an SM) came out +5.4% SM-sampled against +0.7% with the drain; and where the scheduler's
// favour decides when an SM's few blocks end, the slowest of a few SMs is a noisy stand-in for
// the slowest of all (an experiment in the record: tests/358's fold without its barrier, 3.5
// waves on 64 SMs: -2.1%, +8.1%, -0.1% and -1.6% on 8, 16, 32 and 48 SMs). Over many waves an
// SM's time is the sum of many blocks' and that averages out (lesson 5's naive matmul, warp
// spread 171%, 16 waves: -1.4% at 2048x2048x512).
// Measured at full size (2026-11-29, device host, 16 threads): lesson 5 at 2048^3, naive -2.3%
// and tiled +2.0% against the full model (the first wave's rates: -4.0% and +9.4%) in 158 s
// (full: 517 s; first wave's rates: 42 s). Cutting the L2 too was measured worse (lesson 5's
// tiled matmul at 2048x2048x512 on 16 of 132 SMs: -0.05% with the L2 whole, +2.1% with 12
// slices, +3.3% with 96 slices each at 16/132 of the rate: a request's service time 8x; the
// first's cause not isolated). Record: scripts/microbench/sm-subset-2026-11-29-stop46.md.
// Simplified: the subset's blocks are the grid's first ones (a grid whose blocks differ in work
// is timed by the work ratio, but the first blocks' data, in the L2 and DRAM rows, stand for all
// of it); the L2's capacity is shared by fewer blocks at a time (right for data every block
// reads, like a matmul's B; a kernel whose blocks each stream their own data through the L2 sees
// a smaller working set); the DRAM keeps its banks per channel.
#pragma once

#include <cstdint>

#include "sim/func/executor.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"

namespace warplab::timing {

// The GPU the subset runs on: `config` with `sms` SMs and its shared units' bandwidth cut to
// sms / config.core.sm_count of the whole.
GpuConfig subset_config(const GpuConfig& config, int sms);

// The blocks the subset runs: the grid's first `total` x sms / sm_count (rounded, at least 1).
uint64_t subset_blocks(uint64_t total, int sms, int64_t sm_count);

// Puts the launch's result together from the subset's run `r` (it becomes the launch's):
// `work_ratio` is the launch's functional warp instructions over the subset's blocks'; `stats`
// the launch's exact counts; `config` the whole GPU's.
void scale_subset(TimingResult& r, double work_ratio, int sms, uint64_t subset_blocks,
                  const func::LaunchStats& stats, const GpuConfig& config);

}  // namespace warplab::timing
