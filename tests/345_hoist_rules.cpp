// What ptxas's schedule lets a load move above (sim/timing/sm_compiler.cpp), each to the cycle on
// a one-warp kernel:
//  - a conditional branch that stays in the SASS stops loads: ptxas does not speculate a load
//    above `@P BRA` (lesson 17's peeled copy loop, scripts/microbench/h100-l17-mma-2026-11-27.sass);
//    a short one (compiler.predicate_max_instructions) is predicated, no branch; nor does
//    `bra.uni` stop them;
//  - an ldmatrix whose address comes from an earlier ldmatrix's result (t.ldmatrix's four address
//    chains) moves above the instruction the warp waits at once that data is back and through
//    the address arithmetic, as the scoreboard lets the SASS's next LDSM issue.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/schedule.h"
#include "31x_timing.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

// Line 12: a global load A; 13: the add that waits for it; 14: a compare on the thread index
// (false for every lane); 15: the branch (BRANCH: guarded over 3 instructions to $L_near, guarded
// over 11 to $L_far, or bra.uni to the next); 17: a global load B whose address comes from the
// parameter alone; 18: its use; 19: out[0] = A + 1 + B.
std::string branch_kernel(const char* branch) {
  return std::string(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  ld.global.u32 %r2, [%rd2+128];
  add.s32 %r3, %r2, 1;
  setp.gt.u32 %p1, %r1, 1000;
  )") + branch + R"(;
$L_next:
  ld.global.u32 %r4, [%rd2+256];
  add.s32 %r5, %r3, %r4;
  st.global.u32 [%rd2], %r5;
$L_near:
  add.s32 %r6, %r1, 1;
  add.s32 %r7, %r6, 1;
  add.s32 %r8, %r7, 1;
  add.s32 %r9, %r8, 1;
  add.s32 %r10, %r9, 1;
  add.s32 %r11, %r10, 1;
  add.s32 %r12, %r11, 1;
  add.s32 %r13, %r12, 1;
$L_far:
  ret;
}
)";
}

// Lines 14 and 18: ldmatrix x1 S1, then S2 whose address is S1's result & 0 plus the tile's
// address (lines 16-17; every lane reads row 0); 19: their sum, after line 15's add waits for
// the global load on line 12.
constexpr const char* kChain = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  ld.global.u32 %r2, [%rd2+128];
  mov.u32 %r9, tile;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r3}, [%r9];
  add.s32 %r4, %r2, 1;
  and.b32 %r5, %r3, 0;
  add.s32 %r6, %r5, %r9;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r7}, [%r6];
  add.s32 %r8, %r7, %r4;
  st.global.u32 [%rd2], %r8;
  ret;
}
)";

// An ldmatrix's round trip: line 16's add waits for line 15's ldmatrix alone.
constexpr const char* kRoundTrip = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r9, %r1, 4;
  mov.u32 %r10, tile;
  add.s32 %r10, %r10, %r9;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r11}, [%r10];
  add.s32 %r12, %r11, 1;
  st.global.u32 [%rd2+4], %r12;
  ret;
}
)";

Expected<TimingResult> run_one(const func::Program& p, func::DeviceMemory& mem, uint64_t out) {
  func::LaunchConfig launch{"k", {1, 1, 1}, {32, 1, 1}, 0, {}};
  launch.params.resize(8);
  std::memcpy(launch.params.data(), &out, 8);
  GpuConfig cfg;  // the H100 defaults
  cfg.pipes.predicate_branch_latency = 0;
  TimingOptions o;
  o.trace.enabled = true;
  return run_timing(p, mem, launch, cfg, o);
}

}  // namespace

TEST_CASE("345 a load does not move above a conditional branch ptxas keeps") {
  const GpuConfig cfg;
  REQUIRE(cfg.compiler.predicate_max_instructions == 7);
  for (const char* branch : {"@%p1 bra $L_far", "@%p1 bra $L_near", "bra.uni $L_next"}) {
    CAPTURE(branch);
    auto prog = load(branch_kernel(branch));
    REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 512);
    const uint32_t a = 41, b = 1000;
    REQUIRE(mem.write(out + 128, &a, 4));
    REQUIRE(mem.write(out + 256, &b, 4));
    auto r = run_one(*prog, mem, out);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    const auto load_a = issues_of(*r, 12), wait = issues_of(*r, 13), bra = issues_of(*r, 15);
    const auto load_b = issues_of(*r, 17);
    REQUIRE((load_a.size() == 1 && wait.size() == 1 && bra.size() == 1 && load_b.size() == 1));
    if (std::string(branch).find("far") != std::string::npos) {
      // A branch over 11 instructions stays: B leaves only when the warp has passed it, fetched
      // branch.latency after it.
      CHECK(load_b[0].cycle == bra[0].cycle + static_cast<uint64_t>(cfg.pipes.branch.latency));
      CHECK(load_b[0].cycle > wait[0].cycle);
    } else {
      // Over 3 instructions ptxas predicates them (no branch); bra.uni does not stop loads: B
      // leaves while the add waits for A, right behind A, one load/store interval later.
      CHECK(load_b[0].cycle == load_a[0].cycle + static_cast<uint64_t>(cfg.pipes.ldst.interval));
      CHECK(load_b[0].cycle < wait[0].cycle);
    }
    uint32_t v = 0;
    REQUIRE(mem.read(out, &v, 4));
    CHECK(v == a + 1 + b);
  }
}

TEST_CASE("345 an ldmatrix whose address comes from an ldmatrix moves once that value is back") {
  auto prog = load(kChain);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  auto trip = load(kRoundTrip);
  REQUIRE_MESSAGE(trip, (trip ? "" : trip.error().to_string()));
  uint64_t round_trip = 0;  // issue to a use that waits for nothing else
  {
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 512);
    auto r = run_one(*trip, mem, out);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_MESSAGE(!r->fault, (r->fault ? r->fault->message : ""));
    const auto ldm = issues_of(*r, 15), use = issues_of(*r, 16);
    REQUIRE((ldm.size() == 1 && use.size() == 1));
    round_trip = use[0].cycle - ldm[0].cycle;
    CHECK(round_trip >= static_cast<uint64_t>(GpuConfig{}.shared.latency));
    CHECK(round_trip < 100);
    uint32_t w = 0;
    REQUIRE(mem.read(out + 4, &w, 4));
    CHECK(w == 1);  // shared memory starts zeroed: the ldmatrix reads 0
  }
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 512);
  const uint32_t a = 41;
  REQUIRE(mem.write(out + 128, &a, 4));
  auto r = run_one(*prog, mem, out);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  const auto global = issues_of(*r, 12), s1 = issues_of(*r, 14), wait = issues_of(*r, 15);
  const auto s2 = issues_of(*r, 18);
  REQUIRE((global.size() == 1 && s1.size() == 1 && wait.size() == 1 && s2.size() == 1));
  // S2 issues when S1's data is back and through the and + add of its address (two integer
  // latencies), while the add on line 15 still waits for the global load.
  const uint64_t arithmetic = 2 * static_cast<uint64_t>(GpuConfig{}.pipes.integer.latency);
  CHECK(s2[0].cycle == s1[0].cycle + round_trip + arithmetic);
  CHECK(s2[0].cycle < wait[0].cycle);
  uint32_t v = 0;
  REQUIRE(mem.read(out, &v, 4));
  CHECK(v == a + 1);  // each ldmatrix reads 0
}

namespace {

// An outer loop (one trip) around NVVM's peeled copies of a copy loop: `@%p2 bra $L_main` skips
// them all (not taken), copy 1 loads A and B (WIDTH bytes a thread) into shared memory, `@%p3 bra
// $L_main` ends the chain after it (taken: every lane), copy 2 the same again.
std::string peeled_kernel(bool wide, bool outer) {
  const std::string ty = wide ? "ld.global.v4.u32 {%r10, %r11, %r12, %r13}" : "ld.global.u32 %r10";
  const std::string st =
      wide ? "st.shared.v4.u32 [%r30], {%r10, %r11, %r12, %r13}" : "st.shared.u32 [%r30], %r10";
  auto use = [](std::string s, const char* a, const char* b) {
    for (size_t at; (at = s.find(a)) != std::string::npos;) s.replace(at, std::strlen(a), b);
    return s;
  };
  const std::string ld_b = use(use(ty, "%r10", "%r14"), "%r11, %r12, %r13", "%r15, %r16, %r17");
  const std::string st_b = use(use(use(st, "%r10", "%r14"), "%r11, %r12, %r13", "%r15, %r16, %r17"),
                               "[%r30]", "[%r30+256]");
  return std::string(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r30, tile;
  mov.u32 %r20, 0;
$L_top:
  setp.gt.u32 %p2, %r1, 1000;
  @%p2 bra $L_main;
  )") + ty + R"(, [%rd2+512];
  )" + st + R"(;
  )" + ld_b + R"(, [%rd2+1024];
  )" + st_b + R"(;
  setp.lt.u32 %p3, %r1, 1000;
  @%p3 bra $L_main;
  )" + ty + R"(, [%rd2+512];
  )" + st + R"(;
$L_main:
  add.s32 %r20, %r20, 1;
  setp.lt.s32 %p1, %r20, 1;
  )" + (outer ? "@%p1 bra $L_top;" : "add.s32 %r21, %r20, 0;") + R"(
  bar.sync 0;
  ret;
}
)";
}

}  // namespace

TEST_CASE("345 ptxas loads a loop's first peeled copy of LDG.128s through one register set") {
  REQUIRE(GpuConfig{}.compiler.peeled_copy_serial_bytes == 0);  // off unless a preset sets it
  auto preset = load_config("h100-sxm");
  REQUIRE_MESSAGE(preset, (preset ? "" : preset.error().to_string()));
  const GpuConfig h100 = *preset;
  REQUIRE(h100.compiler.peeled_copy_serial_bytes == 16);
  auto h200 = load_config("h200");
  REQUIRE(h200);
  CHECK(h200->compiler.peeled_copy_serial_bytes == 16);
  // Static rule (schedule.h: serial_copy_stores): the two stores of copy 1 (lines 19, 21), only
  // with 16-byte loads, only inside an outer loop, only with the rule on.
  for (const bool wide : {true, false})
    for (const bool outer : {true, false}) {
      CAPTURE(wide);
      CAPTURE(outer);
      auto prog = load(peeled_kernel(wide, outer));
      REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
      const ptx::Function& f = prog->module().functions[0];
      std::vector<int32_t> lines;
      for (const CompilerConfig& cc : {h100.compiler, CompilerConfig{}}) {
        const auto serial = serial_copy_stores(f, cc);
        for (size_t k = 0; k < serial.size(); ++k)
          if (serial[k]) lines.push_back(f.instructions[k].ptx_line);
      }
      CHECK(lines == (wide && outer ? std::vector<int32_t>{19, 21} : std::vector<int32_t>{}));
    }
  // Timing: load B (line 20) leaves right behind load A (line 18), one load/store interval later,
  // when ptxas's registers allow it; with one register set, one interval after the store of A
  // (line 19), which waited for A's data: a second global round trip.
  auto prog = load(peeled_kernel(true, true));
  REQUIRE(prog);
  uint64_t b_after_a[2] = {0, 0};
  for (const int64_t bytes : {int64_t{0}, int64_t{16}}) {
    CAPTURE(bytes);
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 2048);
    func::LaunchConfig launch{"k", {1, 1, 1}, {32, 1, 1}, 0, {}};
    launch.params.resize(8);
    std::memcpy(launch.params.data(), &out, 8);
    GpuConfig cfg = h100;
    cfg.compiler.peeled_copy_serial_bytes = bytes;
    TimingOptions o;
    o.trace.enabled = true;
    auto r = run_timing(*prog, mem, launch, cfg, o);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    const uint64_t ld_a = issue_cycle(*r, 18), st_a = issue_cycle(*r, 19);
    const uint64_t ld_b = issue_cycle(*r, 20);
    const uint64_t interval = static_cast<uint64_t>(cfg.pipes.ldst.interval);
    if (bytes == 0) {
      CHECK(ld_b == ld_a + interval);
      CHECK(st_a > ld_b);
    } else {
      CHECK(ld_b == st_a + interval);
      CHECK(st_a > ld_a + 200);  // the store waited for A's data from DRAM
    }
    b_after_a[bytes ? 1 : 0] = ld_b - ld_a;
  }
  CHECK(b_after_a[1] > b_after_a[0] + 200);
}
