// Occupancy against the CUDA occupancy calculator's rules for sm_90 (sim/timing/occupancy.h).
//
// Expected values computed by hand from the documented rules (cuda_occupancy.h):
//   warps/block W = ceil(threads/32); warp limit = floor(64/W); block limit = 32;
//   registers/warp = ceil(regs*32, 256); warps by registers = floor(16384/that) * 4 sub-partitions;
//   register limit = floor(that/W); shared/block = ceil(smem + 1024, 128);
//   shared limit = floor(233472 / shared/block); blocks = min of the four.
#include <doctest/doctest.h>

#include "sim/timing/gpu_model.h"
#include "sim/timing/occupancy.h"

using namespace warplab::timing;

TEST_CASE("302 occupancy matches the CUDA occupancy calculator (sm_90)") {
  struct Case {
    int threads, regs, smem, blocks;
    double occ;
    const char* limiter;
  };
  const Case cases[] = {
      {256, 32, 0, 8, 1.0, "warps"},       // 8 warps/block; regs 1024/warp -> 64 warps
      {128, 64, 0, 8, 0.5, "registers"},   // 2048/warp -> 8 per SMSP -> 32 warps / 4
      {32, 16, 0, 32, 0.5, "blocks"},      // 32 blocks of 1 warp
      {256, 40, 0, 6, 0.75, "registers"},  // 1280/warp -> 12 per SMSP -> 48 warps / 8
      {1024, 32, 0, 2, 1.0, "warps"},
      {256, 32, 49152, 4, 0.5, "shared memory"},  // 50176 B/block -> floor(233472/50176) = 4
      {128, 255, 0, 2, 0.125, "registers"},       // 8160 -> 8192/warp -> 2 per SMSP -> 8 warps
      {96, 33, 100, 16, 0.75, "registers"},       // 1056 -> 1280 -> 48 warps / 3; smem 1152 B
      {512, 64, 0, 2, 0.5, "registers"},
      {64, 32, 232448, 1, 2.0 / 64, "shared memory"},  // 227 KiB + 1 KiB = all 228 KiB
      {192, 24, 16384, 10, 60.0 / 64, "warps"},  // 6 warps -> floor(64/6) = 10; smem 17408 -> 13
  };
  GpuConfig cfg;  // H100 SXM = sm_90
  for (const auto& c : cases) {
    CAPTURE(c.threads);
    CAPTURE(c.regs);
    CAPTURE(c.smem);
    auto o = compute_occupancy(cfg.core, c.threads, c.regs, c.smem);
    REQUIRE(o);
    CHECK(o->blocks_per_sm == c.blocks);
    CHECK(o->theoretical == doctest::Approx(c.occ));
    CHECK(o->limiter == c.limiter);
  }
}

TEST_CASE("302 blocks that can never fit are errors") {
  GpuConfig cfg;
  CHECK_FALSE(compute_occupancy(cfg.core, 2048, 32, 0));
  CHECK_FALSE(compute_occupancy(cfg.core, 256, 300, 0));
  CHECK_FALSE(compute_occupancy(cfg.core, 256, 32, 240000));
}

TEST_CASE("302 the shared-memory carve-out leaves the L1 the rest of the unified array") {
  GpuConfig cfg;  // h100-sxm's figures: 256 KiB unified, 208 KiB L1 by default, 228 KiB shared
  cfg.l1.unified_bytes = 262144;
  auto occ = [&](int threads, int shared) {
    auto o = compute_occupancy(cfg.core, threads, 32, shared);
    REQUIRE(o.has_value());
    return *o;
  };
  // No shared memory: 8 blocks x 1 KiB reserved fit the default 48 KiB; the L1 stays 208 KiB.
  CHECK(l1_bytes_for_launch(cfg, occ(256, 0)) == 212992);
  // Two blocks of 1024 threads and 48 KiB (+1 KiB each): 98 KiB -> the 100 KiB carve-out, 156 KiB
  // of L1. Four of 256 threads: 196 KiB -> 196, 60 KiB of L1.
  CHECK(occ(1024, 48 * 1024).blocks_per_sm == 2);
  CHECK(l1_bytes_for_launch(cfg, occ(1024, 48 * 1024)) == 156 * 1024);
  CHECK(occ(256, 48 * 1024).blocks_per_sm == 4);
  CHECK(l1_bytes_for_launch(cfg, occ(256, 48 * 1024)) == 60 * 1024);
  // One block of 227 KiB (+1 KiB): the 228 KiB carve-out, 28 KiB of L1 (lesson 13).
  CHECK(occ(256, 227 * 1024).blocks_per_sm == 1);
  CHECK(l1_bytes_for_launch(cfg, occ(256, 227 * 1024)) == 28 * 1024);
  // Without unified_bytes the L1 is fixed.
  cfg.l1.unified_bytes = 0;
  CHECK(l1_bytes_for_launch(cfg, occ(256, 227 * 1024)) == 212992);
}
