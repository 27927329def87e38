// The Cta step API the timing model drives: status, StepInfo contents, barriers, completion.
#include "21x_sim.h"

using namespace warplab;
using warplab::test::Sim;

namespace {
const char* kK = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 sm[256];
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sm;
  add.s32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 40;
  @%p1 bra DONE;
  ld.shared.u32 %r5, [%r4+-160];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
DONE:
  ret;
}
)";
}  // namespace

TEST_CASE("Cta::step: per-warp issue, StepInfo, barrier wait and release, done") {
  Sim s(kK, "cta.ptx");
  const uint64_t O = s.buffer("out", std::vector<uint32_t>(64, 0xDEAD));
  func::LaunchConfig lc{"k", {1, 1, 1}, {64, 1, 1}, 0, s.params("k", {O})};
  auto cta = func::Cta::create(*s.program, s.mem, lc, {0, 0, 0}, 3);
  REQUIRE(cta);
  REQUIRE(cta->warp_count() == 2);
  func::LaunchStats stats;
  func::StepInfo info;
  // Warp 0 runs up to the barrier and waits there.
  int steps = 0;
  while (cta->status(0) == func::WarpStatus::Ready) {
    REQUIRE(cta->step(0, info, stats, 100 + steps));
    ++steps;
    if (info.inst->op == ptx::Opcode::St) {
      CHECK(info.is_memory);
      CHECK(info.is_store);
      CHECK(info.space == ptx::Space::Shared);
      CHECK(info.access_bytes == 4);
      CHECK(info.addr[5] == 20);
      CHECK(info.exec_mask == 0xFFFFFFFFu);
      CHECK(info.src_count >= 2);
    }
  }
  CHECK(steps == 8);
  CHECK(info.is_barrier);
  CHECK(cta->status(0) == func::WarpStatus::AtBarrier);
  // Warp 1 arrives: both are released.
  do {
    REQUIRE(cta->step(1, info, stats, 0));
  } while (!info.is_barrier);
  CHECK(cta->status(0) == func::WarpStatus::Ready);
  CHECK(cta->status(1) == func::WarpStatus::Ready);
  // Warp 1 diverges at the branch: lanes 32..39 jump, 40..63 load and store.
  bool saw_divergence = false;
  while (cta->status(1) == func::WarpStatus::Ready) {
    REQUIRE(cta->step(1, info, stats, 0));
    if (info.inst->op == ptx::Opcode::Bra) {
      CHECK(info.diverged);
      CHECK(info.exec_mask == 0xFFu);
      saw_divergence = true;
    }
    if (info.inst->op == ptx::Opcode::St) {
      CHECK(info.space == ptx::Space::Global);
      CHECK(info.active_mask == 0xFFFFFF00u);
      CHECK(info.addr[8] == O + 40 * 4);
    }
  }
  CHECK(saw_divergence);
  CHECK(cta->status(1) == func::WarpStatus::Exited);
  CHECK(!cta->done());
  while (cta->status(0) == func::WarpStatus::Ready) REQUIRE(cta->step(0, info, stats, 0));
  CHECK(cta->done());
  CHECK(stats.blocks == 1);
  CHECK(stats.warps == 2);
  auto out = s.read<uint32_t>(O, 64);
  for (uint32_t t = 0; t < 64; ++t) CHECK(out[t] == (t < 40 ? 0xDEADu : t - 40));
  // Same counts as run_functional.
  auto r = s.run("k", {1, 1, 1}, {64, 1, 1}, {O});
  CHECK(r.stats.warp_instructions == stats.warp_instructions);
  CHECK(r.stats.thread_instructions == stats.thread_instructions);
}

TEST_CASE("Cta::step: a prefetch records each lane's address (the timing model charges it)") {
  const char* kPrefetch = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry pf(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 128;
  add.s64 %rd4, %rd2, %rd3;
  prefetch.global.L2 [%rd4+64];
  ret;
}
)";
  Sim s(kPrefetch, "pf.ptx");
  const uint64_t X = s.buffer("x", std::vector<uint32_t>(32 * 32, 0));
  func::LaunchConfig lc{"pf", {1, 1, 1}, {32, 1, 1}, 0, s.params("pf", {X})};
  auto cta = func::Cta::create(*s.program, s.mem, lc, {0, 0, 0}, 0);
  REQUIRE(cta);
  func::LaunchStats stats;
  func::StepInfo info;
  bool seen = false;
  while (cta->status(0) == func::WarpStatus::Ready) {
    info.addr.fill(0);
    REQUIRE(cta->step(0, info, stats, 0));
    if (info.inst->op == ptx::Opcode::Prefetch) {
      seen = true;
      CHECK(info.is_memory);
      CHECK(info.space == ptx::Space::Global);
      for (int l = 0; l < 32; ++l) CHECK(info.addr[l] == X + 128u * l + 64);
    }
  }
  CHECK(seen);
}

TEST_CASE("Cta::relaunch: the next block in the same object starts as fresh as create's") {
  // Each thread reads its shared word and a register that nothing has written (both 0 in a fresh
  // block), then leaves both dirty for a block that would reuse them without clearing.
  const char* kBlocks = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry blk(.param .u64 p)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<5>;
  .shared .align 4 .b8 sm[256];
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, sm;
  add.s32 %r4, %r4, %r3;
  ld.shared.u32 %r5, [%r4];
  add.s32 %r6, %r5, %r7;
  mad.lo.s32 %r6, %r2, 1000, %r6;
  add.s32 %r6, %r6, %r1;
  st.shared.u32 [%r4], %r6;
  mov.u32 %r7, 5;
  mad.lo.s32 %r8, %r2, 64, %r1;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}
)";
  Sim s(kBlocks, "blk.ptx");
  const uint64_t O = s.buffer("out", std::vector<uint32_t>(128, 0));
  func::LaunchConfig lc{"blk", {2, 1, 1}, {64, 1, 1}, 0, s.params("blk", {O})};
  auto cta = func::Cta::create(*s.program, s.mem, lc, {0, 0, 0}, 0);
  REQUIRE(cta);
  func::LaunchStats stats;
  func::StepInfo info;
  auto run_block = [&] {
    for (int w = 0; w < cta->warp_count(); ++w)
      while (cta->status(w) == func::WarpStatus::Ready) REQUIRE(cta->step(w, info, stats, 0));
    CHECK(cta->done());
  };
  run_block();
  REQUIRE(cta->relaunch({1, 0, 0}));
  CHECK(!cta->done());
  run_block();
  auto out = s.read<uint32_t>(O, 128);
  for (uint32_t i = 0; i < 128; ++i) CHECK(out[i] == (i / 64) * 1000 + i % 64);
  CHECK(stats.blocks == 2);
  // A block outside the grid is refused, as create refuses it.
  auto bad = cta->relaunch({2, 0, 0});
  REQUIRE(!bad);
  CHECK(bad.error().message.find("outside the grid") != std::string::npos);
}
