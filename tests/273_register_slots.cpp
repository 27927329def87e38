// Registers that share a slot (sim/func/reg_share.h): a kernel whose registers live one after
// the other uses fewer slots than it declares, and computes the same values as its plain C++
// form, through divergent paths, a loop, guarded writes and a register read before written.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "21x_sim.h"
#include "sim/func/decoded.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

// out[gid] from gid through 27 short-lived registers: two divergent paths that each keep their
// own temporaries and join in %r19, a loop carrying %r20 and %r21, a write under a guard (%r25
// keeps its earlier value in the lanes where the guard is false), and %r30, read before any
// write (0: reg_init.h), whose slot is its own.
constexpr const char* kChain = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry chain(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  add.s32 %r5, %r4, 1;
  mul.lo.s32 %r6, %r5, 3;
  add.s32 %r7, %r6, 7;
  xor.b32 %r8, %r7, %r5;
  shl.b32 %r9, %r8, 2;
  sub.s32 %r10, %r9, %r5;
  and.b32 %r11, %r4, 1;
  setp.eq.u32 %p1, %r11, 0;
  @%p1 bra $EVEN;
  mul.lo.s32 %r12, %r10, 5;
  add.s32 %r13, %r12, %r4;
  xor.b32 %r19, %r13, 255;
  bra.uni $JOIN;
$EVEN:
  add.s32 %r15, %r10, 11;
  mul.lo.s32 %r16, %r15, %r15;
  sub.s32 %r19, %r16, %r4;
$JOIN:
  mov.u32 %r20, 0;
  mov.u32 %r21, %r19;
$LOOP:
  mul.lo.s32 %r22, %r21, 3;
  add.s32 %r23, %r22, %r20;
  shr.u32 %r24, %r23, 3;
  xor.b32 %r21, %r23, %r24;
  add.s32 %r20, %r20, 1;
  setp.lt.u32 %p2, %r20, 8;
  @%p2 bra $LOOP;
  mov.u32 %r25, %r21;
  rem.u32 %r26, %r4, 3;
  setp.eq.u32 %p1, %r26, 0;
  @%p1 add.s32 %r25, %r21, 1000;
  add.s32 %r27, %r25, %r5;
  add.s32 %r28, %r27, %r30;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r28;
  ret;
}
)";

uint32_t chain(uint32_t gid) {
  const uint32_t x = gid + 1;
  const uint32_t r10 = (((x * 3u + 7u) ^ x) << 2) - x;
  uint32_t r19;
  if (gid % 2 != 0) {
    r19 = (r10 * 5u + gid) ^ 255u;
  } else {
    const uint32_t t = r10 + 11u;
    r19 = t * t - gid;
  }
  uint32_t acc = r19;
  for (uint32_t i = 0; i < 8; ++i) {
    const uint32_t t = acc * 3u + i;
    acc = t ^ (t >> 3);
  }
  const uint32_t r25 = gid % 3 == 0 ? acc + 1000u : acc;
  return r25 + x;  // + %r30, never written: 0
}

}  // namespace

TEST_CASE("273 registers that never live at once share slots, with the plain C++ results") {
  Sim sim(kChain);
  const func::DecodedKernel* k = sim.program->decoded().find("chain");
  REQUIRE(k);
  // 45 data registers declared (40 b32, 5 b64), 31 named: a handful are live at any point.
  CHECK(k->funcs[0].reg_count == 45);
  CHECK(k->shared_slots > 0);
  CHECK(k->shared_slots <= 8);
  MESSAGE("chain: " << k->shared_slots << " slots for " << k->funcs[0].reg_count << " registers");
  // %r30 (read before written) keeps a slot of its own: the first of the range, the only one.
  REQUIRE(k->zero_slots.has_value());
  REQUIRE(k->zero_slots->size() == 1);
  CHECK(k->zero_slots->front() == k->funcs[0].reg_base);
  const auto& regs = sim.program->module().functions[k->module_index].regs;
  REQUIRE(k->slot_reg[k->zero_slots->front()] >= 0);
  CHECK(regs[k->slot_reg[k->zero_slots->front()]].name == "%r30");

  const uint32_t blocks = 40, threads = 96, n = blocks * threads;  // 3 warps, a partial one each
  const uint64_t out = sim.zeros<uint32_t>("out", n);
  sim.run("chain", {blocks, 1, 1}, {threads, 1, 1}, {out});
  const std::vector<uint32_t> got = sim.read<uint32_t>(out, n);
  for (uint32_t g = 0; g < n; ++g) REQUIRE(got[g] == chain(g));

  // A warp shuffle reads other lanes' registers: the kernel keeps a slot per register.
  std::string shfl = kChain;
  shfl.replace(shfl.find("  add.s32 %r28"), 0, "  shfl.sync.idx.b32 %r29, %r27, 0, 31, -1;\n");
  Sim other(shfl);
  const func::DecodedKernel* s = other.program->decoded().find("chain");
  REQUIRE(s);
  CHECK(s->shared_slots == 0);
}

TEST_CASE("273 the bench kernels' registers in shared slots") {
  for (const auto& [file, kernel, declared] :
       {std::tuple<const char*, const char*, int>{"bench/matmul_tiled.ptx", "matmul_tiled", 105},
        {"bench/vec_add.ptx", "vec_add", 21}}) {
    auto m = ptx::parse_file(file);
    REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
    auto program = func::Program::load(std::move(*m));
    REQUIRE_MESSAGE(program, (program ? "" : program.error().to_string()));
    const func::DecodedKernel* k = program->decoded().find(kernel);
    REQUIRE(k);
    CHECK(k->funcs[0].reg_count == declared);
    CHECK(k->shared_slots > 0);
    CHECK(k->shared_slots < declared);
    MESSAGE(std::string(kernel) << ": " << k->shared_slots << " slots for " << declared
                                << " registers");
  }
}
