// Every space's bounds check holds for every 64-bit address: an address just below 0 (the student's
// s[threadIdx.x - 1]) or just below 2^64 is a clean out-of-bounds fault, never an access outside
// the simulator's own arrays (it was a heap-buffer-overflow in the shared-store fast path).
#include <string>

#include "21x_sim.h"

using namespace warplab;
using func::LaunchFault;

namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry shared_below(.param .u64 delta)
{
  .shared .align 4 .b8 s[128];
  .reg .u64 %rd<4>;
  .reg .u32 %r<2>;
  ld.param.u64 %rd1, [delta];
  mov.u64 %rd2, s;
  add.u64 %rd3, %rd2, %rd1;
  mov.u32 %r1, 3;
  st.shared.u32 [%rd3], %r1;
  ret;
}

.visible .entry shared_below_load(.param .u64 delta, .param .u64 out)
{
  .shared .align 4 .b8 s[128];
  .reg .u64 %rd<5>;
  .reg .u32 %r<2>;
  ld.param.u64 %rd1, [delta];
  ld.param.u64 %rd4, [out];
  mov.u64 %rd2, s;
  add.u64 %rd3, %rd2, %rd1;
  ld.shared.u32 %r1, [%rd3];
  st.global.u32 [%rd4], %r1;
  ret;
}

.visible .entry global_below(.param .u64 p, .param .u64 delta)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<2>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [delta];
  add.u64 %rd3, %rd1, %rd2;
  mov.u32 %r1, 3;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

std::optional<LaunchFault> run(test::Sim& s, const std::string& k, const std::vector<uint64_t>& a) {
  func::LaunchConfig lc{k, {1, 1, 1}, {1, 1, 1}, 0, s.params(k, a)};
  auto r = func::run_functional(*s.program, s.mem, lc);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  return r->fault;
}

}  // namespace

TEST_CASE("226 addresses just below 0 or 2^64 fault cleanly in shared and global memory") {
  test::Sim s(kPtx, "wrap.ptx");
  const uint64_t out = s.zeros<int>("out", 4);
  for (uint64_t delta : {uint64_t(0) - 4, uint64_t(0) - 8, uint64_t(0) - 128, uint64_t(0) - 132,
                         uint64_t(1) << 63, uint64_t(128), uint64_t(125)}) {
    INFO("delta " << delta);
    auto f = run(s, "shared_below", {delta});
    REQUIRE(f.has_value());
    CHECK((f->kind == LaunchFault::Kind::OutOfBounds || f->kind == LaunchFault::Kind::Misaligned));
    CHECK(f->is_write);
    auto g = run(s, "shared_below_load", {delta, out});
    REQUIRE(g.has_value());
    CHECK((g->kind == LaunchFault::Kind::OutOfBounds || g->kind == LaunchFault::Kind::Misaligned));
  }
  // The last word of the array is in bounds.
  CHECK_FALSE(run(s, "shared_below", {124}).has_value());
  for (uint64_t delta : {uint64_t(0) - 4, uint64_t(0) - 16, uint64_t(16)}) {
    INFO("global delta " << delta);
    auto f = run(s, "global_below", {out, delta});
    REQUIRE(f.has_value());
    CHECK(f->kind == LaunchFault::Kind::OutOfBounds);
  }
  CHECK_FALSE(run(s, "global_below", {out, 12}).has_value());
}

TEST_CASE("226 a shift amount in a 64-bit register shifts by its low 32 bits, never more") {
  // Fuzzing (UBSan) found shl.b32 shifting by the whole 64-bit register value when its low 32 bits
  // passed the < 32 check. Each shift here uses 2^32 + 4 (low 32 bits: 4) and 2^32 + 40 (40: every
  // bit out of 32): expected 7 << 4, 0; 0x70 >> 4, 0; on 64 bits 7 << 4 and 7 << 40.
  test::Sim s(R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry shifts(.param .u64 out)
{
  .reg .u64 %rd<8>;
  .reg .b32 %r<8>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, 4294967300;
  mov.u64 %rd3, 4294967336;
  mov.b32 %r1, 7;
  mov.b32 %r2, 112;
  shl.b32 %r3, %r1, %rd2;
  shl.b32 %r4, %r1, %rd3;
  shr.u32 %r5, %r2, %rd2;
  shr.u32 %r6, %r2, %rd3;
  st.global.u32 [%rd1], %r3;
  st.global.u32 [%rd1+4], %r4;
  st.global.u32 [%rd1+8], %r5;
  st.global.u32 [%rd1+12], %r6;
  mov.u64 %rd4, 7;
  shl.b64 %rd5, %rd4, %rd2;
  shl.b64 %rd6, %rd4, %rd3;
  st.global.u64 [%rd1+16], %rd5;
  st.global.u64 [%rd1+24], %rd6;
  ret;
}
)",
              "shifts.ptx");
  const uint64_t out = s.zeros<uint32_t>("out", 8);
  func::LaunchConfig lc{"shifts", {1, 1, 1}, {1, 1, 1}, 0, s.params("shifts", {out})};
  auto r = func::run_functional(*s.program, s.mem, lc);
  if (!r) {
    // A loader that refuses a 64-bit register as a 32-bit shift amount is also right; it must say
    // so as an error, not shift.
    CHECK_FALSE(r.error().message.empty());
    return;
  }
  REQUIRE_FALSE(r->fault.has_value());
  const auto v = s.read<uint32_t>(out, 8);
  CHECK(v[0] == 7u << 4);
  CHECK(v[1] == 0);
  CHECK(v[2] == 0x70u >> 4);
  CHECK(v[3] == 0);
  CHECK((uint64_t{v[5]} << 32 | v[4]) == 7u << 4);
  CHECK((uint64_t{v[7]} << 32 | v[6]) == uint64_t{7} << 40);
}
