// Whole kernels on the timing model: exact issue cycles, results equal to functional mode,
// determinism (sim/timing/gpu_model.h). Small PTX embedded as strings.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "31x_timing.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

constexpr const char* kChain = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry chain(.param .u64 out)
{
  .reg .f32 %f<10>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.f32 %f1, 0f3F800000;
  add.f32 %f2, %f1, %f1;
  add.f32 %f3, %f2, %f1;
  add.f32 %f4, %f3, %f1;
  add.f32 %f5, %f4, %f1;
  add.f32 %f6, %f5, %f1;
  st.global.f32 [%rd2], %f6;
  ret;
}
)";
// Lines of the add instructions in kChain: 11..15.

constexpr const char* kReload = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry reload(.param .u64 in, .param .u64 out)
{
  .reg .f32 %f<10>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd2, %rd1;
  cvta.to.global.u64 %rd4, %rd3;
  ld.global.f32 %f1, [%rd2];
  add.f32 %f2, %f1, %f1;
  ld.global.f32 %f3, [%rd2+4];
  add.f32 %f4, %f3, %f2;
  st.global.f32 [%rd4], %f4;
  ret;
}
)";
// Lines: first load 12, its use 13, second load (an L1 hit) 14, its use 15.


std::vector<uint64_t> issue_cycles(const TimingResult& r, int32_t line) {
  std::vector<uint64_t> out;
  for (const auto& i : r.trace.issues)
    if (i.ptx_line == line && i.slot == 0) out.push_back(i.cycle);
  return out;
}

TimingOptions traced() {
  TimingOptions o;
  o.trace.enabled = true;
  return o;
}

}  // namespace

TEST_CASE("310 a chain of dependent FP32 adds issues exactly every fp32_latency cycles") {
  auto prog = load(kChain);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  for (int latency : {4, 6}) {
    GpuConfig cfg;
    cfg.pipes.fp32.latency = latency;
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 4);
    func::LaunchConfig launch{"chain", {1, 1, 1}, {32, 1, 1}, 0, {}};
    put(launch.params, out);
    auto r = run_timing(*prog, mem, launch, cfg, traced());
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    std::vector<uint64_t> adds;
    for (int line = 11; line <= 15; ++line) {
      auto c = issue_cycles(*r, line);
      REQUIRE(c.size() == 1);
      adds.push_back(c[0]);
    }
    for (size_t i = 1; i < adds.size(); ++i) CHECK(adds[i] - adds[i - 1] == uint64_t(latency));
    float v = 0;
    REQUIRE(mem.read(out, &v, 4));
    CHECK(v == 6.0f);
  }
}

// Runs kReload (or a variant of it) on one warp with the PTX-order schedule (hoist_loads = 0:
// the second load issues after the first one's use); `out` receives the output buffer.
Expected<TimingResult> run_reload(const func::Program& prog, func::DeviceMemory& mem,
                                  const GpuConfig& cfg, uint64_t& out) {
  const uint64_t in = mem.allocate("in", 128);
  out = mem.allocate("out", 4);
  const float vals[2] = {1.5f, 2.0f};
  if (!mem.write(in, vals, 8)) return Error{"", 0, "cannot write the input"};
  func::LaunchConfig launch{"reload", {1, 1, 1}, {32, 1, 1}, 0, {}};
  put(launch.params, in);
  put(launch.params, out);
  return run_timing(prog, mem, launch, cfg, traced());
}

TEST_CASE("310 a dependent use of an L1 hit issues exactly hit_latency cycles after the load") {
  auto prog = load(kReload);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  GpuConfig cfg;
  cfg.compiler.hoist_loads = 0;  // PTX order: the second load issues after the first one's use
  func::DeviceMemory mem;
  uint64_t out = 0;
  auto r = run_reload(*prog, mem, cfg, out);
  REQUIRE(r);
  REQUIRE_FALSE(r->fault);
  const auto ld1 = issue_cycles(*r, 12), use1 = issue_cycles(*r, 13);
  const auto ld2 = issue_cycles(*r, 14), use2 = issue_cycles(*r, 15);
  REQUIRE(ld1.size() == 1);
  REQUIRE(use2.size() == 1);
  CHECK(use1[0] - ld1[0] >= uint64_t(cfg.l2.hit_latency + cfg.dram.latency));  // cold miss
  CHECK(use2[0] - ld2[0] == uint64_t(cfg.l1.hit_latency));                     // L1 hit
  CHECK(r->memory.l1.global_ld_requests == 2);
  CHECK(r->memory.l1.global_ld_sector_hits == 1);
  float v = 0;
  REQUIRE(mem.read(out, &v, 4));
  CHECK(v == 5.0f);
}

TEST_CASE("310 strong loads (volatile, relaxed, .cg, .cv) are served by the L2 whatever the L1 holds") {
  // The L1 is not coherent between SMs: ptxas makes a volatile load LDG.E.STRONG.SYS and __ldcg
  // LDG.E.STRONG.GPU, and the L2 answers them (atomics.cu on the H200: 340 cycles a link of
  // __ldcg against 39 for an L1 hit). kReload's second load, made strong, misses the L1 line
  // the first load filled and pays the L2 round trip; the plain one hits.
  std::vector<uint64_t> latencies;
  for (const char* form : {"ld.global.f32", "ld.volatile.global.f32", "ld.global.cg.f32",
                           "ld.global.cv.f32", "ld.relaxed.gpu.global.f32"}) {
    std::string ptx = kReload;
    const std::string second = "ld.global.f32 %f3, [%rd2+4];";
    const size_t at = ptx.find(second);
    REQUIRE(at != std::string::npos);
    ptx.replace(at, std::string("ld.global.f32").size(), form);
    auto prog = load(ptx.c_str());
    REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
    GpuConfig cfg;
    cfg.compiler.hoist_loads = 0;
    func::DeviceMemory mem;
    uint64_t out = 0;
    auto r = run_reload(*prog, mem, cfg, out);
    REQUIRE(r);
    REQUIRE_FALSE(r->fault);
    const auto ld2 = issue_cycles(*r, 14), use2 = issue_cycles(*r, 15);
    REQUIRE(ld2.size() == 1);
    REQUIRE(use2.size() == 1);
    latencies.push_back(use2[0] - ld2[0]);
    const bool plain = latencies.size() == 1;
    CHECK(r->memory.l1.global_ld_sector_hits == (plain ? 1u : 0u));
    if (plain) CHECK(latencies.back() == uint64_t(cfg.l1.hit_latency));
    else CHECK(latencies.back() >= uint64_t(cfg.l2.hit_latency));  // the L2 round trip
    float v = 0;
    REQUIRE(mem.read(out, &v, 4));
    CHECK(v == 5.0f);
  }
  // Every strong form takes the same path, to the cycle.
  for (size_t i = 2; i < latencies.size(); ++i) CHECK(latencies[i] == latencies[1]);
}

TEST_CASE("310 the trace records each access's lines, sector masks and where sectors came from") {
  auto prog = load(kReload);
  REQUIRE(prog);
  GpuConfig cfg;
  func::DeviceMemory mem;
  const uint64_t in = mem.allocate("in", 128), out = mem.allocate("out", 4);
  func::LaunchConfig launch{"reload", {1, 1, 1}, {32, 1, 1}, 0, {}};
  put(launch.params, in);
  put(launch.params, out);
  auto r = run_timing(*prog, mem, launch, cfg, traced());
  REQUIRE(r);
  const Trace& t = r->trace;
  REQUIRE(t.accesses.size() == 3);  // load, load, store
  auto line_of = [&](const AccessRecord& a) -> const AccessLine& {
    REQUIRE(a.line_count == 1);
    return t.access_lines[a.line_begin];
  };
  // Every lane reads in[0] (sector 0 of one line): cold, so from DRAM.
  const AccessLine& l0 = line_of(t.accesses[0]);
  CHECK(l0.address == in / 128 * 128);
  CHECK(l0.lane_mask == 0xffffffffu);
  CHECK(l0.sector_mask == 1);
  CHECK(l0.source(0) == SectorSource::Dram);
  CHECK(l0.source(1) == SectorSource::None);
  CHECK(t.accesses[0].lane_sectors == ((in % 128) / 32) * 0x5555555555555555ull);
  // in[1]: the same sector, now in this SM's L1.
  CHECK(line_of(t.accesses[1]).source(0) == SectorSource::L1);
  // The store goes into the L2.
  const AccessLine& st = line_of(t.accesses[2]);
  CHECK(st.address == out / 128 * 128);
  CHECK(st.source(static_cast<int>((out % 128) / 32)) == SectorSource::L2);
  CHECK(t.access_lines.size() == 3);
}

TEST_CASE("310 vec_add: timing results equal functional results; counters add up; deterministic") {
  auto prog = load(kVecAdd);
  REQUIRE(prog);
  const uint32_t n = 100000;
  auto run = [&](bool timing, std::string* trace_json, TimingResult* out) {
    func::DeviceMemory mem;
    const uint64_t x = mem.allocate("x", n * 4), y = mem.allocate("y", n * 4),
                   z = mem.allocate("z", n * 4);
    std::vector<float> hx(n), hy(n);
    for (uint32_t i = 0; i < n; ++i) {
      hx[i] = float(i) * 0.5f;
      hy[i] = 3.0f - float(i % 7);
    }
    REQUIRE(mem.write(x, hx.data(), n * 4));
    REQUIRE(mem.write(y, hy.data(), n * 4));
    func::LaunchConfig launch{"vec_add", {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, {}};
    put(launch.params, x);
    put(launch.params, y);
    put(launch.params, z);
    put(launch.params, n);
    if (timing) {
      TimingOptions o = traced();
      o.registers_per_thread = 16;
      auto cfg = load_config("h100-sxm");
      REQUIRE(cfg);
      auto r = run_timing(*prog, mem, launch, *cfg, o);
      REQUIRE(r);
      REQUIRE_FALSE(r->fault);
      std::ostringstream os;
      REQUIRE(write_chrome_trace(r->trace, os));
      *trace_json = os.str();
      *out = std::move(*r);
    } else {
      auto r = func::run_functional(*prog, mem, launch);
      REQUIRE(r);
      REQUIRE_FALSE(r->fault);
    }
    std::vector<float> hz(n);
    REQUIRE(mem.read(z, hz.data(), n * 4));
    for (uint32_t i = 0; i < n; ++i) REQUIRE(hz[i] == hx[i] + hy[i]);
    return hz;
  };
  std::string j1, j2;
  TimingResult r1, r2;
  const auto zt = run(true, &j1, &r1);
  const auto zf = run(false, nullptr, nullptr);
  CHECK(zt == zf);
  run(true, &j2, &r2);
  CHECK(r1.cycles == r2.cycles);
  CHECK(j1 == j2);
  // Coalescing: 2 loads and 1 store per warp, 4 sectors each.
  const uint64_t warps = (n + 31) / 32;
  CHECK(r1.memory.l1.global_ld_requests == 2 * warps);
  CHECK(r1.memory.global_ld_sectors_per_request() == doctest::Approx(4.0));
  CHECK(r1.memory.global_st_sectors_per_request() == doctest::Approx(4.0));
  CHECK(r1.memory.dram_bytes_read == 2ull * n * 4);
  CHECK(r1.occupancy.blocks_per_sm == 8);
  CHECK(r1.waves == doctest::Approx(391.0 / (8 * 132)));
  // Every resident warp-cycle is in exactly one state.
  uint64_t state_sum = 0;
  for (auto v : r1.warp_states) state_sum += v;
  CHECK(state_sum > 0);
  CHECK(r1.warp_states[int(WarpState::Selected)] == r1.stats.warp_instructions);
  CHECK(r1.warp_states[int(WarpState::LongScoreboard)] > r1.warp_states[int(WarpState::Wait)]);
  CHECK(r1.time_us > r1.kernel_time_us);
}

TEST_CASE("310 the teaching GPU runs vec_add and a bad launch is an error") {
  auto prog = load(kVecAdd);
  REQUIRE(prog);
  auto cfg = load_config("teaching");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  const uint32_t n = 1000;
  const uint64_t x = mem.allocate("x", n * 4), y = mem.allocate("y", n * 4),
                 z = mem.allocate("z", n * 4);
  func::LaunchConfig launch{"vec_add", {(n + 127) / 128, 1, 1}, {128, 1, 1}, 0, {}};
  put(launch.params, x);
  put(launch.params, y);
  put(launch.params, z);
  put(launch.params, n);
  auto r = run_timing(*prog, mem, launch, *cfg);
  REQUIRE(r);
  CHECK_FALSE(r->fault);
  CHECK(r->occupancy.blocks_per_sm == 2);
  launch.block = {2048, 1, 1};
  CHECK_FALSE(run_timing(*prog, mem, launch, *cfg));
}

namespace {
// One warp sums x[k * 32 + lane] over k < 16: a loop whose loads do not depend on each other.
// `store_in_loop`, when not empty, is a store of the running sum that each iteration also makes:
// to global memory ("st.global.f32 [%rd7], %f1;"), to a generic address ([%rd7]: it may be
// global) or to shared memory ([%rd8], the lane's word of `scratch`).
std::string loop_sum_ptx(const std::string& store_in_loop) {
  return std::string(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry loop_sum(.param .u64 x, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b8 scratch[128];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  mov.u64 %rd9, scratch;
  add.s64 %rd8, %rd9, %rd5;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r2, 0;
$L_loop:
  ld.global.f32 %f2, [%rd6];
  add.f32 %f1, %f1, %f2;
)") + (store_in_loop.empty() ? "" : "  " + store_in_loop + "\n") +
         R"(  add.s64 %rd6, %rd6, 128;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra $L_loop;
  st.global.f32 [%rd7], %f1;
  ret;
}
)";
}

int line_of(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  std::string l;
  for (int n = 1; std::getline(in, l); ++n)
    if (l.find(what) != std::string::npos) return n;
  return -1;
}

// Runs loop_sum on the timing model: the loads issued before the first add, and the sums.
std::pair<int, std::vector<float>> loop_sum_run(const std::string& ptx, const GpuConfig& cfg) {
  auto prog = load(ptx.c_str());
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  func::DeviceMemory mem;
  std::vector<float> x(16 * 32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) + 0.25f;
  const uint64_t xa = mem.allocate("x", x.size() * 4), out = mem.allocate("out", 32 * 4);
  REQUIRE(mem.write(xa, x.data(), x.size() * 4));
  func::LaunchConfig launch{"loop_sum", {1, 1, 1}, {32, 1, 1}, 0, {}};
  put(launch.params, xa);
  put(launch.params, out);
  auto r = run_timing(*prog, mem, launch, cfg, traced());
  REQUIRE(r);
  REQUIRE_FALSE(r->fault);
  const auto loads = issue_cycles(*r, line_of(ptx, "ld.global.f32 %f2"));
  const auto adds = issue_cycles(*r, line_of(ptx, "add.f32 %f1"));
  REQUIRE(loads.size() == 16);
  REQUIRE(adds.size() == 16);
  int before = 0;
  for (uint64_t c : loads) before += c < adds[0];
  std::vector<float> sums(32);
  REQUIRE(mem.read(out, sums.data(), 32 * 4));
  for (int lane = 0; lane < 32; ++lane) {
    float want = 0;
    for (int k = 0; k < 16; ++k) want += x[k * 32 + lane];
    CHECK(sums[lane] == want);  // same order of additions: bit-identical
  }
  return {before, sums};
}
}  // namespace

TEST_CASE("310 the compiler's schedule: loads of `unroll` iterations issue before the first use") {
  const std::string ptx = loop_sum_ptx("");
  GpuConfig cfg;
  cfg.compiler.hoist_loads = 0;
  const auto in_order = loop_sum_run(ptx, cfg);
  CHECK(in_order.first == 1);  // PTX order: load, wait, add, ...
  cfg.compiler.hoist_loads = 1;
  for (int unroll : {1, 2, 4, 8}) {
    cfg.compiler.unroll = unroll;
    const auto hoisted = loop_sum_run(ptx, cfg);
    CHECK(hoisted.first == unroll);  // one unrolled body's loads leave before its first add
    CHECK(hoisted.second == in_order.second);
  }
  cfg.compiler.unroll = 8;
  cfg.compiler.max_hoisted_loads = 3;  // registers: at most 3 loads ahead of the waiting add
  CHECK(loop_sum_run(ptx, cfg).first == 4);
  // Registers: with 32 per thread (the launch names none) and 5/32 of them for load results,
  // the first load (issued in order, its result not yet read) and 4 hoisted ones leave before
  // the first add; each add frees one register, and one more load leaves.
  cfg.compiler.max_hoisted_loads = 32;
  cfg.compiler.load_register_share = 5.0 / 32.0;
  CHECK(loop_sum_run(ptx, cfg).first == 5);
  cfg.compiler.load_register_share = 0.5;  // 16 registers: all 8 loads of the body
  CHECK(loop_sum_run(ptx, cfg).first == 8);
}

TEST_CASE("310 the compiler's schedule: a kernel parameter read late holds no load register") {
  // ptxas reads kernel parameters from the constant bank as operands (c[0x0][...]), so the
  // output pointer, read only after the loop, takes none of the registers that hold load
  // results (gen2 column_walk's SASS: 16 LDGs a body with 32 registers). Moving the output
  // pointer's first use after the loop changes nothing of the loop's loads.
  std::string early = loop_sum_ptx(""), late = early;
  for (const std::string line : {"  cvta.to.global.u64 %rd4, %rd2;\n", "  add.s64 %rd7, %rd4, %rd5;\n"}) {
    const size_t at = late.find(line);
    REQUIRE(at != std::string::npos);
    late.erase(at, line.size());
    const size_t st = late.find("  st.global.f32 [%rd7], %f1;");
    REQUIRE(st != std::string::npos);
    late.insert(st, line);
  }
  GpuConfig cfg;
  cfg.compiler.unroll = 8;
  cfg.compiler.load_register_share = 5.0 / 32.0;  // 5 registers for loaded results
  CHECK(loop_sum_run(early, cfg).first == 5);
  CHECK(loop_sum_run(late, cfg).first == 5);  // 4 when the parameter held one of the 5
  cfg.compiler.load_register_share = 0.5;
  CHECK(loop_sum_run(late, cfg).first == 8);
  // To the cycle: the hoisted loads leave at the same cycles in both, counted from the first
  // hoisted one (the second load): four back to back, then one per add once the first load's
  // data is back (each add frees a register).
  cfg.compiler.load_register_share = 5.0 / 32.0;
  auto load_cycles = [&](const std::string& ptx) {
    auto prog = load(ptx.c_str());
    REQUIRE(prog);
    func::DeviceMemory mem;
    const uint64_t xa = mem.allocate("x", 16 * 32 * 4), out = mem.allocate("out", 32 * 4);
    func::LaunchConfig launch{"loop_sum", {1, 1, 1}, {32, 1, 1}, 0, {}};
    put(launch.params, xa);
    put(launch.params, out);
    auto r = run_timing(*prog, mem, launch, cfg, traced());
    REQUIRE(r);
    auto c = issue_cycles(*r, line_of(ptx, "ld.global.f32 %f2"));
    REQUIRE(c.size() == 16);
    std::vector<int64_t> from_second;
    for (uint64_t x : c) from_second.push_back(int64_t(x) - int64_t(c[1]));
    return from_second;
  };
  const auto e = load_cycles(early), l = load_cycles(late);
  CHECK(l == e);
  CHECK(l[4] - l[1] == 4);    // loads 2-5 leave within 4 cycles (the load/store pipe: 1-2 apart)
  CHECK(l[5] - l[4] > 600);   // load 6 waits for load 1's data (DRAM) and the add that reads it
}

TEST_CASE("310 the compiler's schedule moves a load above a store only to other memory") {
  GpuConfig cfg;  // hoisting on, unroll 4
  // A store to global memory, or to a generic address (it may be global), holds the loads back.
  CHECK(loop_sum_run(loop_sum_ptx("st.global.f32 [%rd7], %f1;"), cfg).first == 1);
  CHECK(loop_sum_run(loop_sum_ptx("st.f32 [%rd7], %f1;"), cfg).first == 1);
  // A store to shared memory cannot write what a global load reads: as in ptxas's SASS of
  // matmul_tiled (LDG of the B tile above the STS of the A tile), the unrolled body's loads leave
  // before its first add, and the sums are the same.
  const auto in_order = loop_sum_run(loop_sum_ptx(""), cfg);
  const auto shared = loop_sum_run(loop_sum_ptx("st.shared.f32 [%rd8], %f1;"), cfg);
  CHECK(shared.first == 4);
  CHECK(shared.second == in_order.second);
}

TEST_CASE("310 DRAM bandwidth samples count bytes as the buses move them, never above the peak") {
  // y[i] = x[32 * i]: every lane's load is its own line, so the SMs ask DRAM for far more bytes
  // per cycle than its buses move; counted when booked, the samples showed 3x the peak.
  constexpr const char* kStrided = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry strided(.param .u64 x, .param .u64 y)
{
  .reg .f32 %f<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r4, 128;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd7, %r4, 4;
  add.s64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f1;
  ret;
}
)";
  auto prog = load(kStrided);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  const uint32_t n = 1 << 16;
  func::DeviceMemory mem;
  const uint64_t x = mem.allocate("x", uint64_t(n) * 128), y = mem.allocate("y", n * 4);
  func::LaunchConfig launch{"strided", {n / 256, 1, 1}, {256, 1, 1}, 0, {}};
  put(launch.params, x);
  put(launch.params, y);
  GpuConfig cfg;
  TimingOptions o = traced();
  o.trace.counter_interval = 64;
  auto r = run_timing(*prog, mem, launch, cfg, o);
  REQUIRE(r);
  REQUIRE_FALSE(r->fault);
  const double peak_per_cycle = cfg.peak_dram_bytes_per_cycle();
  uint64_t prev = 0, sum = 0;
  double highest = 0;
  REQUIRE(r->trace.counters.size() > 10);
  for (const CounterSample& c : r->trace.counters) {
    const uint64_t span = c.cycle - prev;
    CHECK(double(c.dram_bytes) <= peak_per_cycle * double(span) + 1.0);
    if (span > 0) highest = std::max(highest, double(c.dram_bytes) / double(span));
    sum += c.dram_bytes;
    prev = c.cycle;
  }
  CHECK(highest > 0.5 * peak_per_cycle);  // the buses were busy: the check above means something
  CHECK(sum <= r->memory.dram_bytes_read + r->memory.dram_bytes_written);
}

TEST_CASE("310 the compiler's schedule folds four adjacent shared loads into one vector load") {
  // Each thread reads s[4t .. 4t+3] with four scalar loads (offsets 0, 4, 8, 12 from a 16-byte
  // aligned address): ptxas emits one LDS.128; with hoisting off the model issues all four.
  constexpr const char* kVec = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry vec4(.param .u64 out)
{
  .reg .f32 %f<8>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 s[512];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r3, %r3, %r2;
  st.shared.f32 [%r3], %f1;
  bar.sync 0;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, s;
  add.s32 %r3, %r3, %r2;
  ld.shared.f32 %f2, [%r3];
  ld.shared.f32 %f3, [%r3+4];
  ld.shared.f32 %f4, [%r3+8];
  ld.shared.f32 %f5, [%r3+12];
  add.f32 %f6, %f2, %f3;
  add.f32 %f6, %f6, %f4;
  add.f32 %f6, %f6, %f5;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f6;
  ret;
}
)";
  auto prog = load(kVec);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  auto run = [&](int hoist) {
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 32 * 4);
    func::LaunchConfig launch{"vec4", {1, 1, 1}, {32, 1, 1}, 0, {}};
    put(launch.params, out);
    GpuConfig cfg;
    cfg.compiler.hoist_loads = hoist;
    auto r = run_timing(*prog, mem, launch, cfg, traced());
    REQUIRE(r);
    REQUIRE_FALSE(r->fault);
    std::vector<float> v(32);
    REQUIRE(mem.read(out, v.data(), 32 * 4));
    for (int t = 0; t < 8; ++t)  // threads 0..7 read s[4t..4t+3] = 4t + (4t+1) + (4t+2) + (4t+3)
      CHECK(v[t] == float(16 * t + 6));
    return std::make_pair(r->memory.l1.shared_ld_requests, r->stats.warp_instructions);
  };
  const auto scalar = run(0), vector = run(1);
  CHECK(scalar.first == 4);
  CHECK(vector.first == 1);
  CHECK(scalar.second == vector.second);  // the PTX ran whole either way (functional count)
}

namespace {

// Two warps of one block, each: an IEEE division, an independent add, an add that uses the
// division's result. Lines: div 11, independent add 12, dependent add 13.
constexpr const char* kDivs = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry divs(.param .u64 out)
{
  .reg .f32 %f<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.f32 %f1, 0f40400000;
  div.rn.f32 %f2, %f1, %f1;
  add.f32 %f3, %f1, %f1;
  add.f32 %f4, %f2, %f3;
  st.global.f32 [%rd2], %f4;
  ret;
}
)";

// One warp: an integer multiply (IMAD), an independent shift (INT pipe), another independent
// multiply. Lines 10, 11, 12.
constexpr const char* kImad = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry imad(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  mul.lo.s32 %r2, %r1, %r1;
  shl.b32 %r3, %r1, 3;
  mul.lo.s32 %r4, %r1, 5;
  add.s32 %r5, %r2, %r3;
  add.s32 %r5, %r5, %r4;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r5;
  ret;
}
)";

}  // namespace

TEST_CASE("310 an expanded division holds the scheduler's issue port and the SFU pipe") {
  auto prog = load(kDivs);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  GpuConfig cfg;
  cfg.core.sub_partitions = 1;  // both warps on one scheduler
  cfg.pipes.div_f32 = {30, 10, 2};
  cfg.pipes.sfu.interval = 8;
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 4);
  func::LaunchConfig launch{"divs", {1, 1, 1}, {64, 1, 1}, 0, {}};
  put(launch.params, out);
  auto r = run_timing(*prog, mem, launch, cfg, traced());
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  const auto divs = issues_of(*r, 11);
  REQUIRE(divs.size() == 2);
  const uint64_t d0 = divs[0].cycle;
  // Nothing issues while the first division's sequence does (10 cycles).
  for (const auto& i : r->trace.issues) CHECK_FALSE((i.cycle > d0 && i.cycle < d0 + 10));
  // The first warp's independent add takes the port back at once.
  const auto indep = issues_of(*r, 12);
  REQUIRE(indep.size() == 2);
  CHECK(indep[0].slot == divs[0].slot);
  CHECK(indep[0].cycle == d0 + 10);
  // The other warp's division waits for the SFU: 2 of its instructions x 8 cycles.
  CHECK(divs[1].cycle == d0 + 16);
  // The dependent add waits for the division's latency.
  const auto dep = issues_of(*r, 13);
  REQUIRE(dep.size() == 2);
  CHECK(dep[0].slot == divs[0].slot);
  CHECK(dep[0].cycle == d0 + 30);
  float v = 0;
  REQUIRE(mem.read(out, &v, 4));
  CHECK(v == 7.0f);  // 3 / 3 + (3 + 3)
}

TEST_CASE("310 integer multiplies issue to their own pipe, beside the INT pipe") {
  auto prog = load(kImad);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  for (int imad_interval : {2, 4}) {
    GpuConfig cfg;
    cfg.pipes.integer.interval = 2;
    cfg.pipes.imad.interval = imad_interval;
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 4);
    func::LaunchConfig launch{"imad", {1, 1, 1}, {32, 1, 1}, 0, {}};
    put(launch.params, out);
    auto r = run_timing(*prog, mem, launch, cfg, traced());
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    const auto mul1 = issue_cycles(*r, 10), shl = issue_cycles(*r, 11),
               mul2 = issue_cycles(*r, 12);
    REQUIRE((mul1.size() == 1 && shl.size() == 1 && mul2.size() == 1));
    CHECK(shl[0] == mul1[0] + 1);                    // the INT pipe is free
    CHECK(mul2[0] == mul1[0] + uint64_t(imad_interval));  // the IMAD pipe is not
    uint32_t v = 0;
    REQUIRE(mem.read(out, &v, 4));
    CHECK(v == 49u + 56u + 35u);
  }
}

namespace {

// One warp (issue 25, gen2 spmv_csr_warp): a row's start comes from memory (row_ptr[0]); four
// value loads at start + lane, + 32, + 64, + 96 (their addresses computed from that load's result
// in the window), each followed by its use.
constexpr const char* kRow = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry row(.param .u64 ptr, .param .u64 val, .param .u64 out)
{
  .reg .f32 %f<10>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [ptr];
  ld.param.u64 %rd2, [val];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  ld.global.u32 %r2, [%rd1];
  add.s32 %r3, %r2, %r1;
  mul.wide.s32 %rd4, %r3, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  add.f32 %f2, %f1, %f1;
  ld.global.f32 %f3, [%rd5+128];
  add.f32 %f4, %f3, %f2;
  ld.global.f32 %f5, [%rd5+256];
  add.f32 %f6, %f5, %f4;
  ld.global.f32 %f7, [%rd5+384];
  add.f32 %f8, %f7, %f6;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd3, %rd6;
  st.global.f32 [%rd7], %f8;
  ret;
}
)";

// One warp: a load, an IEEE division of it, the division's use, then an independent load and
// its use.
constexpr const char* kDivLoad = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry divload(.param .u64 in, .param .u64 out)
{
  .reg .f32 %f<10>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  div.rn.f32 %f2, %f1, 0f40400000;
  add.f32 %f3, %f2, %f2;
  ld.global.f32 %f4, [%rd4+4096];
  add.f32 %f5, %f4, %f3;
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f5;
  ret;
}
)";

// One warp: an atomic add whose old value is used (an ATOMG), then one whose old value nothing
// reads (a RED in the SASS), then the use of the first.
constexpr const char* kAtom = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry atom(.param .u64 p, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  atom.global.add.u32 %r2, [%rd4], 1;
  add.s64 %rd5, %rd4, 4096;
  atom.global.add.u32 %r3, [%rd5], 1;
  add.s32 %r4, %r2, 5;
  add.s64 %rd6, %rd2, %rd3;
  st.global.u32 [%rd6], %r4;
  ret;
}
)";

// Runs `entry` (one warp) with `buffers` buffers of 8 KiB, filled by `init` first.
using Init = std::function<void(func::DeviceMemory&, const std::vector<uint64_t>&)>;
std::optional<TimingResult> run_small(const char* ptx, const char* entry, int buffers,
                                      const GpuConfig& cfg, func::DeviceMemory& mem,
                                      std::vector<uint64_t>& addr, const Init& init = {}) {
  auto prog = load(ptx);
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  func::LaunchConfig launch{entry, {1, 1, 1}, {32, 1, 1}, 0, {}};
  for (int b = 0; b < buffers; ++b) {
    addr.push_back(mem.allocate("b" + std::to_string(b), 8192));
    put(launch.params, addr.back());
  }
  if (init) init(mem, addr);
  auto r = run_timing(*prog, mem, launch, cfg, traced());
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  return std::move(*r);
}

}  // namespace

TEST_CASE("310 the compiler's schedule: loads whose address comes from an earlier load leave once its data is back") {
  // gen2 spmv_csr_warp: the row's bounds come from row_ptr, and ptxas issues the unrolled body's
  // column and value loads together once they are back (scripts/microbench/gen2-sass/
  // sparse.sass: 11 LDGs back to back). The four value loads leave back to back before the
  // first use, once the row start's data is back (the model did so before only for addresses
  // from registers loaded before the warp's window: here each value load waited for the
  // previous use, 700 cycles apart).
  GpuConfig cfg;
  func::DeviceMemory mem;
  std::vector<uint64_t> a;
  auto r = run_small(kRow, "row", 3, cfg, mem, a,
                     [](func::DeviceMemory& m, const std::vector<uint64_t>& b) {
                       const int32_t start_at = 2;  // row_ptr[0]
                       REQUIRE(m.write(b[0], &start_at, 4));
                       std::vector<float> val(256);  // val[i] = i
                       for (size_t i = 0; i < val.size(); ++i) val[i] = float(i);
                       REQUIRE(m.write(b[1], val.data(), val.size() * 4));
                     });
  const std::string text = kRow;
  const auto start = issues_of(*r, line_of(text, "ld.global.u32 %r2")),
             use1 = issues_of(*r, line_of(text, "add.f32 %f2"));
  REQUIRE(start.size() == 1);
  REQUIRE(use1.size() == 1);
  std::vector<uint64_t> loads;
  for (const char* what : {"ld.global.f32 %f1", "ld.global.f32 %f3", "ld.global.f32 %f5",
                           "ld.global.f32 %f7"}) {
    const auto l = issues_of(*r, line_of(text, what));
    REQUIRE(l.size() == 1);
    loads.push_back(l[0].cycle);
  }
  INFO("loads at " << loads[0] << " " << loads[1] << " " << loads[2] << " " << loads[3]
                    << ", first use at " << use1[0].cycle << ", row start at " << start[0].cycle);
  for (size_t k = 1; k < loads.size(); ++k) {
    CHECK(loads[k] > loads[k - 1]);
    CHECK(loads[k] < use1[0].cycle);
  }
  CHECK(loads[3] - loads[0] <= 4);  // back to back (the load/store pipe and the LSU queue)
  const auto add = issues_of(*r, line_of(text, "add.s32 %r3"));
  REQUIRE(add.size() == 1);
  CHECK(add[0].cycle > start[0].cycle + 200);  // the row start came from DRAM
  // Lane l sums val[s], 2 val[s] (s = 2 + l), val[s + 32], val[s + 64], val[s + 96].
  float out[32];
  REQUIRE(mem.read(a[2], out, sizeof(out)));
  for (int l = 0; l < 32; ++l) CHECK(out[l] == float(5 * (2 + l) + 192));
}

TEST_CASE("310 the compiler's schedule: no load moves above an IEEE division's slow path") {
  // ptxas wraps div.rn.f32's fast path and the CALL to its slow path in BSSY ... BSYNC and moves
  // no later load above it (gen2 pagerank_pull's SASS: each iteration's loads after the previous
  // division's BSYNC). The independent load leaves once the division's result is back, not
  // while its use waits.
  GpuConfig cfg;
  func::DeviceMemory mem;
  std::vector<uint64_t> a;
  auto r = run_small(kDivLoad, "divload", 2, cfg, mem, a);
  const std::string text = kDivLoad;
  const auto div = issues_of(*r, line_of(text, "div.rn.f32")),
             use = issues_of(*r, line_of(text, "add.f32 %f3")),
             load2 = issues_of(*r, line_of(text, "ld.global.f32 %f4"));
  REQUIRE(div.size() == 1);
  REQUIRE(use.size() == 1);
  REQUIRE(load2.size() == 1);
  CHECK(use[0].cycle == div[0].cycle + static_cast<uint64_t>(cfg.pipes.div_f32.latency));
  CHECK(load2[0].cycle > use[0].cycle);
  // An approximate division (div.approx.f32: MUFU.RCP and a multiply, no slow path) holds back
  // nothing: the load leaves while the use waits.
  std::string approx = kDivLoad;
  approx.replace(approx.find("div.rn.f32"), 10, "div.approx.f32");
  func::DeviceMemory mem2;
  std::vector<uint64_t> b;
  auto r2 = run_small(approx.c_str(), "divload", 2, cfg, mem2, b);
  const auto use_b = issues_of(*r2, line_of(approx, "add.f32 %f3")),
             load_b = issues_of(*r2, line_of(approx, "ld.global.f32 %f4"));
  REQUIRE(use_b.size() == 1);
  REQUIRE(load_b.size() == 1);
  CHECK(load_b[0].cycle < use_b[0].cycle);
}

TEST_CASE("310 an atomic whose old value is read returns l2.atomic_return_latency later; a RED does not wait") {
  // latency/atomics.cu (H100 and H200): a dependent chain of L2-resident ATOMG.E.ADD takes
  // 390-438 cycles a link against 319-343 for LDG.E.STRONG.GPU; the preset's 95 cycles are that
  // difference beyond the model's L2 atomic unit. ptxas makes an atomic whose old value nothing
  // reads a RED, which returns nothing to wait for.
  GpuConfig cfg;
  auto use_cycle = [&](int64_t extra, uint64_t& red_done) {
    cfg.l2.atomic_return_latency = extra;
    func::DeviceMemory mem;
    std::vector<uint64_t> a;
    auto r = run_small(kAtom, "atom", 2, cfg, mem, a);
    const std::string text = kAtom;
    const auto atom = issues_of(*r, line_of(text, "atom.global.add.u32 %r2")),
               use = issues_of(*r, line_of(text, "add.s32 %r4"));
    REQUIRE(atom.size() == 1);
    REQUIRE(use.size() == 1);
    uint32_t out = 0, p = 0;
    REQUIRE(mem.read(a[1], &out, 4));
    REQUIRE(mem.read(a[0], &p, 4));
    CHECK(out == 5u);  // old value 0, plus 5
    CHECK(p == 1u);
    red_done = r->cycles;
    return use[0].cycle - atom[0].cycle;
  };
  uint64_t done0 = 0, done95 = 0;
  const uint64_t base = use_cycle(0, done0);
  CHECK(use_cycle(95, done95) == base + 95);
  CHECK(use_cycle(7, done95) == base + 7);
  // Nothing reads either old value: two REDs, the same cycles whatever the return latency.
  std::string reds = kAtom;
  reds.replace(reds.find("add.s32 %r4, %r2, 5;"), 20, "mov.u32 %r4, 5;     ");
  auto total = [&](int64_t extra) {
    cfg.l2.atomic_return_latency = extra;
    func::DeviceMemory mem;
    std::vector<uint64_t> a;
    return run_small(reds.c_str(), "atom", 2, cfg, mem, a)->cycles;
  };
  CHECK(total(95) == total(0));
}
