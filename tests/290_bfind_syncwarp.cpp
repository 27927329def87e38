// __ffs (bfind.shiftamt of brev) and __syncwarp (bar.warp.sync) through a whole nvcc kernel,
// checked against std::countr_zero / std::countl_zero computed here.
#include <bit>

#include "21x_sim.h"

namespace {
const char* kFfsPtx = R"(
.version 9.0
.target sm_90
.address_size 64
	// .globl	ffs_sync
.visible .entry ffs_sync(
	.param .u64 ffs_sync_param_0,
	.param .u64 ffs_sync_param_1,
	.param .u32 ffs_sync_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<15>;
	.reg .b64 	%rd<8>;
	ld.param.u64 	%rd1, [ffs_sync_param_0];
	ld.param.u64 	%rd2, [ffs_sync_param_1];
	ld.param.u32 	%r2, [ffs_sync_param_2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd3, %rd1;
	mul.wide.s32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.u32 	%r6, [%rd5];
	brev.b32 	%r7, %r6;
	bfind.shiftamt.u32 	%r8, %r7;
	bar.warp.sync 	-1;
	ld.global.u32 	%r9, [%rd5];
	or.b32  	%r10, %r9, 1;
	clz.b32 	%r11, %r10;
	xor.b32  	%r12, %r11, 31;
	mad.lo.s32 	%r13, %r12, 100, %r8;
	add.s32 	%r14, %r13, 1;
	cvta.to.global.u64 	%rd6, %rd2;
	add.s64 	%rd7, %rd6, %rd4;
	st.global.u32 	[%rd7], %r14;
$L__BB0_2:
	ret;
}
)";
}  // namespace

TEST_CASE("290 bfind.shiftamt and bar.warp.sync: __ffs and __clz of every lane") {
  using namespace warplab;
  test::Sim sim(kFfsPtx);
  const int n = 70;  // a partial third warp
  std::vector<uint32_t> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = i == 0 ? 0u : (0x80000000u >> (i % 32)) | (i > 40 ? 1u << 31 : 0u);
  const uint64_t dx = sim.buffer("x", x), dy = sim.zeros<int32_t>("y", n);
  auto r = sim.run("ffs_sync", {3, 1, 1}, {32, 1, 1}, {dx, dy, uint64_t(n)});
  REQUIRE_FALSE(r.fault.has_value());
  const auto y = sim.read<int32_t>(dy, n);
  for (int i = 0; i < n; ++i) {
    const int ffs = x[i] == 0 ? 0 : std::countr_zero(x[i]) + 1;
    const int msb = 31 - std::countl_zero(x[i] | 1u);
    CHECK_MESSAGE(y[i] == ffs + 100 * msb, "i=" << i);
  }
}
