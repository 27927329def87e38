// Divergence and reconvergence on the SIMT stack, checked through whole kernels.
#include "21x_sim.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

// __global__ void vadd(const float* a, const float* b, float* c, int n)
//   { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
const char* kVadd = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry _Z4vaddPKfS0_Pfi(
	.param .u64 _Z4vaddPKfS0_Pfi_param_0,
	.param .u64 _Z4vaddPKfS0_Pfi_param_1,
	.param .u64 _Z4vaddPKfS0_Pfi_param_2,
	.param .u32 _Z4vaddPKfS0_Pfi_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<11>;
	.loc	1 1 0
	ld.param.u64 	%rd1, [_Z4vaddPKfS0_Pfi_param_0];
	ld.param.u64 	%rd2, [_Z4vaddPKfS0_Pfi_param_1];
	ld.param.u64 	%rd3, [_Z4vaddPKfS0_Pfi_param_2];
	ld.param.u32 	%r2, [_Z4vaddPKfS0_Pfi_param_3];
	.loc	1 1 30
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB1_2;
	.loc	1 2 5
	cvta.to.global.u64 	%rd4, %rd1;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	cvta.to.global.u64 	%rd7, %rd2;
	add.s64 	%rd8, %rd7, %rd5;
	ld.global.f32 	%f1, [%rd8];
	ld.global.f32 	%f2, [%rd6];
	add.f32 	%f3, %f2, %f1;
	cvta.to.global.u64 	%rd9, %rd3;
	add.s64 	%rd10, %rd9, %rd5;
	st.global.f32 	[%rd10], %f3;
$L__BB1_2:
	ret;
}
	.file	1 "/tmp/vadd.cu"
)";

}  // namespace

TEST_CASE("vector add: partial last block, bounds check by the kernel") {
  Sim s(kVadd);
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 1000.0f - i;
  const uint64_t A = s.buffer("a", a), B = s.buffer("b", b), C = s.zeros<float>("c", n);
  auto r = s.run("_Z4vaddPKfS0_Pfi", {4, 1, 1}, {256, 1, 1}, {A, B, C, uint64_t(n)});
  REQUIRE(!r.fault);
  auto c = s.read<float>(C, n);
  for (int i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  // 4 blocks x 8 warps run the 12-instruction prologue incl. bra; 1000 threads in 32 full warps
  // minus... counted independently: warps with any lane i < n take the add path.
  CHECK(r.stats.blocks == 4);
  CHECK(r.stats.warps == 32);
  CHECK(r.stats.threads == 1024);
  // Warp instructions: every warp issues 10 (4 ld.param, 3 mov, mad, setp, bra) + ret = 11;
  // warps with at least one i < n issue 11 more. 1000 threads -> warps 0..31 with lanes < 1000:
  // warp 31 covers 992..1023, so all 32 warps take the body.
  CHECK(r.stats.warp_instructions == 32 * (10 + 11 + 1));
  // Thread instructions: 1024 * 9 prologue, the bra only where its guard holds (24 threads with
  // i >= n), 1000 * 11 body, 1024 ret.
  CHECK(r.stats.thread_instructions == 1024 * 9 + 24 + 1000 * 11 + 1024);
  // Line 2 holds the body and the ret after the label (.loc stays in force).
  CHECK(r.stats.by_src_line.at({1, 2}).warp_instructions == 32 * 12);
  CHECK(r.stats.by_ptx_line.size() == 22);
}
