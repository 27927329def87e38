// Launches the GPU refuses are refused here too, before anything runs: a block larger than the
// kernel's .maxntid or of another shape than its .reqntid, more static shared memory or more
// registers than a kernel may have. Uninitialised .global variables read as zeros.
#include <string>

#include "21x_sim.h"

using namespace warplab;

namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64

.global .align 4 .u32 counter;
.global .align 4 .b8 table[64];

.visible .entry bounded(.param .u64 out)
.maxntid 256, 1, 1
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ret;
}

.visible .entry exact(.param .u64 out)
.reqntid 32, 4
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ret;
}

.visible .entry read_globals(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [counter];
  ld.global.u32 %r2, [table+60];
  add.u32 %r3, %r1, %r2;
  add.u32 %r3, %r3, 7;
  st.global.u32 [%rd1], %r3;
  ret;
}

.visible .entry too_much_shared()
{
  .shared .align 4 .b8 a[32768];
  .shared .align 4 .b8 b[32768];
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  mov.u64 %rd1, a;
  mov.u64 %rd2, b;
  st.shared.u32 [%rd1], %r1;
  st.shared.u32 [%rd2], %r1;
  ret;
}

.func many_regs()
{
  .reg .b32 %q<40000>;
  ret;
}

.visible .entry too_many_registers()
{
  .reg .b32 %r<40000>;
  call.uni many_regs;
  ret;
}
)";

std::string launch_error(test::Sim& sim, const std::string& kernel, func::Dim3 block,
                         const std::vector<uint64_t>& args) {
  func::LaunchConfig lc{kernel, {1, 1, 1}, block, 0, sim.params(kernel, args)};
  auto r = func::run_functional(*sim.program, sim.mem, lc, {});
  if (r) FAIL("expected " << kernel << " to be refused");
  return r.error().to_string();
}

}  // namespace

TEST_CASE("227 .maxntid and .reqntid: a block outside them is refused, as the GPU refuses it") {
  test::Sim sim(kPtx, "limits.ptx");
  const uint64_t out = sim.zeros<uint32_t>("out", 1);
  const std::string big = launch_error(sim, "bounded", {512, 1, 1}, {out});
  CHECK(big.find("limits.ptx:8:") == 0);
  CHECK(big.find("allows at most 256") != std::string::npos);
  CHECK(launch_error(sim, "bounded", {16, 17, 1}, {out}).find(".maxntid") != std::string::npos);
  sim.run("bounded", {2, 1, 1}, {256, 1, 1}, {out});
  sim.run("bounded", {1, 1, 1}, {16, 16, 1}, {out});  // 256 threads in any shape

  const std::string shape = launch_error(sim, "exact", {128, 1, 1}, {out});
  CHECK(shape.find("limits.ptx:16:") == 0);
  CHECK(shape.find("not the kernel's .reqntid (32,4,1)") != std::string::npos);
  CHECK(!launch_error(sim, "exact", {32, 2, 1}, {out}).empty());
  sim.run("exact", {1, 1, 1}, {32, 4, 1}, {out});
}

TEST_CASE("227 uninitialised .global variables are zeros") {
  test::Sim sim(kPtx, "limits.ptx");
  const uint64_t out = sim.zeros<uint32_t>("out", 1);
  sim.run("read_globals", {1, 1, 1}, {1, 1, 1}, {out});
  CHECK(sim.read<uint32_t>(out, 1)[0] == 7);
}

TEST_CASE("227 a kernel's static shared memory and registers are held to their limits at load") {
  test::Sim sim(kPtx, "limits.ptx");
  const std::string shared = launch_error(sim, "too_much_shared", {32, 1, 1}, {});
  CHECK(shared.find("limits.ptx:") == 0);
  CHECK(shared.find("65536 bytes of static .shared memory; ptxas allows at most 49152") !=
        std::string::npos);
  const std::string regs = launch_error(sim, "too_many_registers", {32, 1, 1}, {});
  CHECK(regs.find("and the functions it calls declare 80000 registers") != std::string::npos);
}

TEST_CASE("227 one shared-memory limit per block: 232,448 bytes (227 KB on the H100)") {
  CHECK(func::kMaxSharedPerBlock == 232448);
  test::Sim sim(R"(.version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, dyn;
  ret;
}
)",
                "dyn.ptx");
  func::LaunchConfig ok{"k", {1, 1, 1}, {32, 1, 1}, 232448, {}};
  CHECK(func::run_functional(*sim.program, sim.mem, ok, {}));
  func::LaunchConfig over{"k", {1, 1, 1}, {32, 1, 1}, 232449, {}};
  auto r = func::run_functional(*sim.program, sim.mem, over, {});
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("the limit is 232448") != std::string::npos);
}
