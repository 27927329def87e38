// Timing of asynchronous copies: the TMA unit (tma.h) and the cp.async / bulk group and mbarrier
// holds (async_copy.h) at their exact cycles, then whole kernels in timing mode: results equal to
// functional mode, and the mbarrier waits visible as stall_mbarrier.
// The parameters are set here, so these cycles follow from the rules, not from a preset's values.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "24x_async_ptx.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/async_copy.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;

namespace {
AsyncConfig params() {
  AsyncConfig c;
  c.cp_async_fill = 8;
  c.tma_latency = 640;
  c.tma_bytes_per_cycle = 64;
  c.try_wait_latency = 31;
  c.try_wait_suspend = 64;
  return c;
}
ptx::Instruction inst(ptx::Opcode op, int64_t n = -1) {
  ptx::Instruction i;
  i.op = op;
  if (n >= 0) {
    ptx::Operand o;
    o.kind = ptx::Operand::Kind::Imm;
    o.bits = static_cast<uint64_t>(n);
    i.ops.push_back(o);
  }
  return i;
}
func::StepInfo step(const ptx::Instruction& i, uint64_t mbar = 0, uint32_t bulk = 0) {
  func::StepInfo s;
  s.inst = &i;
  s.exec_mask = 1;
  s.mbarrier = mbar;
  s.bulk_bytes = bulk;
  return s;
}
}  // namespace

TEST_CASE("340 tma: latency plus bytes over bandwidth; copies queue for the bandwidth") {
  const AsyncConfig c = params();
  Tma t(c);
  CHECK(t.copy(100, 1024) == 100 + 16 + 640);  // 1024 B at 64 B/cycle: 16 cycles
  CHECK(t.copy(100, 1024) == 116 + 16 + 640);  // behind the first
  CHECK(t.copy(1000, 100) == 1002 + 640);      // 1.5625 cycles, rounded up
}

TEST_CASE("340 cp.async groups: wait_group holds the warp until its older groups land") {
  const AsyncConfig c = params();
  AsyncCopyUnit u(c, 4);
  int block = 0;
  WarpState st = WarpState::Selected;
  const auto cp = inst(ptx::Opcode::CpAsync), commit = inst(ptx::Opcode::CpAsyncCommit);
  const auto wait1 = inst(ptx::Opcode::CpAsyncWait, 1), wait0 = inst(ptx::Opcode::CpAsyncWait, 0);
  CHECK(u.issue(2, &block, step(cp), 10, 500, st) == 0);  // lands at 500 + 8
  CHECK(u.issue(2, &block, step(cp), 11, 490, st) == 0);  // same group
  CHECK(u.issue(2, &block, step(commit), 12, 0, st) == 0);
  CHECK(u.issue(2, &block, step(cp), 13, 700, st) == 0);  // second group: 708
  CHECK(u.issue(2, &block, step(commit), 14, 0, st) == 0);
  CHECK(u.issue(2, &block, step(wait1), 20, 0, st) == 508);
  CHECK(st == WarpState::Mbarrier);
  CHECK(u.issue(2, &block, step(wait0), 520, 0, st) == 708);
  CHECK(u.issue(2, &block, step(wait0), 720, 0, st) == 0);  // nothing left to wait for
  // Another warp's groups are its own.
  CHECK(u.issue(3, &block, step(wait0), 30, 0, st) == 0);
}

TEST_CASE("340 mbarrier waits: held until the phase's bulk copies and cp.async arrivals land") {
  const AsyncConfig c = params();
  AsyncCopyUnit u(c, 4);
  int block = 0, other = 0;
  WarpState st = WarpState::Selected;
  auto bulk = inst(ptx::Opcode::CpAsyncBulk);
  bulk.space = ptx::Space::Shared;
  auto try_wait = inst(ptx::Opcode::Mbarrier);
  try_wait.mod.mbar = ptx::MbarOp::TryWait;
  CHECK(u.issue(0, &block, step(bulk, 16, 1024), 100, 0, st) == 0);  // lands at 756
  CHECK(u.issue(1, &block, step(try_wait, 16), 200, 0, st) == 756);
  CHECK(st == WarpState::Mbarrier);
  // Another block's mbarrier has nothing in flight: the SYNCS round trip alone.
  CHECK(u.issue(1, &other, step(try_wait, 16), 200, 0, st) == 200 + 31);
  auto failed = step(try_wait, 16);
  failed.wait_failed = true;
  CHECK(u.issue(1, &block, failed, 300, 0, st) == 300 + 64);  // suspended, then tries again
  // cp.async.mbarrier.arrive: the mbarrier waits for the warp's copies so far.
  const auto cp = inst(ptx::Opcode::CpAsync);
  const auto arrive = inst(ptx::Opcode::CpAsyncMbarrierArrive);
  CHECK(u.issue(2, &block, step(cp), 10, 900, st) == 0);
  CHECK(u.issue(2, &block, step(arrive, 32), 11, 0, st) == 0);
  CHECK(u.issue(3, &block, step(try_wait, 32), 50, 0, st) == 908);
  CHECK(u.issue(3, &block, step(try_wait, 32), 1000, 0, st) == 1031);  // landed long ago
}

TEST_CASE("340 timing mode: a TMA producer/consumer kernel waits in stall_mbarrier") {
  auto m = ptx::parse_module(test::kAsyncPtx, "async.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  std::vector<uint32_t> src(64);
  for (uint32_t i = 0; i < 64; ++i) src[i] = 7 * i + 1;
  const uint64_t S = mem.allocate("src", 256), O = mem.allocate("out", 256);
  REQUIRE(mem.write(S, src.data(), 256));
  func::LaunchConfig launch{"tma_1d", {1, 1, 1}, {64, 1, 1}, 0, std::vector<uint8_t>(16)};
  std::memcpy(launch.params.data(), &S, 8);
  std::memcpy(launch.params.data() + 8, &O, 8);
  auto r = run_timing(*prog, mem, launch, *cfg);
  REQUIRE(r);
  REQUIRE_MESSAGE(!r->fault, (r->fault ? r->fault->message : ""));
  std::vector<uint32_t> out(64);
  REQUIRE(mem.read(O, out.data(), 256));
  for (uint32_t i = 0; i < 64; ++i) REQUIRE(out[i] == src[i] + 1);
  CHECK(r->warp_states[static_cast<int>(WarpState::Mbarrier)] > 0);
  // The copy's latency is in the kernel's time.
  CHECK(r->cycles > static_cast<uint64_t>(cfg->async.tma_latency));
  CHECK(warp_state_name(WarpState::Mbarrier) == "stall_mbarrier");
}

TEST_CASE("340 trace export: a TMA kernel's copy and mbarrier wait are on their own tracks") {
  auto m = ptx::parse_module(test::kAsyncPtx, "async.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  std::vector<uint32_t> src(64, 3);
  const uint64_t S = mem.allocate("src", 256), O = mem.allocate("out", 256);
  REQUIRE(mem.write(S, src.data(), 256));
  func::LaunchConfig launch{"tma_1d", {1, 1, 1}, {64, 1, 1}, 0, std::vector<uint8_t>(16)};
  std::memcpy(launch.params.data(), &S, 8);
  std::memcpy(launch.params.data() + 8, &O, 8);
  TimingOptions o;
  o.trace.enabled = true;
  auto r = run_timing(*prog, mem, launch, *cfg, o);
  REQUIRE(r);
  REQUIRE_FALSE(r->fault);
  // The units recorded the bulk copy and the answered wait (trace.h: AsyncRecord) ...
  const AsyncRecord* copy = nullptr;
  const AsyncRecord* wait = nullptr;
  for (const AsyncRecord& a : r->trace.async) {
    if (a.kind == AsyncRecord::Kind::TmaLoad && !copy) copy = &a;
    if (a.kind == AsyncRecord::Kind::MbarrierWait && !wait) wait = &a;
  }
  REQUIRE(copy);
  REQUIRE(wait);
  CHECK(copy->bytes == 256);
  // ... and the export carries each as a begin/end pair at the record's cycles, on a track named
  // for its unit under SM 0.
  std::ostringstream os;
  REQUIRE(write_chrome_trace(r->trace, os));
  const auto doc = nlohmann::json::parse(os.str());
  std::map<int, std::string> track;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 0)
      track[e["tid"].get<int>()] = e["args"]["name"];
  int found = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "b") continue;
    const AsyncRecord* rec = e["name"] == "TMA load" ? copy : e["name"] == "mbarrier wait" ? wait : nullptr;
    if (!rec || e["ts"] != rec->begin) continue;
    CHECK(e["pid"] == 0);
    CHECK(e["args"]["end_cycle"] == rec->end);
    CHECK(e["args"]["ptx_line"] == rec->ptx_line);
    CHECK(track.at(e["tid"].get<int>()) ==
          (rec == copy ? "TMA unit: loads (global -> shared)" : "mbarrier phases (waits answered)"));
    ++found;
  }
  CHECK(found == 2);
}
