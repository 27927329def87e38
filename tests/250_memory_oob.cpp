// Out-of-bounds and misaligned accesses stop the launch with a memcheck-style report; trap too.
#include "21x_sim.h"
#include "23x_ops_ptx.h"

using namespace warplab;
using warplab::test::Sim;

TEST_CASE("out-of-bounds global write: kernel, block, thread, address, PTX and CUDA line") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const uint64_t A = s.zeros<float>("a", 100);
  auto r = s.run("_Z3oobPfi", {2, 1, 1}, {64, 1, 1}, {A, 100});
  REQUIRE(r.fault.has_value());
  const auto& f = *r.fault;
  CHECK(f.kind == func::LaunchFault::Kind::OutOfBounds);
  CHECK(f.kernel == "_Z3oobPfi");
  CHECK(f.block.x == 1);
  CHECK(f.thread.x == 36);  // first lane of block 1 past element 99: t = 64 + 36 = 100
  CHECK(f.address == A + 400);
  CHECK(f.size == 4);
  CHECK(f.is_write);
  CHECK(f.space == ptx::Space::Global);
  CHECK(f.ptx_line == 522);
  CHECK(f.src_file == "/tmp/px/ops.cu");
  CHECK(f.src_line == 51);
  CHECK(f.message.find("Invalid __global__ write of size 4 bytes") != std::string::npos);
  CHECK(f.message.find("by thread (36,0,0) in block (1,0,0)") != std::string::npos);
  CHECK(f.message.find("0 bytes after the nearest allocation 'a'") != std::string::npos);
  CHECK(f.message.find("/tmp/px/ops.cu:51") != std::string::npos);
  // Writes made before the fault remain; block 0 completed.
  auto a = s.read<float>(A, 100);
  CHECK(a[0] == 1.0f);
  CHECK(a[63] == 1.0f);
  CHECK(r.stats.blocks == 1);
}

TEST_CASE("misaligned global access") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const uint64_t A = s.zeros<float>("a", 256);
  auto r = s.run("_Z3oobPfi", {1, 1, 1}, {32, 1, 1}, {A + 2, 100});
  REQUIRE(r.fault.has_value());
  CHECK(r.fault->kind == func::LaunchFault::Kind::Misaligned);
  CHECK(r.fault->thread.x == 0);
  CHECK(r.fault->message.find("misaligned") != std::string::npos);
}

TEST_CASE("trap stops the launch and names the thread") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const uint64_t A = s.zeros<int>("a", 64);
  auto r = s.run("_Z5trapkPi", {1, 1, 1}, {64, 1, 1}, {A});
  REQUIRE(r.fault.has_value());
  CHECK(r.fault->kind == func::LaunchFault::Kind::Trap);
  CHECK(r.fault->thread.x == 5);
  CHECK(r.fault->src_line == 53);
}

TEST_CASE("shared-memory out of bounds, hand-written PTX") {
  Sim s(R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u32 k_param_0)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b8 sm[128];
  ld.param.u32 %r1, [k_param_0];
  mov.u32 %r2, sm;
  add.s32 %r3, %r2, %r1;
  st.shared.u32 [%r3], %r1;
  ret;
}
)");
  auto ok = s.run("k", {1, 1, 1}, {32, 1, 1}, {124});
  CHECK(!ok.fault);
  auto r = s.run("k", {1, 1, 1}, {32, 1, 1}, {128});
  REQUIRE(r.fault.has_value());
  CHECK(r.fault->space == ptx::Space::Shared);
  CHECK(r.fault->address == 128);
  CHECK(r.fault->message.find("Invalid __shared__ write of size 4 bytes") != std::string::npos);
}
