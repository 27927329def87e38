// Program::load and launch checks: device-function calls with .param passing and divergent
// returns, local memory (__local_depot), .const data with initialisers, unsupported instructions
// rejected at load time with file:line, device printf, and launches that cannot start.
#include <cmath>

#include "21x_sim.h"
#include "23x_ops_ptx.h"

using namespace warplab;
using warplab::test::Sim;

TEST_CASE("call with .param arguments, divergent call sites, local array, __constant__ table") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const int n = 80;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0.125f * static_cast<float>(i % 23) - 1.0f;
  const uint64_t I = s.buffer("in", in), O = s.zeros<float>("out", n);
  const int sel = 21;
  auto r =
      s.run("_Z11calls_localPKfPfii", {2, 1, 1}, {40, 1, 1}, {I, O, uint64_t(n), uint64_t(sel)});
  REQUIRE(!r.fault);
  auto out = s.read<float>(O, n);
  const float coef[4] = {1.5f, -2.0f, 0.25f, 8.0f};
  for (int t = 0; t < n; ++t) {
    const float x = in[t];
    const int m = (t & 1) ? 4 : 3;
    float p = 0.f;
    for (int i = 0; i < m; ++i) p = std::fmaf(p, x, coef[i & 3]);
    if (x < 0) p = -p;
    const float want = p + in[(t + (sel & 15)) % n];
    INFO("t = " << t);
    CHECK(out[t] == want);
  }
  CHECK(s.program->local_bytes("_Z11calls_localPKfPfii") >= 64);
}

namespace {
// nvcc's PTX for: __global__ void hello(int x) { printf("x=%d\\n", x); }
constexpr const char* kHelloPtx = R"(.version 9.0
.target sm_90
.address_size 64
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[6] = {120, 61, 37, 100, 10};
.visible .entry _Z5helloi(
	.param .u32 _Z5helloi_param_0
)
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;
	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u32 	%r1, [_Z5helloi_param_0];
	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	st.local.u32 	[%rd2], %r1;
	mov.u64 	%rd3, $str;
	cvta.global.u64 	%rd4, %rd3;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0),
	vprintf,
	(
	param0,
	param1
	);
	ld.param.b32 	%r2, [retval0+0];
	} // callseq 0
	ret;
}
)";
}  // namespace

TEST_CASE("printf (vprintf) runs in the simulator: each lane's line in the printf buffer") {
  Sim s(kHelloPtx, "hello.ptx");
  auto r = s.run("_Z5helloi", {1, 1, 1}, {3, 1, 1}, {42});
  REQUIRE(!r.fault);
  CHECK(s.mem.take_printf() == "x=42\nx=42\nx=42\n");
  CHECK(s.mem.take_printf().empty());  // taking empties the buffer
}

TEST_CASE(
    "an external function other than printf/assert is refused when its kernel is used, with file "
    "and line") {
  std::string text = kHelloPtx;
  for (size_t at; (at = text.find("vprintf")) != std::string::npos;) text.replace(at, 7, "mallocx");
  auto m = ptx::parse_module(text, "hello.ptx");
  REQUIRE(m);
  auto p = func::Program::load(std::move(*m));
  REQUIRE(p);  // the module loads; the kernel that calls mallocx cannot run
  auto s = p->check_kernel("_Z5helloi");
  REQUIRE(!s);
  CHECK(s.error().file == "hello.ptx");
  CHECK(s.error().line == 35);  // the call.uni line
  CHECK(s.error().message.find("unsupported instruction") != std::string::npos);
  CHECK(s.error().message.find("mallocx") != std::string::npos);
  CHECK(s.error().message.find("_Z5helloi") != std::string::npos);
  func::DeviceMemory mem;
  func::LaunchConfig lc{"_Z5helloi", {1, 1, 1}, {1, 1, 1}, 0, std::vector<uint8_t>(4)};
  auto r = func::run_functional(*p, mem, lc);
  REQUIRE(!r);
  CHECK(r.error().to_string() == s.error().to_string());
}

TEST_CASE("unsupported type/modifier combinations are errors of the kernel, naming it") {
  auto load = [](const std::string& inst) {
    const std::string text =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry kern()\n{\n.reg .f32 %f<4>;\n.reg .b32 %r<4>;\n"
        ".reg .pred %p<2>;\n.reg .b64 %rd<3>;\n" +
        inst + "\nret;\n}\n";
    auto m = ptx::parse_module(text, "u.ptx");
    if (!m) return std::string("parse: ") + m.error().to_string();
    auto p = func::Program::load(std::move(*m));
    if (!p) return p.error().to_string();
    auto s = p->check_kernel("kern");
    return s ? std::string("ok") : s.error().to_string();
  };
  // Each is valid-looking PTX the executor does not implement (or PTX forbids).
  for (const char* inst : {"rem.f32 %f1, %f2, %f3;", "div.f32 %f1, %f2, %f3;",
                           "shfl.up.b32 %r1, %r2, 1, 0;", "atom.global.inc.u64 %rd1, [%rd2], 5;"}) {
    const std::string e = load(inst);
    INFO(inst << " -> " << e);
    if (e.rfind("parse:", 0) == 0) continue;  // the parser already refuses it: fine too
    CHECK(e.find("u.ptx:10: unsupported instruction") == 0);
    CHECK(e.find("kernel 'kern'") != std::string::npos);
  }
  CHECK(load("add.f32 %f1, %f2, %f3;") == "ok");
  // Found by fuzzing (an out-of-bounds predicate write, a 64-bit shift by 64): a data register
  // after '|', a predicate before it, and a cvt with one type are refused, with the reason.
  const std::pair<const char*, const char*> refused[] = {
      {"shfl.sync.down.b32 %r1|%r2, %r3, 1, 31, -1;", "after '|' must be a predicate"},
      {"shfl.sync.down.b32 %p0|%p1, %r3, 1, 31, -1;", "before '|' must be a data register"},
      {"setp.lt.s32 %p0|%r1, %r2, %r3;", "after '|' must be a predicate"},
      {"cvt.rn.f32 %f1, %r1;", "cvt needs a destination and a source type"}};
  for (const auto& [inst, why] : refused) {
    const std::string e = load(inst);
    INFO(inst << " -> " << e);
    if (e.rfind("parse:", 0) == 0) continue;  // the parser already refuses it: fine too
    CHECK(e.find("u.ptx:10: unsupported instruction") == 0);
    CHECK(e.find(why) != std::string::npos);
  }
  CHECK(load("shfl.sync.down.b32 %r1|%p1, %r3, 1, 31, -1;") == "ok");
  CHECK(load("setp.lt.s32 %p0|%p1, %r2, %r3;") == "ok");
  CHECK(load("cvt.rn.f32.s32 %f1, %r1;") == "ok");
}

TEST_CASE("launches that cannot start are errors, not faults") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const uint64_t A = s.zeros<float>("a", 64);
  func::LaunchConfig lc{"nope", {1, 1, 1}, {32, 1, 1}, 0, {}};
  auto r = func::run_functional(*s.program, s.mem, lc);
  REQUIRE(!r);
  CHECK(r.error().message.find("unknown kernel 'nope'") != std::string::npos);
  lc.kernel = "_Z3oobPfi";
  lc.params = s.params("_Z3oobPfi", {A, 1});
  lc.block = {1025, 1, 1};
  CHECK(!func::run_functional(*s.program, s.mem, lc));
  lc.block = {32, 1, 1};
  lc.params.pop_back();
  r = func::run_functional(*s.program, s.mem, lc);
  REQUIRE(!r);
  CHECK(r.error().message.find("parameter block") != std::string::npos);
}
