// lab/ptx_mix.h: opcode families and the written/executed instruction mix that `warplab compare`
// shows. The expected counts are read off the PTX text below by hand (and the executed ones from
// per-line counts given here, not from a run).
#include <doctest/doctest.h>

#include "lab/ptx_mix.h"
#include "sim/ptx/parser.h"

namespace {

using warplab::lab::instruction_mix;
using warplab::lab::opcode_family;

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.lt.s32 %p1, %r2, %r1;
  @%p1 ld.global.v4.b32 {%r3, %r4, %r5, %r6}, [%rd1];
  fma.rn.f32 %r7, %r3, %r4, %r5;
  shfl.sync.bfly.b32 %r7, %r7, 16, 31, -1;
  @!%p1 bra DONE;
  st.global.f32 [%rd1], %r7;
DONE:
  ret;
}
)";

}  // namespace

TEST_CASE("ptx_mix: opcode families keep the space, vector width and float type") {
  CHECK(opcode_family("ld.global.v4.b32") == "ld.global.v4");
  CHECK(opcode_family("ld.global.nc.b32") == "ld.global");
  CHECK(opcode_family("st.shared.v2.f32") == "st.shared.v2");
  CHECK(opcode_family("cp.async.cg.shared.global") == "cp.async.shared");
  CHECK(opcode_family("fma.rn.f32") == "fma.f32");
  CHECK(opcode_family("fma.rn.f16x2") == "fma.f16x2");
  CHECK(opcode_family("add.s32") == "add");
  CHECK(opcode_family("setp.lt.s32") == "setp");
  CHECK(opcode_family("setp.lt.f32") == "setp.f32");
  CHECK(opcode_family("shfl.sync.bfly.b32") == "shfl.sync");
  CHECK(opcode_family("bar.sync") == "bar.sync");
  CHECK(opcode_family("ret") == "ret");
}

TEST_CASE("ptx_mix: written counts from the text, executed counts from the per-line counts") {
  auto m = warplab::ptx::parse_module(kPtx, "mix.ptx");
  REQUIRE(m);
  warplab::func::LaunchStats stats;
  // Line numbers of kPtx (1-based): ld.param 9 and 10, mov 11, setp 12, ld.global 13, fma 14,
  // shfl 15, bra 16, st 17, ret 19. Four warps ran; the store was skipped by two of them.
  for (int line : {9, 10, 11, 12, 13, 14, 15, 16, 19}) stats.by_ptx_line[line].warp_instructions = 4;
  stats.by_ptx_line[17].warp_instructions = 2;
  const auto mix = instruction_mix(*m, "k", &stats);
  REQUIRE(mix.size() == 9);
  CHECK(mix.at("ld.param").written == 2);
  CHECK(mix.at("ld.param").executed == 8);
  CHECK(mix.at("ld.global.v4").written == 1);
  CHECK(mix.at("ld.global.v4").executed == 4);
  CHECK(mix.at("fma.f32").executed == 4);
  CHECK(mix.at("shfl.sync").written == 1);
  CHECK(mix.at("st.global").executed == 2);
  CHECK(mix.at("bra").written == 1);
  CHECK(mix.at("ret").executed == 4);
  CHECK(mix.at("setp").written == 1);
  CHECK(mix.at("mov").written == 1);
  // Without a run: written counts only; an unknown kernel: nothing.
  CHECK(instruction_mix(*m, "k", nullptr).at("fma.f32").executed == 0);
  CHECK(instruction_mix(*m, "nope", &stats).empty());
}
