// What a module may contain that a kernel cannot run, and how loading treats it: the PTX constant
// WARP_SZ (CUDA's warpSize), the driver-reserved shared memory registers that cooperative groups
// read, and code WarpLab does not simulate (out-of-scope instructions, grid-wide sync),
// which refuses only the kernels that contain or call it, when they are used.
#include <sstream>

#include "21x_sim.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

const char* kMixedPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 r) fib(.param .b32 n)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	ld.param.b32 	%r1, [n];
	setp.lt.s32 	%p1, %r1, 2;
	mov.b32 	%r5, %r1;
	@%p1 bra 	$L_done;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call.uni (ra), fib, (a);
	ld.param.b32 	%r3, [ra];
	}
	add.s32 	%r5, %r3, %r1;
$L_done:
	st.param.b32 	[r], %r5;
	ret;
}

.func wide()
{
	.reg .b32 	%r<2>;
	.reg .f32 	%f<2>;
	cvt.rn.f32 	%f1, %r1;
	ret;
}

.visible .entry good(.param .u64 pout)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, WARP_SZ;
	rem.u32 	%r3, %r1, %r2;
	mad.lo.u32 	%r3, %r2, 100, %r3;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r3;
	ret;
}

.visible .entry recursive(.param .u64 pout)
{
	.reg .b32 	%r<4>;
	{
	.param .b32 a;
	st.param.b32 	[a], 5;
	.param .b32 ra;
	call.uni (ra), fib, (a); // CALL fib
	ld.param.b32 	%r1, [ra];
	}
	ret;
}

.visible .entry calls_wide(.param .u64 pout)
{
	call.uni wide;
	ret;
}

.visible .entry gridsync(.param .u64 pout)
{
	.reg .b32 	%r<4>;
	mov.u32 	%r1, %envreg2; // ENVREG
	ret;
}

.visible .entry reserved(.param .u64 pout)
{
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<8>;
	.shared .align 4 .b8 own[100];
	ld.param.u64 	%rd1, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %reserved_smem_offset_begin;
	mov.u32 	%r2, %reserved_smem_offset_end;
	mov.u32 	%r3, %reserved_smem_offset_cap;
	mov.u32 	%r4, %reserved_smem_offset_0;
	mov.u32 	%r5, %reserved_smem_offset_1;
	st.global.u32 	[%rd1], %r1;
	st.global.u32 	[%rd1+4], %r2;
	st.global.u32 	[%rd1+8], %r3;
	st.global.u32 	[%rd1+12], %r4;
	st.global.u32 	[%rd1+16], %r5;
	mov.u32 	%r6, own;
	st.global.u32 	[%rd1+20], %r6;
	// cooperative groups keep 288 bytes at offset_1: the last word is writable and reads back
	cvt.u64.u32 	%rd2, %r5;
	cvta.shared.u64 	%rd3, %rd2;
	st.u32 	[%rd3+284], 77;
	ld.u32 	%r7, [%rd3+284];
	st.global.u32 	[%rd1+24], %r7;
	ret;
}
)";

using test::line_of;

}  // namespace

TEST_CASE("a module loads although some kernels in it cannot run; those are refused when used") {
  Sim s(kMixedPtx, "mixed.ptx");
  const func::Program& p = *s.program;
  CHECK(p.check_kernel("good"));
  CHECK(p.check_kernel("reserved"));

  CHECK(p.check_kernel("recursive"));  // recursion runs (tests/272_recursion.cpp)

  auto wide = p.check_kernel("calls_wide");
  REQUIRE(!wide);
  CHECK(wide.error().line == line_of(kMixedPtx, "cvt.rn.f32"));
  CHECK(wide.error().message.find("cvt needs a destination and a source type") != std::string::npos);
  CHECK(wide.error().message.find("called from kernel 'calls_wide'") != std::string::npos);

  auto grid = p.check_kernel("gridsync");
  REQUIRE(!grid);
  CHECK(grid.error().line == line_of(kMixedPtx, "ENVREG"));
  CHECK(grid.error().message.find("cooperative launches and grid-wide sync are not supported") !=
        std::string::npos);
  CHECK(grid.error().message.find("'%envreg2'") != std::string::npos);

  // Launching a refused kernel is an error (not a fault) with the same text.
  func::LaunchConfig lc{"gridsync", {1, 1, 1}, {32, 1, 1}, 0, std::vector<uint8_t>(8)};
  auto r = func::run_functional(p, s.mem, lc);
  REQUIRE(!r);
  CHECK(r.error().to_string() == grid.error().to_string());

  // The good kernel runs, and WARP_SZ is 32.
  const uint64_t O = s.zeros<uint32_t>("out", 64);
  auto g = s.run("good", {1, 1, 1}, {64, 1, 1}, {O});
  REQUIRE(!g.fault);
  const auto out = s.read<uint32_t>(O, 64);
  for (uint32_t t = 0; t < 64; ++t) CHECK(out[t] == 3200 + t % 32);
}

TEST_CASE("%reserved_smem_offset_*: a 1 KB region apart from the kernel's own shared memory") {
  Sim s(kMixedPtx, "mixed.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 8);
  auto r = s.run("reserved", {2, 1, 1}, {64, 1, 1}, {O});
  REQUIRE(!r.fault);
  const auto v = s.read<uint32_t>(O, 8);
  const uint32_t begin = v[0], end = v[1], cap = v[2], off0 = v[3], off1 = v[4], own = v[5];
  CHECK(cap == 1024);
  CHECK(end - begin == cap);
  CHECK(begin >= own + 100);  // after the kernel's own 100 bytes
  CHECK(off0 >= begin);
  CHECK(off1 >= begin);
  CHECK(off1 + 288 <= end);  // cooperative groups rely on 288 bytes there
  CHECK(off1 % 8 == 0);
  CHECK(v[6] == 77);
}
