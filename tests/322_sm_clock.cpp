// The SM clock a launch runs at (sim/timing/sm_clock.h): a kernel that issues mma.sync runs at
// core.mma_clock_mhz (one that calls a function issuing it too), one that issues wgmma at
// core.wgmma_clock_mhz, any other at core.clock_mhz; the clock turns the same cycles into a
// longer time, exactly. And h100-sxm's mma_clock_mhz is the committed H100 measurement
// (scripts/microbench/h100-sm-clock-2026-11-27.tsv: the median of the mma.sync rows, to 1 MHz).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/sm_clock.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

// Kernel `tc` issues one mma.sync; `plain` an add; `caller` calls a .func that issues mma.sync.
constexpr const char* kKernels = R"(.version 8.0
.target sm_90
.address_size 64
.func helper(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r0, 0;
  mov.b32 %r1, 0;
  mov.b32 %r2, 0;
  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r3,%r4,%r5,%r6}, {%r0,%r0,%r0,%r0}, {%r1,%r1}, {%r2,%r2,%r2,%r2};
  st.global.b32 [%rd1], %r3;
  ret;
}
.visible .entry tc(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.b32 %r0, 0;
  mov.b32 %r1, 0;
  mov.b32 %r2, 0;
  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r3,%r4,%r5,%r6}, {%r0,%r0,%r0,%r0}, {%r1,%r1}, {%r2,%r2,%r2,%r2};
  st.global.b32 [%rd2], %r3;
  ret;
}
.visible .entry plain(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.b32 %r0, 1;
  add.s32 %r1, %r0, %r0;
  st.global.b32 [%rd2], %r1;
  ret;
}
.visible .entry caller(.param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  {
  .param .b64 p0;
  st.param.b64 [p0], %rd2;
  call.uni helper, (p0);
  }
  ret;
}
)";

const ptx::Function& function(const ptx::Module& m, const std::string& name) {
  for (const ptx::Function& f : m.functions)
    if (f.name == name) return f;
  FAIL("no function " << name);
  return m.functions.front();
}

}  // namespace

TEST_CASE("322 the launch clock: lower for kernels that issue mma.sync (or call one that does)") {
  auto m = ptx::parse_module(kKernels, "clock.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  CoreConfig core;
  core.clock_mhz = 1980;
  core.mma_clock_mhz = 1711;
  core.wgmma_clock_mhz = 0;
  const char* why = nullptr;
  CHECK(launch_clock_mhz(core, *m, function(*m, "tc"), &why) == 1711);
  CHECK(std::string(why) == "mma.sync");
  CHECK(launch_clock_mhz(core, *m, function(*m, "caller"), &why) == 1711);
  CHECK(launch_clock_mhz(core, *m, function(*m, "plain"), &why) == 1980);
  CHECK(std::string(why).empty());
  // 0 (or a value above the top clock) leaves the kernel at clock_mhz; wgmma's entry does not
  // apply to mma.sync.
  core.mma_clock_mhz = 0;
  core.wgmma_clock_mhz = 1500;
  CHECK(launch_clock_mhz(core, *m, function(*m, "tc")) == 1980);
  core.mma_clock_mhz = 2500;
  CHECK(launch_clock_mhz(core, *m, function(*m, "tc")) == 1980);
}

TEST_CASE("322 a lower clock turns the same cycles into a longer time, exactly") {
  auto m = ptx::parse_module(kKernels, "clock.ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  auto base = load_config("h100-sxm");
  REQUIRE(base);
  auto run = [&](const std::string& kernel, double mma_clock) {
    GpuConfig cfg = *base;
    cfg.core.mma_clock_mhz = mma_clock;
    func::DeviceMemory mem;
    const uint64_t out = mem.allocate("out", 8);
    func::LaunchConfig launch{kernel, {1, 1, 1}, {32, 1, 1}, 0, std::vector<uint8_t>(8)};
    std::memcpy(launch.params.data(), &out, 8);
    auto r = run_timing(*prog, mem, launch, cfg);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_FALSE(r->fault);
    return std::move(*r);
  };
  const TimingResult top = run("tc", 0), half = run("tc", 990);
  CHECK(top.clock_mhz == 1980);
  CHECK(half.clock_mhz == 990);
  CHECK(half.cycles == top.cycles);  // the clock changes time, not the cycles
  CHECK(top.kernel_time_us == double(top.cycles) / 1980);
  CHECK(half.kernel_time_us == double(top.cycles) / 990);
  CHECK(half.time_us == half.kernel_time_us + base->core.launch_overhead_us);
  // A kernel without mma.sync keeps the top clock whatever mma_clock_mhz says.
  const TimingResult plain = run("plain", 990);
  CHECK(plain.clock_mhz == 1980);
  CHECK(plain.kernel_time_us == double(plain.cycles) / 1980);
}

TEST_CASE("322 h100-sxm's mma.sync clock is the committed H100 measurement") {
  const std::string path =
      default_config_dir() + "/../scripts/microbench/h100-sm-clock-2026-11-27.tsv";
  std::ifstream f(path);
  REQUIRE_MESSAGE(f, "cannot read " << path);
  std::vector<double> mma, other;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("clock\t", 0) != 0) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    REQUIRE(cols.size() > 5);
    const std::string key = "ghz_median=";
    REQUIRE(cols[5].rfind(key, 0) == 0);
    const double ghz = std::stod(cols[5].substr(key.size()));
    (cols[1] == "mma" ? mma : other).push_back(ghz);
  }
  REQUIRE(mma.size() == 12);    // 2 sizes x cold/warm x 3 repetitions
  REQUIRE(other.size() == 24);  // the SIMT matmul and the FFMA loop, the same runs
  std::sort(mma.begin(), mma.end());
  const double median_mhz = 1000 * (mma[5] + mma[6]) / 2;
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  CHECK(std::abs(cfg->core.mma_clock_mhz - median_mhz) <= 1.0);
  // The kernels without tensor-core work ran at the preset's top clock (within 0.2%).
  for (double g : other) CHECK(std::abs(1000 * g - cfg->core.clock_mhz) < 0.002 * cfg->core.clock_mhz);
  // And the H200 preset inherits it.
  auto h200 = load_config("h200");
  REQUIRE(h200);
  CHECK(h200->core.mma_clock_mhz == cfg->core.mma_clock_mhz);
}
