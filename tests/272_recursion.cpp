// Recursive device functions (sim/func/call_frames.h): direct and mutual recursion with divergent
// depths, values that live across the recursive calls (registers, predicates, .param), threads
// that exit deep inside a recursion, the depth limit, and the one thing refused (a recursive
// function with .local memory), which stops only the kernels that call it. Expected values come
// from the same recursions written in C++.
#include <sstream>

#include "21x_sim.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

const char* kRecursionPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 r) od(.param .b32 n);

// fib(n): two recursive calls; n (%r1) and the first result (%r3) live across the second call.
.func (.param .b32 r) fib(.param .b32 n)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	ld.param.b32 	%r1, [n];
	setp.lt.s32 	%p1, %r1, 2;
	@%p1 bra 	$L_base;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call (ra), fib, (a);
	ld.param.b32 	%r3, [ra];
	}
	add.s32 	%r4, %r1, -2;
	{
	.param .b32 a;
	st.param.b32 	[a], %r4;
	.param .b32 ra;
	call (ra), fib, (a);
	ld.param.b32 	%r5, [ra];
	}
	add.s32 	%r6, %r3, %r5;
	st.param.b32 	[r], %r6;
	ret;
$L_base:
	st.param.b32 	[r], %r1;
	ret;
}

// ev(n) = n == 0 ? 0 : od(n - 1) + (n > 3 ? 100 : 1); the predicate %p2 lives across the call.
.func (.param .b32 r) ev(.param .b32 n)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	ld.param.b32 	%r1, [n];
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L_zero;
	setp.gt.s32 	%p2, %r1, 3;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call (ra), od, (a);
	ld.param.b32 	%r3, [ra];
	}
	selp.b32 	%r4, 100, 1, %p2;
	add.s32 	%r5, %r3, %r4;
	st.param.b32 	[r], %r5;
	ret;
$L_zero:
	st.param.b32 	[r], 0;
	ret;
}

// od(n) = n == 0 ? 0 : ev(n - 1) + 1000 * n
.func (.param .b32 r) od(.param .b32 n)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	ld.param.b32 	%r1, [n];
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L_zero;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call (ra), ev, (a);
	ld.param.b32 	%r3, [ra];
	}
	mad.lo.s32 	%r5, %r1, 1000, %r3;
	st.param.b32 	[r], %r5;
	ret;
$L_zero:
	st.param.b32 	[r], 0;
	ret;
}

// down(n, stop): the thread exits when n == stop; else n + down(n - 1, stop), 0 at n == 0.
.func (.param .b32 r) down(.param .b32 n, .param .b32 stop)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<6>;
	ld.param.b32 	%r1, [n];
	ld.param.b32 	%r2, [stop];
	setp.eq.s32 	%p1, %r1, %r2;
	@%p1 exit; // EXIT
	setp.eq.s32 	%p2, %r1, 0;
	@%p2 bra 	$L_zero;
	add.s32 	%r3, %r1, -1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r3;
	.param .b32 b;
	st.param.b32 	[b], %r2;
	.param .b32 ra;
	call (ra), down, (a, b);
	ld.param.b32 	%r4, [ra];
	}
	add.s32 	%r5, %r4, %r1;
	st.param.b32 	[r], %r5;
	ret;
$L_zero:
	st.param.b32 	[r], 0;
	ret;
}

.func forever(.param .b32 n)
{
	.reg .b32 	%r<3>;
	ld.param.b32 	%r1, [n];
	add.s32 	%r2, %r1, 1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	call forever, (a); // FOREVER
	}
	ret;
}

// A recursive function with a local array: refused (one fixed frame for every activation).
.func (.param .b32 r) with_local(.param .b32 n)
{
	.local .align 4 .b8 	__local_depot0[16];
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<2>;
	mov.u64 	%rd1, __local_depot0; // LOCAL
	ld.param.b32 	%r1, [n];
	st.local.u32 	[%rd1], %r1;
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L_zero;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call (ra), with_local, (a);
	ld.param.b32 	%r3, [ra];
	}
$L_zero:
	ld.local.u32 	%r3, [%rd1];
	st.param.b32 	[r], %r3;
	ret;
}

.visible .entry fibs(.param .u64 pout, .param .u32 pmod)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [pout];
	ld.param.u32 	%r4, [pmod];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %tid.x;
	rem.u32 	%r2, %r1, %r4;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call (ra), fib, (a);
	ld.param.b32 	%r3, [ra];
	}
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r3;
	ret;
}

.visible .entry parity(.param .u64 pout)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %tid.x;
	rem.u32 	%r2, %r1, 23;
	{
	.param .b32 a;
	st.param.b32 	[a], %r2;
	.param .b32 ra;
	call (ra), ev, (a);
	ld.param.b32 	%r3, [ra];
	}
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r3;
	ret;
}

.visible .entry exits(.param .u64 pout)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %tid.x;
	// stop = tid % 3 == 0 ? tid % 7 : -1
	rem.u32 	%r2, %r1, 3;
	rem.u32 	%r4, %r1, 7;
	setp.eq.u32 	%p1, %r2, 0;
	selp.b32 	%r2, %r4, -1, %p1;
	{
	.param .b32 a;
	st.param.b32 	[a], 10;
	.param .b32 b;
	st.param.b32 	[b], %r2;
	.param .b32 ra;
	call (ra), down, (a, b);
	ld.param.b32 	%r3, [ra];
	}
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r3;
	ret;
}

.visible .entry runaway(.param .u64 pout)
{
	{
	.param .b32 a;
	st.param.b32 	[a], 0;
	call forever, (a);
	}
	ret;
}

.visible .entry uses_local(.param .u64 pout)
{
	.reg .b32 	%r<2>;
	{
	.param .b32 a;
	st.param.b32 	[a], 3;
	.param .b32 ra;
	call (ra), with_local, (a);
	ld.param.b32 	%r1, [ra];
	}
	ret;
}
)";

using test::line_of;

int32_t fib(int32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int32_t od(int32_t n);
int32_t ev(int32_t n) { return n == 0 ? 0 : od(n - 1) + (n > 3 ? 100 : 1); }
int32_t od(int32_t n) { return n == 0 ? 0 : ev(n - 1) + 1000 * n; }

}  // namespace

TEST_CASE("272 recursion: fib with divergent depths, values live across both calls") {
  Sim s(kRecursionPtx, "rec.ptx");
  const uint64_t O = s.zeros<int32_t>("out", 96);
  auto r = s.run("fibs", {1, 1, 1}, {96, 1, 1}, {O, 17});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<int32_t>(O, 96);
  for (int32_t t = 0; t < 96; ++t) {
    INFO("thread " << t);
    CHECK(out[t] == fib(t % 17));
  }
}

TEST_CASE("272 recursion: mutual recursion keeps predicates and .param across calls") {
  Sim s(kRecursionPtx, "rec.ptx");
  const uint64_t O = s.zeros<int32_t>("out", 64);
  auto r = s.run("parity", {2, 1, 1}, {64, 1, 1}, {O});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<int32_t>(O, 64);
  for (int32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    CHECK(out[t] == ev(t % 23));
  }
}

TEST_CASE("272 recursion: threads that exit deep inside leave the others' results intact") {
  Sim s(kRecursionPtx, "rec.ptx");
  const uint64_t O = s.buffer<int32_t>("out", std::vector<int32_t>(64, 7777));
  auto r = s.run("exits", {1, 1, 1}, {64, 1, 1}, {O});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<int32_t>(O, 64);
  for (int32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    // stop = t % 7 is in 0..6, always reached on the way down from 10: those threads exit.
    CHECK(out[t] == (t % 3 == 0 ? 7777 : 55));
  }
}

TEST_CASE("272 recursion: runaway recursion stops with a stack overflow fault at the call") {
  Sim s(kRecursionPtx, "rec.ptx");
  const uint64_t O = s.zeros<int32_t>("out", 1);
  auto r = s.run("runaway", {1, 1, 1}, {32, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->kind == func::LaunchFault::Kind::StackOverflow);
  CHECK(r.fault->ptx_line == line_of(kRecursionPtx, "// FOREVER"));
  CHECK(r.fault->message.find("Call stack overflow") != std::string::npos);
  CHECK(r.fault->message.find("1024 nested recursive calls") != std::string::npos);
  CHECK(r.fault->message.find("cudaLimitStackSize") != std::string::npos);
}

TEST_CASE("272 recursion: a recursive function with .local memory refuses only its kernels") {
  Sim s(kRecursionPtx, "rec.ptx");
  const func::Program& p = *s.program;
  for (const char* ok : {"fibs", "parity", "exits", "runaway"}) {
    INFO(ok);
    CHECK(p.check_kernel(ok));
  }
  auto bad = p.check_kernel("uses_local");
  REQUIRE(!bad);
  INFO(bad.error().to_string());
  CHECK(bad.error().file == "rec.ptx");
  CHECK(bad.error().line == line_of(kRecursionPtx, "// LOCAL"));
  CHECK(bad.error().message.find("function 'with_local' (called from kernel 'uses_local') is "
                                 "recursive and keeps .local memory ('__local_depot0', used by "
                                 "'mov.u64") != std::string::npos);
}
