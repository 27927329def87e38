// Coalescer: warp accesses -> lines and 32-byte sectors (sim/timing/coalescer.h).
#include <doctest/doctest.h>

#include "sim/timing/coalescer.h"

using namespace warplab::timing;

namespace {
std::array<uint64_t, 32> strided(uint64_t base, uint64_t stride_bytes) {
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = base + l * stride_bytes;
  return a;
}
}  // namespace

TEST_CASE("401 a fully coalesced f32 warp load is 1 line and 4 sectors") {
  CoalescedAccess c;
  coalesce(strided(0x7f0000000000ull, 4), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.line_count == 1);
  CHECK(c.sectors == 4);
  CHECK(c.lines[0].sector_mask == 0xfu);
  CHECK(c.lines[0].lane_mask == 0xffffffffu);
}

TEST_CASE("401 a stride-32 f32 warp load is 32 lines and 32 sectors") {
  CoalescedAccess c;
  coalesce(strided(0x7f0000000000ull, 128), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.line_count == 32);
  CHECK(c.sectors == 32);
}

TEST_CASE("401 strides 2, 4 and 8 floats touch 8, 16 and 32 sectors") {
  CoalescedAccess c;
  coalesce(strided(0x1000, 8), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 8);
  coalesce(strided(0x1000, 16), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 16);
  coalesce(strided(0x1000, 32), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 32);
  CHECK(c.line_count == 8);
}

TEST_CASE("401 ld.v4.f32 by a warp: 4 lines, 16 sectors; inactive lanes cost nothing") {
  CoalescedAccess c;
  coalesce(strided(0x2000, 16), 0xffffffffu, 16, 128, 32, c);
  CHECK(c.line_count == 4);
  CHECK(c.sectors == 16);
  coalesce(strided(0x2000, 4), 0x1u, 4, 128, 32, c);
  CHECK(c.sectors == 1);
  coalesce(strided(0x2000, 4), 0u, 4, 128, 32, c);
  CHECK(c.sectors == 0);
  CHECK(c.line_count == 0);
}

TEST_CASE("401 a misaligned 8-byte access straddling a line touches two lines") {
  std::array<uint64_t, 32> a{};
  a[0] = 124;
  CoalescedAccess c;
  coalesce(a, 1u, 8, 128, 32, c);
  CHECK(c.line_count == 2);
  CHECK(c.lines[0].sector_mask == 0x8u);
  CHECK(c.lines[1].sector_mask == 0x1u);
}

TEST_CASE("401 all lanes on one address: one sector (broadcast)") {
  std::array<uint64_t, 32> a{};
  a.fill(0x4000);
  CoalescedAccess c;
  coalesce(a, 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 1);
}
