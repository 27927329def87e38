// The compiler's schedule, statically (sim/timing/schedule.h): which loops ptxas unrolls, which
// loads may move, and how many loads one warp issues back to back.
#include <doctest/doctest.h>

#include "sim/ptx/parser.h"
#include "sim/timing/schedule.h"

using namespace warplab;
using namespace warplab::timing;

namespace {
// Three loops: a counter stepping by a constant (ptxas unrolls it), one stepping by a register
// (blockDim.x: left alone), and one marked nounroll. The second loop also has a load whose
// address comes from a load (an index array), and the third a store.
constexpr const char* kLoops = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry loops(.param .u64 x, .param .u64 idx, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .f32 %f<8>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [idx];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.f32 %f1, 0f00000000;
  mov.u64 %rd3, %rd1;
$L_a:
  ld.global.f32 %f2, [%rd3];
  ld.global.f32 %f3, [%rd3+4];
  add.f32 %f1, %f1, %f2;
  add.f32 %f1, %f1, %f3;
  add.s64 %rd3, %rd3, 8;
  add.s32 %r2, %r2, 2;
  setp.lt.s32 %p1, %r2, %r1;
  @%p1 bra $L_a;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ntid.x;
$L_b:
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r5, [%rd5];
  mul.wide.u32 %rd6, %r5, 4;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.f32 %f4, [%rd7];
  add.f32 %f1, %f1, %f4;
  add.s32 %r3, %r3, %r4;
  setp.lt.s32 %p2, %r3, %r1;
  @%p2 bra $L_b;
  mov.u32 %r6, 0;
$L_c:
  .pragma "nounroll";
  ld.global.f32 %f5, [%rd1];
  st.global.f32 [%rd1+4], %f5;
  add.s32 %r6, %r6, 1;
  setp.lt.s32 %p3, %r6, %r1;
  @%p3 bra $L_c;
  ret;
}
)";
}  // namespace

TEST_CASE("311 loops: what ptxas unrolls, which loads move, how many leave back to back") {
  auto m = ptx::parse_module(kLoops, "loops.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  const ptx::Function& f = m->functions.at(0);
  CompilerConfig cc;  // unroll 4, up to 32 loads ahead
  auto loops = loop_schedules(f, cc);
  REQUIRE(loops.size() == 3);
  // Sorted innermost/last first: c, b, a.
  const LoopSchedule &c = loops[0], &b = loops[1], &a = loops[2];
  CHECK(a.unrolled);
  CHECK(a.loads == 2);
  CHECK(a.movable == 2);
  CHECK(a.stop_line == 0);
  CHECK(a.ahead == 8);  // 4 copies x 2 loads
  CHECK_FALSE(b.unrolled);
  CHECK(b.loads == 2);
  CHECK(b.movable == 1);  // x[idx[i]] waits for idx[i]
  CHECK(b.ahead == 1);
  CHECK_FALSE(c.unrolled);  // nounroll
  CHECK(c.stop_line > 0);
  CHECK(c.ahead == 1);
  cc.max_hoisted_loads = 3;
  CHECK(loop_schedules(f, cc)[2].ahead == 4);
  cc.hoist_loads = 0;
  CHECK(loop_schedules(f, cc)[2].ahead == 1);
}

TEST_CASE("311 loops: a store holds back only the loads of its own state space") {
  // matmul_tiled's shape: two global tile loads, each stored to shared memory, then a barrier.
  constexpr const char* kTile = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry tile(.param .u64 a, .param .u64 b, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 as[1024];
  .shared .align 4 .b8 bs[1024];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u32 %r1, [n];
  mov.u64 %rd3, as;
  mov.u64 %rd4, bs;
  mov.u32 %r2, 0;
$L_t:
  ld.global.f32 %f1, [%rd1];
  st.shared.f32 [%rd3], %f1;
  ld.global.f32 %f2, [%rd2];
  st.shared.f32 [%rd4], %f2;
  bar.sync 0;
  ld.shared.f32 %f3, [%rd3+4];
  st.global.f32 [%rd2], %f3;
  add.s64 %rd1, %rd1, 64;
  add.s64 %rd2, %rd2, 64;
  add.s32 %r2, %r2, 16;
  setp.lt.s32 %p1, %r2, %r1;
  @%p1 bra $L_t;
  ret;
}
)";
  auto m = ptx::parse_module(kTile, "tile.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  auto loops = loop_schedules(m->functions.at(0), CompilerConfig{});
  REQUIRE(loops.size() == 1);
  const LoopSchedule& l = loops[0];
  CHECK(l.loads == 3);
  CHECK(l.movable == 3);
  CHECK(l.stop_line == 20);  // st.shared [%rd3] holds back the shared load after it
  CHECK(l.ahead == 2);       // both global loads: the shared store between them does not count
}

TEST_CASE("311 expansion_of: the PTX instructions ptxas expands into sequences, and no others") {
  constexpr const char* kOps = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry ops()
{
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  .reg .b32 %r<4>;
  div.rn.f32 %f1, %f2, %f3;
  div.approx.f32 %f1, %f2, %f3;
  div.full.f32 %f1, %f2, %f3;
  rcp.rn.f32 %f1, %f2;
  rcp.approx.f32 %f1, %f2;
  sqrt.rn.f32 %f1, %f2;
  sqrt.approx.f32 %f1, %f2;
  div.rn.f64 %fd1, %fd2, %fd3;
  rcp.rn.f64 %fd1, %fd2;
  sqrt.rn.f64 %fd1, %fd2;
  div.u32 %r1, %r2, %r3;
  rem.u32 %r1, %r2, %r3;
  div.s32 %r1, %r2, %r3;
  rem.s32 %r1, %r2, %r3;
  mul.lo.s32 %r1, %r2, %r3;
  add.f32 %f1, %f2, %f3;
  ret;
}
)";
  auto m = ptx::parse_module(kOps, "ops.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  const PipesConfig p;
  const auto& ins = m->functions.at(0).instructions;
  const std::vector<const PipeConfig*> want = {
      &p.div_f32, nullptr,     nullptr,   &p.rcp_f32, nullptr,   &p.sqrt_f32,
      nullptr,    &p.div_f64,  &p.div_f64, &p.sqrt_f64, &p.div_u32, &p.div_u32,
      &p.div_s32, &p.div_s32,  nullptr,   nullptr,    nullptr};
  REQUIRE(ins.size() == want.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    CAPTURE(ins[i].text);
    CHECK(expansion_of(p, ins[i]) == want[i]);
  }
}

TEST_CASE("311 branches: ptxas keeps a long forward branch (loads wait for it), predicates a short one") {
  // Lesson 17's copy loop as NVVM peels it: `@p bra` out over a whole iteration (kept: the loads
  // after it wait for it), and lesson 5's bounds check: `@p bra` over one load (predicated). A
  // loop of ldmatrix whose second address comes from the first one's result.
  constexpr const char* kBranches = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry br(.param .u64 a, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 s[4096];
  ld.param.u64 %rd1, [a];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, s;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_out;
  ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd1];
  st.shared.v4.u32 [%r2], {%r3, %r4, %r5, %r6};
  add.s64 %rd2, %rd1, 16;
  ld.global.v4.u32 {%r7, %r8, %r9, %r10}, [%rd2];
  st.shared.v4.u32 [%r2+16], {%r7, %r8, %r9, %r10};
  add.s32 %r11, %r1, 1;
  add.s32 %r11, %r11, 1;
  add.s32 %r11, %r11, 1;
  add.s32 %r11, %r11, 1;
$L_out:
  setp.lt.s32 %p2, %r1, 7;
  @%p2 bra $L_skip;
  ld.global.u32 %r12, [%rd1+64];
$L_skip:
  mov.u32 %r13, 0;
$L_loop:
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r14}, [%r2];
  and.b32 %r15, %r14, 4080;
  add.s32 %r16, %r2, %r15;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r17}, [%r16];
  add.s32 %r13, %r13, %r17;
  setp.lt.s32 %p3, %r13, %r1;
  @%p3 bra $L_loop;
  ret;
}
)";
  auto m = ptx::parse_module(kBranches, "branches.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  const ptx::Function& f = m->functions.at(0);
  CompilerConfig cc;
  REQUIRE(cc.predicate_max_instructions == 7);
  auto branches = branch_schedules(f, cc);
  REQUIRE(branches.size() == 2);  // the loop's backward branch is not listed
  const BranchSchedule &out = branches[0], &skip = branches[1];
  CHECK(out.line == 14);
  CHECK(out.skipped == 9);
  CHECK(out.kept);
  CHECK(out.loads_below == 2);  // both tile loads wait for it
  CHECK(kept_branch(f, out.pc, cc));
  CHECK(skip.line == 26);
  CHECK(skip.skipped == 1);
  CHECK_FALSE(skip.kept);
  CHECK(skip.loads_below == 1);
  // The threshold decides: at 9 instructions the long branch is predicated too, at 8 it is kept.
  cc.predicate_max_instructions = 9;
  CHECK_FALSE(kept_branch(f, out.pc, cc));
  cc.predicate_max_instructions = 8;
  CHECK(kept_branch(f, out.pc, cc));
  cc.predicate_max_instructions = 0;
  CHECK(kept_branch(f, skip.pc, cc));
  // An instruction that is no branch (the compare before it) is never a kept branch.
  CHECK_FALSE(kept_branch(f, out.pc - 1, CompilerConfig{}));
  // The loop: two ldmatrix are loads that move; the second's address comes from the first's data.
  auto loops = loop_schedules(f, CompilerConfig{});
  REQUIRE(loops.size() == 1);
  CHECK(loops[0].loads == 2);
  CHECK(loops[0].ldmatrix == 2);
  CHECK(loops[0].movable == 1);
  CHECK(loops[0].kept_branches == 0);
}
