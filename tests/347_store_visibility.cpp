// Strong stores becoming visible to other blocks (issue 25, sim/func/pending_stores.h): with
// l1.store_visible_latency = D, a strong load of another block that runs before D cycles after a
// strong store reads the older bytes; the writer's own block, weak loads and D = 0 see the store
// at once. The H100's figures: lessons/calibration/visibility.cu
// (scripts/microbench/h100-visibility-2026-11-27.md).
#include <doctest/doctest.h>

#include <cstring>

#include "31x_timing.h"
#include "sim/func/executor.h"
#include "sim/func/pending_stores.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

// Block 1 stores 7 into the flag (line 16) and ends; block 0 polls it with ld.volatile (line
// 19) until it reads 7, then writes how many polls it took to out (line 25).
constexpr const char* kFlag = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry flag(.param .u64 f, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [f];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r4, 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra POLL;
  mov.u32 %r2, 7;
  st.volatile.global.u32 [%rd2], %r2;
  ret;
POLL:
  ld.volatile.global.u32 %r3, [%rd2];
  add.s32 %r4, %r4, 1;
  setp.ne.u32 %p2, %r3, 7;
  @%p2 bra POLL;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

Expected<TimingResult> run_flag(const func::Program& p, func::DeviceMemory& mem, const GpuConfig& cfg,
                                uint64_t f, uint64_t out) {
  func::LaunchConfig launch{"flag", {2, 1, 1}, {1, 1, 1}, 0, {}};
  launch.params.resize(16);
  std::memcpy(launch.params.data(), &f, 8);
  std::memcpy(launch.params.data() + 8, &out, 8);
  TimingOptions o;
  o.trace.enabled = true;
  o.trace.sms = {0, 1};
  return run_timing(p, mem, launch, cfg, o);
}

}  // namespace

TEST_CASE("347 pending strong stores: older bytes for other readers until visible") {
  func::PendingStores ps;
  int a = 0, b = 0;  // two writers' identities
  const uint8_t old4[4] = {1, 2, 3, 4};
  ps.note_store(0x1000, 4, old4, &a, 100);  // delay 0: nothing is kept
  CHECK(ps.empty());
  ps.set_delay(50);
  ps.note_store(0x1004, 4, old4, &a, 100);  // bytes 4..7 of the word at 0x1000
  uint8_t data[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  ps.patch_load(0x1000, 8, data, &b, 149);  // another reader before 150: the old bytes
  CHECK(std::memcmp(data, (const uint8_t[]){9, 9, 9, 9, 1, 2, 3, 4}, 8) == 0);
  uint8_t own[4] = {9, 9, 9, 9};
  ps.patch_load(0x1004, 4, own, &a, 149);  // the writer itself: the new bytes
  CHECK(std::memcmp(own, (const uint8_t[]){9, 9, 9, 9}, 4) == 0);
  // A second store of byte 5 at 120: byte 5's oldest value stays, the word waits until 170.
  const uint8_t old1[1] = {42};
  ps.note_store(0x1005, 1, old1, &a, 120);
  uint8_t two[2] = {9, 9};
  ps.patch_load(0x1004, 2, two, &b, 160);
  CHECK(two[0] == 1);
  CHECK(two[1] == 2);
  uint8_t later[2] = {9, 9};
  ps.patch_load(0x1004, 2, later, &b, 170);  // visible from 170 on
  CHECK(later[0] == 9);
  CHECK(later[1] == 9);
  CHECK(ps.empty());
  ps.note_store(0x2000, 4, old4, &a, 200);
  ps.set_delay(0);  // off: forgets what is pending
  CHECK(ps.empty());
}

TEST_CASE("347 another block's polling load sees a strong store D cycles after it runs") {
  auto prog = load(kFlag);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  GpuConfig cfg;
  func::DeviceMemory mem;
  const uint64_t f = mem.allocate("f", 64), out = mem.allocate("out", 64);
  auto polls = [&](int64_t d, uint64_t& store, std::vector<IssueRecord>& loads) {
    cfg.l1.store_visible_latency = d;
    const uint32_t zero[2] = {0, 0};
    REQUIRE(mem.write(f, zero, 8));
    auto r = run_flag(*prog, mem, cfg, f, out);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    const auto st = issues_of(*r, 16);
    REQUIRE(st.size() == 1);
    store = st[0].cycle;
    loads = issues_of(*r, 19);
    uint32_t n = 0;
    REQUIRE(mem.read(out, &n, 4));
    CHECK(n == loads.size());
    return n;
  };
  uint64_t s0 = 0, s1 = 0;
  std::vector<IssueRecord> l0, l1;
  const uint32_t n0 = polls(0, s0, l0);
  const uint32_t n1 = polls(2000, s1, l1);
  // Without the delay the first poll issued after the store sees it; with it, the first issued
  // 2000 or more cycles after the store (a DRAM miss, then L2 hits: 7 polls), and the one before
  // it did not.
  REQUIRE(n0 >= 1);
  CHECK(l0.back().cycle >= s0);
  if (n0 >= 2) CHECK(l0[n0 - 2].cycle < s0);
  REQUIRE(n1 >= 2);
  CHECK(l1.back().cycle >= s1 + 2000);
  CHECK(l1[n1 - 2].cycle < s1 + 2000);
  CHECK(n1 > n0 + 2);
  CHECK(s1 == s0);  // the writer's timing is unchanged
}
