// The whole-GPU view (ui/app/model/gpu_waves.h) on hand-built block records: block slots, waves,
// resident warps and the idle share of the tail, exactly.
#include <doctest/doctest.h>

#include "ui/app/model/gpu_waves.h"

using namespace warplab;

TEST_CASE("714 gpu waves: slots, waves, resident warps, the tail") {
  timing::Trace t;
  t.sm_count = 2;
  // (sm, warps, block, begin, end), in retirement order as the simulator appends them.
  t.blocks = {{0, 4, 0, 0, 100}, {1, 4, 1, 1, 100},   {1, 4, 3, 3, 120},
              {0, 4, 2, 2, 150}, {1, 4, 5, 100, 160}, {0, 4, 4, 100, 200}};
  // 2 blocks of 4 warps fit an SM of 8 warp slots: 4 blocks a wave.
  const app::GpuWaves g = app::build_gpu_waves(t, 2, 4, 8);
  CHECK(g.blocks == 6);
  CHECK(g.first_cycle == 0);
  CHECK(g.last_cycle == 200);
  CHECK(g.last_dispatch == 100);
  REQUIRE(g.sms.size() == 2);
  REQUIRE(g.sms[0].size() == 3);
  CHECK(g.sms[0][0].block == 0);
  CHECK(g.sms[0][0].slot == 0);
  CHECK(g.sms[0][1].block == 2);
  CHECK(g.sms[0][1].slot == 1);
  CHECK(g.sms[0][2].block == 4);
  CHECK(g.sms[0][2].slot == 0);  // block 0 left at 100, when block 4 arrived
  CHECK(g.sms[0][2].wave == 1);
  CHECK(g.sms[1][1].wave == 0);  // block 3
  CHECK(g.sms[1][2].slot == 0);
  CHECK(g.resident_warps(0, 50) == 8);
  CHECK(g.resident_warps(0, 120) == 8);
  CHECK(g.resident_warps(0, 160) == 4);
  CHECK(g.resident_warps(1, 99.5) == 8);
  CHECK(g.resident_warps(1, 130) == 4);
  CHECK(g.resident_warps(1, 170) == 0);
  CHECK(g.resident_warps(2, 10) == 0);
  // Whole GPU: 4 warps at 0, 8 at 1, 12 at 2, 16 at 3 (the limit: 2 SMs x 2 blocks x 4 warps),
  // then 16 again at 100 (two leave, two arrive), 12 at 120, 8 at 150, 4 at 160, 0 at 200.
  CHECK(g.step_cycle == std::vector<uint64_t>{0, 1, 2, 3, 100, 120, 150, 160, 200});
  CHECK(g.step_warps == std::vector<int>{4, 8, 12, 16, 16, 12, 8, 4, 0});
  CHECK(g.total_resident_warps(-1) == 0);
  CHECK(g.total_resident_warps(2.5) == 12);
  CHECK(g.total_resident_warps(100) == 16);
  CHECK(g.total_resident_warps(155) == 8);
  CHECK(g.total_resident_warps(500) == 0);
  // From the last dispatch on, SM 1 is busy 60 of 100 cycles and SM 0 all 100: 20% idle.
  CHECK(g.idle_fraction(100, 200) == doctest::Approx(0.2));
  CHECK(g.idle_fraction(0, 100) == doctest::Approx(0.005));  // SM 1 idle in [0, 1)
  CHECK(g.idle_fraction(5, 5) == 0);
}
