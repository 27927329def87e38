// Timing of thread-block clusters: the DSMEM unit (sim/timing/dsmem.h) at its exact cycles, the
// block scheduler's co-scheduling of a cluster's blocks, ldmatrix per 8x8 matrix
// (shared.matrix_cycles), and whole cluster kernels in timing mode (results equal to the values
// computed here). The parameters are set here, so these cycles follow from the rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>

#include "24x_cluster_ptx.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/block_scheduler.h"
#include "sim/timing/dsmem.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/shared_banks.h"
#include "sim/timing/tensor_pipe.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

ClusterConfig params() {
  ClusterConfig c;
  c.remote_latency = 180;
  c.remote_bytes_per_cycle = 32;
  c.barrier_latency = 150;
  c.barrier_poll = 20;
  return c;
}

// Issue cycles of SM `sm`'s warp slot 0 on lines containing `marker`, in order.
std::vector<uint64_t> cycles_of(const std::string& text, const TimingResult& r, int sm,
                                const std::string& marker) {
  std::vector<int> lines;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) lines.push_back(n);
  std::vector<uint64_t> out;
  for (const auto& i : r.trace.issues)
    if (i.sm == sm && i.slot == 0 &&
        std::find(lines.begin(), lines.end(), i.ptx_line) != lines.end())
      out.push_back(i.cycle);
  return out;
}

TimingResult run(const std::string& text, const GpuConfig& cfg, func::Dim3 grid, func::Dim3 cluster,
                 func::DeviceMemory& mem, uint64_t out, std::vector<int> traced = {0, 1}) {
  auto m = ptx::parse_module(text, "dsmem.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  auto prog = func::Program::load(std::move(*m));
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  func::LaunchConfig launch{"k", grid, {32, 1, 1}, 0, {}};
  launch.cluster = cluster;
  launch.params.resize(8);
  std::memcpy(launch.params.data(), &out, 8);
  TimingOptions o;
  o.trace.enabled = true;
  o.trace.sms = traced;
  auto r = run_timing(*prog, mem, launch, cfg, o);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_MESSAGE(!r->fault, (r->fault ? r->fault->message : ""));
  return std::move(*r);
}

// Two blocks of one warp in a cluster of 2. Lane 0 of each loads its partner's word (remote) and
// its own (local) and uses each; then both pass barrier.cluster. out[rank] = partner's word + own.
const char* kPairPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 S[32];
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, S;
  add.s32 %r4, %r2, 7;
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r3, %r5;
  st.shared.u32 [%r6], %r4;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  xor.b32 %r7, %r2, 1;
  mapa.shared::cluster.u32 %r8, %r3, %r7;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  ld.shared::cluster.u32 %r9, [%r8]; // rload
  add.s32 %r10, %r9, 1; // ruse
  ld.shared.u32 %r11, [%r3];
  add.s32 %r12, %r11, %r10;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r12;
SKIP:
  barrier.cluster.arrive.relaxed.aligned; // arrive
  barrier.cluster.wait.aligned; // wait
  mov.u32 %r13, 0; // after
  ret;
}
)";

}  // namespace

TEST_CASE("344 dsmem: a remote access takes its bytes through the SM's port, then the latency") {
  const ClusterConfig c = params();
  DsmemUnit u(c);
  ptx::Instruction ld;
  ld.op = ptx::Opcode::Ld;
  func::StepInfo in;
  in.inst = &ld;
  in.exec_mask = 1;
  in.access_bytes = 4;
  CHECK(u.access(in, 100) == 100 + 180);  // 4 bytes: one cycle of the port
  in.exec_mask = 0xFFFFFFFFu;             // 128 bytes: 4 cycles
  CHECK(u.access(in, 200) == 200 + 3 + 180);
  CHECK(u.access(in, 200) == 204 + 3 + 180);  // queued behind the first
  in.access_bytes = 16;                       // 512 bytes: 16 cycles
  CHECK(u.access(in, 1000) == 1000 + 15 + 180);
  CHECK(u.remote_accesses() == 4);
  CHECK(u.remote_bytes() == 4 + 128 + 128 + 512);
}

TEST_CASE("344 barrier.cluster: release waits for stores; a wait goes on latency after the phase") {
  const ClusterConfig c = params();
  DsmemUnit u(c);
  ptx::Instruction arrive, wait;
  arrive.op = wait.op = ptx::Opcode::BarrierCluster;
  arrive.mod.bar = ptx::BarMode::Arrive;
  arrive.mod.mem_sem = ptx::MemSem::Release;
  wait.mod.bar = ptx::BarMode::Sync;
  wait.mod.mem_sem = ptx::MemSem::Acquire;
  func::StepInfo in;
  in.exec_mask = ~0u;
  uint64_t fetch = 101;
  WarpState why = WarpState::Selected;
  in.inst = &arrive;
  u.hold(in, 100, 640, fetch, why);  // the warp's stores complete at 640
  CHECK(fetch == 640);
  CHECK(why == WarpState::Membar);
  arrive.mod.mem_sem = ptx::MemSem::Relaxed;  // .relaxed: no wait
  fetch = 101;
  u.hold(in, 100, 640, fetch, why);
  CHECK(fetch == 101);
  in.inst = &wait;
  in.wait_failed = true;  // the phase runs: try again after barrier_poll
  u.hold(in, 300, 0, fetch, why);
  CHECK(fetch == 320);
  CHECK(why == WarpState::Barrier);
  in.wait_failed = false;
  in.mbarrier = 310;  // the phase completed at 310
  u.hold(in, 320, 0, fetch, why);
  CHECK(fetch == 460);
  u.hold(in, 900, 0, fetch, why);  // long after: no hold beyond the next cycle
  CHECK(fetch == 900);
}

TEST_CASE("344 barrier.cluster's latency grows per doubling of the cluster and per extra warp") {
  ClusterConfig c = params();  // barrier_latency 150
  c.barrier_level_latency = 40;
  c.barrier_warp_latency = 30;
  // blocks, warps a block, schedulers -> 150 + 40 ceil(log2 blocks) + 30 max(0, warps - schedulers)
  CHECK(DsmemUnit(c, 1, 1, 4).barrier_latency() == 150);
  CHECK(DsmemUnit(c, 2, 1, 4).barrier_latency() == 190);
  CHECK(DsmemUnit(c, 3, 4, 4).barrier_latency() == 230);  // 3 blocks span two levels, as 4
  CHECK(DsmemUnit(c, 4, 4, 4).barrier_latency() == 230);
  CHECK(DsmemUnit(c, 8, 8, 4).barrier_latency() == 150 + 120 + 120);
  CHECK(DsmemUnit(c, 16, 5, 4).barrier_latency() == 150 + 160 + 30);
  // A wait whose phase completed at 310 goes on that latency after it.
  DsmemUnit u(c, 8, 8, 4);
  ptx::Instruction wait;
  wait.op = ptx::Opcode::BarrierCluster;
  wait.mod.bar = ptx::BarMode::Sync;
  func::StepInfo in;
  in.exec_mask = ~0u;
  in.inst = &wait;
  in.mbarrier = 310;
  uint64_t fetch = 321;
  WarpState why = WarpState::Selected;
  u.hold(in, 320, 0, fetch, why);
  CHECK(fetch == 310 + 390);
  CHECK(why == WarpState::Barrier);
  // What counts is the warps on the SM: a second block of 8 warps there (16 warps, 12 beyond the
  // schedulers) makes the same wait go on 150 + 120 + 360 cycles after the phase.
  CHECK(u.barrier_latency(8) == 390);
  CHECK(u.barrier_latency(16) == 150 + 120 + 360);
  CHECK(u.barrier_latency(3) == 150 + 120);
  fetch = 321;
  u.hold(in, 320, 0, fetch, why, 16);
  CHECK(fetch == 310 + 630);
  fetch = 321;
  u.hold(in, 320, 0, fetch, why, 8);
  CHECK(fetch == 310 + 390);
  // In a cluster of one block the barrier stays in the SM: the block's own warps count.
  DsmemUnit one(c, 1, 8, 4);
  fetch = 321;
  one.hold(in, 320, 0, fetch, why, 16);
  CHECK(fetch == 310 + 150 + 120);
}

TEST_CASE("344 cluster groups: TPCs for clusters of 2, the preset's GPCs for larger ones") {
  ClusterConfig c = params();
  c.gpc_sms = "8 16 16 16 16 16 16 16";  // the H100's (block_scheduler.h)
  using G = BlockScheduler::Group;
  const std::vector<G> tpcs = BlockScheduler::cluster_groups(c, 132, 2);
  REQUIRE(tpcs.size() == 66);
  CHECK(tpcs[65].first == 130);
  CHECK(tpcs[65].count == 2);
  const std::vector<G> gpcs = BlockScheduler::cluster_groups(c, 132, 4);
  REQUIRE(gpcs.size() == 8);
  CHECK(gpcs[0].first == 0);
  CHECK(gpcs[0].count == 8);
  CHECK(gpcs[1].first == 8);
  CHECK(gpcs[7].first == 104);
  CHECK(gpcs[7].first + gpcs[7].count == 120);  // SMs 120-131 take no cluster of 4
  c.gpc_sms = "";  // equal parts of cluster.gpcs
  c.gpcs = 3;
  const std::vector<G> even = BlockScheduler::cluster_groups(c, 10, 8);
  REQUIRE(even.size() == 3);
  CHECK(even[0].count == 3);
  CHECK(even[1].first == 3);
  CHECK(even[2].count == 4);
  // The preset reader refuses a bad list, naming the key.
  GpuConfig g;
  g.cluster.gpc_sms = "8 x";
  CHECK_FALSE(validate_config(g));
  g.cluster.gpc_sms = "8 -16";
  CHECK_FALSE(validate_config(g));
  // A list longer than the SM count is accepted: a preset with fewer SMs keeps the GPCs that fit,
  // and where none fits, the SMs split evenly over cluster.gpcs.
  g.cluster.gpc_sms = "100 100";
  CHECK(validate_config(g));
  ClusterConfig big = params();
  big.gpc_sms = "8 16 16 16 16 16 16 16";
  const std::vector<BlockScheduler::Group> four = BlockScheduler::cluster_groups(big, 30, 4);
  REQUIRE(four.size() == 2);  // 8 + 16 fit in 30 SMs, the third GPC does not
  CHECK(four[1].first == 8);
  CHECK(four[1].count == 16);
  big.gpcs = 2;
  const std::vector<BlockScheduler::Group> none_fit = BlockScheduler::cluster_groups(big, 4, 4);
  REQUIRE(none_fit.size() == 2);  // no listed GPC fits 4 SMs: two equal parts
  CHECK(none_fit[0].count == 2);
  CHECK(none_fit[1].first == 2);
  g.cluster.gpc_sms = "8 16";
  CHECK(validate_config(g));
}

TEST_CASE("344 clusters of 4 on a small GPC share its SMs, as the H100's do") {
  // 12 SMs: a GPC of 4 (SMs 0-3) and one of 8 (SMs 4-11). Four clusters of 4 go round the GPCs:
  // 0 -> SMs 0-3, 1 -> SMs 4-7, 2 -> SMs 0-3 again (two blocks an SM), 3 -> SMs 8-11.
  GpuConfig cfg;
  cfg.core.sm_count = 12;
  cfg.cluster = params();
  cfg.cluster.gpc_sms = "4 8";
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 64);
  const TimingResult r = run(kPairPtx, cfg, {16, 1, 1}, {4, 1, 1}, mem, out,
                             {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  std::map<int, std::set<uint32_t>> blocks_on;
  for (const auto& i : r.trace.issues) blocks_on[i.sm].insert(i.block);
  for (int sm = 0; sm < 12; ++sm) {
    CAPTURE(sm);
    const std::set<uint32_t> want = sm < 4   ? std::set<uint32_t>{uint32_t(sm), uint32_t(8 + sm)}
                                    : sm < 8 ? std::set<uint32_t>{uint32_t(sm)}
                                             : std::set<uint32_t>{uint32_t(4 + sm)};
    CHECK(blocks_on[sm] == want);
  }
  // A cluster larger than every GPC can never start.
  cfg.cluster.gpc_sms = "4 4";
  auto m = ptx::parse_module(kPairPtx, "dsmem.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  func::LaunchConfig launch{"k", {8, 1, 1}, {32, 1, 1}, 0, std::vector<uint8_t>(8)};
  std::memcpy(launch.params.data(), &out, 8);
  launch.cluster = {8, 1, 1};
  auto e = run_timing(*prog, mem, launch, cfg);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("needs 8 SMs of one GPC") != std::string::npos);
}

TEST_CASE("344 a cluster kernel in timing mode: remote load latency exact, results right") {
  GpuConfig cfg;
  cfg.cluster = params();
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 8);
  const TimingResult r = run(kPairPtx, cfg, {2, 1, 1}, {2, 1, 1}, mem, out);
  uint32_t o[2];
  REQUIRE(mem.read(out, o, 8));
  CHECK(o[0] == (1 + 7) + 1 + (0 + 7));  // partner's word + 1 + own word
  CHECK(o[1] == (0 + 7) + 1 + (1 + 7));
  // The cluster's two blocks ran on two SMs of one GPC at once.
  for (int sm : {0, 1}) {
    CAPTURE(sm);
    const auto rload = cycles_of(kPairPtx, r, sm, "// rload"),
               ruse = cycles_of(kPairPtx, r, sm, "// ruse");
    REQUIRE(rload.size() == 1);
    REQUIRE(ruse.size() == 1);
    CHECK(ruse[0] - rload[0] == 180);  // remote: cluster.remote_latency
  }
  // barrier.cluster.wait: its warp goes on barrier_latency after the later block's arrive took
  // effect, when that warp fetched it: a cluster barrier is fetched no earlier than its warp may
  // fetch (sm.cpp), here the cycle it issued.
  const auto a0 = cycles_of(kPairPtx, r, 0, "// arrive"),
             a1 = cycles_of(kPairPtx, r, 1, "// arrive");
  const auto after0 = cycles_of(kPairPtx, r, 0, "// after");
  REQUIRE(a0.size() == 1);
  REQUIRE(a1.size() == 1);
  REQUIRE(after0.size() == 1);
  CHECK(after0[0] == std::max(a0[0], a1[0]) + 150);
}

// Three cluster barriers in a row (two blocks of one warp): each wait holds its warp
// barrier_latency after the phase completed, and the next arrive counts only once its warp goes on.
const char* kThreeBarriersPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_out)
{
  barrier.cluster.arrive;  // first
  barrier.cluster.wait;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;  // end
}
)";

TEST_CASE("344 barriers in a row: each costs barrier_latency, none overlaps the last") {
  GpuConfig cfg;
  cfg.cluster = params();
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 8);
  const TimingResult r = run(kThreeBarriersPtx, cfg, {2, 1, 1}, {2, 1, 1}, mem, out);
  for (int sm : {0, 1}) {
    CAPTURE(sm);
    const auto first = cycles_of(kThreeBarriersPtx, r, sm, "// first"),
               end = cycles_of(kThreeBarriersPtx, r, sm, "// end");
    REQUIRE(first.size() == 1);
    REQUIRE(end.size() == 1);
    // Three releases of 150 cycles each, plus a few cycles of issue and polling (poll 20).
    CHECK(end[0] - first[0] >= 3 * 150);
    CHECK(end[0] - first[0] < 3 * 150 + 3 * 20);
  }
}

TEST_CASE("344 the block scheduler starts a cluster's blocks together in one GPC, or waits") {
  GpuConfig cfg;
  cfg.core.sm_count = 8;
  cfg.cluster = params();
  cfg.cluster.gpcs = 2;  // SMs 0-3 and 4-7
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 64);
  // 16 clusters of 2 on 8 SMs: every block still sees its partner (the result says so).
  const TimingResult r = run(kPairPtx, cfg, {16, 1, 1}, {2, 1, 1}, mem, out);
  CHECK(r.stats.blocks == 16);
  uint32_t o[16];
  REQUIRE(mem.read(out, o, 8));  // clusters write out[rank]: the last cluster's values
  CHECK(o[0] == 16);
  CHECK(o[1] == 16);
  // 4 clusters of 2 on 8 idle SMs: every SM gets one block (the GPU spreads clusters over idle
  // SMs and GPCs first, it does not stack them on the first SMs with room).
  {
    func::DeviceMemory m2;
    const uint64_t o2 = m2.allocate("out", 64);
    const TimingResult spread = run(kPairPtx, cfg, {8, 1, 1}, {2, 1, 1}, m2, o2, {0, 1, 2, 3, 4, 5, 6, 7});
    for (int sm = 0; sm < 8; ++sm) {
      CAPTURE(sm);
      CHECK(cycles_of(kPairPtx, spread, sm, "// rload").size() == 1);
    }
  }
  // A cluster larger than a GPC can never start.
  cfg.cluster.gpcs = 4;  // 2 SMs each
  auto m = ptx::parse_module(kPairPtx, "dsmem.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  func::LaunchConfig launch{"k", {4, 1, 1}, {32, 1, 1}, 0, std::vector<uint8_t>(8)};
  std::memcpy(launch.params.data(), &out, 8);
  launch.cluster = {4, 1, 1};
  auto e = run_timing(*prog, mem, launch, cfg);
  REQUIRE_FALSE(e);
  CHECK(e.error().message.find("needs 4 SMs of one GPC") != std::string::npos);
}

TEST_CASE("344 ldmatrix holds the shared pipe matrix_cycles per 8x8 matrix") {
  SharedConfig s;
  s.matrix_cycles = 2;
  ptx::Instruction ldm;
  ldm.op = ptx::Opcode::Ldmatrix;
  std::array<uint64_t, 32> addr{};
  for (int l = 0; l < 32; ++l) addr[l] = 16 * static_cast<uint64_t>(l);
  for (uint32_t mask : {0xFFu, 0xFFFFu, 0xFFFFFFFFu}) {
    const SharedAccessCost c = shared_cost_of(ldm, addr, mask, 16, s, false);
    const int matrices = std::popcount(mask) / 8;
    CHECK(c.wavefronts == matrices);
    CHECK(c.pipe_cycles == doctest::Approx(2.0 * matrices));
  }
}

TEST_CASE("344 functional and timing mode agree on a cluster reduction") {
  auto m = ptx::parse_module(test::kClusterPtx, "cluster.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  const uint32_t blocks = 32, c = 4, n = blocks * 128;
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = i % 1000;
  const uint64_t I = mem.allocate("in", n * 4), S = mem.allocate("sums", 32),
                 C = mem.allocate("count", 32), F = mem.allocate("info", n * 4);
  REQUIRE(mem.write(I, in.data(), n * 4));
  func::LaunchConfig launch{
      "cluster_sum", {blocks, 1, 1}, {128, 1, 1}, 0, std::vector<uint8_t>(32)};
  launch.cluster = {c, 1, 1};
  for (int i = 0; i < 4; ++i) {
    const uint64_t a[] = {I, S, C, F};
    std::memcpy(launch.params.data() + 8 * i, &a[i], 8);
  }
  auto r = run_timing(*prog, mem, launch, *cfg);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_MESSAGE(!r->fault, (r->fault ? r->fault->message : ""));
  uint32_t sums[8], count[8];
  REQUIRE(mem.read(S, sums, 32));
  REQUIRE(mem.read(C, count, 32));
  for (uint32_t k = 0; k < blocks / c; ++k) {
    CHECK(sums[k] == std::accumulate(in.begin() + k * c * 128, in.begin() + (k + 1) * c * 128, 0u));
    CHECK(count[k] == c * 128);
  }
}
