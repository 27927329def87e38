// Timing of warpgroup MMA: the SM's wgmma unit (wgmma_pipe.h) at its exact cycles, then whole
// kernels on the h100-sxm preset against the H100 (scripts/microbench/h100-wgmma-2026-11-26.tsv,
// measured with wgmma_timing.cu: fence, CHAIN wgmmas, commit, wait 0 in a loop, timed by clock64).
// The unit tests set their parameters here, so their cycles follow from the rules, not from a
// preset's values.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/wgmma_pipe.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

TensorConfig params() {
  TensorConfig t;
  t.wgmma_columns_per_cycle = 2;
  t.wgmma_issue_base = 16;
  t.wgmma_issue_columns_per_cycle = 4;
  t.wgmma_latency_base = 60;
  t.wgmma_latency_columns_per_cycle = 2;
  t.wgmma_chain_gap = 8;
  return t;
}
ptx::Instruction inst(ptx::Opcode op, int n = 64, int64_t wait = -1) {
  ptx::Instruction i;
  i.op = op;
  i.mod.tensor.n = static_cast<uint16_t>(n);
  if (wait >= 0) {
    ptx::Operand o;
    o.kind = ptx::Operand::Kind::Imm;
    o.bits = static_cast<uint64_t>(wait);
    i.ops.push_back(o);
  }
  return i;
}
// Warps first..first+3 (one warpgroup) of block 0 issue `in`, at cycles t, t+1, t+2, t+3.
void all_four(WgmmaPipe& u, int first, const ptx::Instruction& in, uint64_t t) {
  for (int w = 0; w < 4; ++w) CHECK(u.issue(0, first + w, in, t + w) == 0);
}

}  // namespace

TEST_CASE("342 wgmma unit: interval max(N/2, 16 + N/4), latency base + N/2") {
  const TensorConfig t = params();
  WgmmaPipe u(t);
  CHECK(u.interval(8) == 18);
  CHECK(u.interval(16) == 20);
  CHECK(u.interval(32) == 24);
  CHECK(u.interval(64) == 32);
  CHECK(u.interval(128) == 64);
  CHECK(u.interval(256) == 128);
  CHECK(u.latency(8) == 64);
  CHECK(u.latency(256) == 188);
}

TEST_CASE("342 wgmma unit: starts when the fourth warp issues; wait_group holds until ready") {
  const TensorConfig t = params();
  WgmmaPipe u(t);
  const auto mma = inst(ptx::Opcode::Wgmma, 64), commit = inst(ptx::Opcode::WgmmaCommit),
             wait0 = inst(ptx::Opcode::WgmmaWait, 64, 0);
  all_four(u, 0, mma, 10);  // the last warp issues at 13: start 13, ready 13 + 60 + 32 = 105
  CHECK(u.free_at() == 13 + 32);
  all_four(u, 0, commit, 14);
  CHECK(u.issue(0, 0, wait0, 20) == 105);
  CHECK(u.issue(0, 3, wait0, 200) == 0);  // ready long ago: no hold
  SUBCASE("the same warpgroup again: its chain gap") {
    all_four(u, 0, mma, 30);  // free at 45, chain at 45 + 8 = 53: start 53, ready 145
    all_four(u, 0, commit, 34);
    CHECK(u.issue(0, 1, wait0, 40) == 53 + 92);
    CHECK(u.free_at() == 53 + 32);
  }
  SUBCASE("another warpgroup: only the unit's interval") {
    all_four(u, 4, mma, 30);  // free at 45: start 45, ready 137
    all_four(u, 4, commit, 34);
    CHECK(u.issue(0, 5, wait0, 40) == 45 + 92);
  }
}

TEST_CASE("342 wgmma unit: wait_group N leaves the newest N groups pending") {
  const TensorConfig t = params();
  WgmmaPipe u(t);
  const auto mma8 = inst(ptx::Opcode::Wgmma, 8), commit = inst(ptx::Opcode::WgmmaCommit);
  // Group 1: two wgmma n8 (start 3 and 3 + 18 + 8 = 29); group 2: one (start 29 + 26 = 55).
  all_four(u, 0, mma8, 0);
  all_four(u, 0, mma8, 0);
  all_four(u, 0, commit, 0);
  all_four(u, 0, mma8, 0);
  all_four(u, 0, commit, 0);
  CHECK(u.issue(0, 0, inst(ptx::Opcode::WgmmaWait, 8, 1), 10) == 29 + 64);
  CHECK(u.issue(0, 0, inst(ptx::Opcode::WgmmaWait, 8, 0), 10) == 55 + 64);
  CHECK(u.issue(0, 1, inst(ptx::Opcode::WgmmaWait, 8, 0), 10) == 55 + 64);
}

TEST_CASE("342 wgmma unit: a wait before the other warps issued times them as issuing now") {
  const TensorConfig t = params();
  WgmmaPipe u(t);
  const auto mma = inst(ptx::Opcode::Wgmma, 64), commit = inst(ptx::Opcode::WgmmaCommit);
  CHECK(u.issue(0, 0, mma, 10) == 0);
  CHECK(u.issue(0, 0, commit, 11) == 0);
  CHECK(u.issue(0, 0, inst(ptx::Opcode::WgmmaWait, 64, 0), 50) == 50 + 92);
  CHECK(u.free_at() == 0);  // not started: the unit is not taken
  for (int w = 1; w < 4; ++w) CHECK(u.issue(0, w, mma, 60) == 0);
  CHECK(u.free_at() == 60 + 32);
  u.block_done(0);
  CHECK(u.issue(0, 0, inst(ptx::Opcode::WgmmaWait, 64, 0), 70) == 0);  // forgotten
}

namespace {

// One block of `groups` warpgroups: each runs `iters` times fence, `chain` wgmma m64nNk16 bf16
// from shared memory (no swizzle), commit, wait 0; thread 0 writes the cycles (clock64) of the
// loop after a first iteration. The shape of wgmma_timing.cu's kernels.
std::string bench_ptx(int n, int chain) {
  std::ostringstream p;
  p << ".version 8.0\n.target sm_90a\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pcyc, .param .u32 iters)\n{\n"
    << "\t.reg .b32 %r<16>;\n\t.reg .f32 %f<130>;\n\t.reg .b64 %rd<10>;\n\t.reg .pred %p<4>;\n"
    << "\t.shared .align 1024 .b8 smem[32768];\n"
    << "\tld.param.u64 %rd1, [pcyc];\n\tld.param.u32 %r1, [iters];\n"
    << "\tmov.u32 %r2, smem;\n\tshr.u32 %r3, %r2, 4;\n\tcvt.u64.u32 %rd2, %r3;\n"
    << "\tor.b64 %rd3, %rd2, " << ((8ull << 16) | (16ull << 32)) << ";\n"
    << "\tadd.s64 %rd4, %rd3, 1024;\n\tmov.pred %p1, -1;\n";
  for (int i = 0; i < n / 2; ++i) p << "\tmov.f32 %f" << i << ", 0f00000000;\n";
  p << "\tmov.u32 %r4, 0;\n\tbar.sync 0;\nLOOP:\n"
    << "\tsetp.eq.u32 %p3, %r4, 1;\n\t@%p3 mov.u64 %rd5, %clock64;\n"
    << "\twgmma.fence.sync.aligned;\n";
  for (int c = 0; c < chain; ++c) {
    p << "\twgmma.mma_async.sync.aligned.m64n" << n << "k16.f32.bf16.bf16 {";
    for (int i = 0; i < n / 2; ++i) p << (i ? ", %f" : "%f") << i;
    p << "}, %rd3, %rd4, %p1, 1, 1, 0, 0;\n";
  }
  p << "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n"
    << "\tadd.u32 %r4, %r4, 1;\n\tsetp.le.u32 %p2, %r4, %r1;\n\t@%p2 bra LOOP;\n"
    << "\tmov.u64 %rd6, %clock64;\n\tsub.s64 %rd7, %rd6, %rd5;\n"
    << "\tmov.u32 %r5, %tid.x;\n\tsetp.ne.u32 %p2, %r5, 0;\n\t@%p2 bra END;\n"
    << "\tst.global.u64 [%rd1], %rd7;\nEND:\n\tret;\n}\n";
  return p.str();
}

// Cycles per loop iteration of the kernel above on the h100-sxm preset.
double bench(int n, int chain, int groups, int iters = 16) {
  auto m = ptx::parse_module(bench_ptx(n, chain), "wgmma_bench.ptx");
  REQUIRE_MESSAGE(m, (m ? std::string() : m.error().to_string()));
  auto prog = func::Program::load(std::move(*m));
  REQUIRE_MESSAGE(prog, (prog ? std::string() : prog.error().to_string()));
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  const uint64_t C = mem.allocate("cycles", 8);
  func::LaunchConfig launch{
      "k", {1, 1, 1}, {static_cast<uint32_t>(128 * groups), 1, 1}, 0, std::vector<uint8_t>(12)};
  std::memcpy(launch.params.data(), &C, 8);
  const auto it = static_cast<uint32_t>(iters);
  std::memcpy(launch.params.data() + 8, &it, 4);
  TimingOptions o;
  o.registers_per_thread = 168;
  auto r = run_timing(*prog, mem, launch, *cfg, o);
  REQUIRE_MESSAGE(r, (r ? std::string() : r.error().to_string()));
  REQUIRE_MESSAGE(!r->fault, (r->fault ? r->fault->message : ""));
  int64_t c = 0;
  REQUIRE(mem.read(C, &c, 8));
  return static_cast<double>(c) / iters;
}

void near(double model, double h100, double tolerance = 0.10) {
  CAPTURE(model);
  CAPTURE(h100);
  CHECK(model > h100 * (1 - tolerance));
  CHECK(model < h100 * (1 + tolerance));
}

}  // namespace

TEST_CASE("342 wgmma calibration: latency and rate by N against the H100") {
  // H100 (h100-wgmma-2026-11-26.tsv): latency = one wgmma per iteration, one warpgroup;
  // chained = 8 wgmmas per iteration, one warpgroup, per wgmma; per SM = two warpgroups.
  struct Row {
    int n;
    double latency, chained, per_sm;
  };
  const Row rows[] = {{8, 72.62, 25.09, 18.05},    {16, 76.62, 27.34, 20.09},
                      {32, 84.77, 31.84, 24.07},   {64, 100.75, 40.81, 32.04},
                      {128, 132.74, 72.83, 64.04}, {256, 206.99, 138.09, 128.04}};
  for (const Row& r : rows) {
    INFO("N = " << r.n);
    const double latency = bench(r.n, 1, 1), chained = bench(r.n, 8, 1) / 8,
                 per_sm = bench(r.n, 8, 2) / 16;
    MESSAGE("N = " << r.n << ": latency loop " << latency << " (H100 " << r.latency << "), chained "
                   << chained << " (" << r.chained << "), two warpgroups " << per_sm << " ("
                   << r.per_sm << ")");
    near(latency, r.latency);
    near(chained, r.chained);
    near(per_sm, r.per_sm);
  }
}
