// The PTX front end on bad input: every error names the file and PTX line and says what was
// expected; unsupported and out-of-scope instructions name the opcode and the kernel; nothing
// crashes, whatever the input.
#include <doctest/doctest.h>

#include <string>

#include "sim/ptx/parser.h"

using namespace warplab::ptx;

namespace {

// The kernel's body starts on line 9, so the first body line is line 9.
std::string kernel_with(std::string_view body, std::string_view kind = ".entry",
                        std::string_view name = "k") {
  return std::string(".version 9.0\n.target sm_90\n.address_size 64\n.visible ") +
         std::string(kind) + " " + std::string(name) +
         "()\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n" +
         std::string(body) + "\n}\n";
}

// The parse error, or (for valid PTX that WarpLab does not simulate, which the parser keeps per
// function so that only the kernels using it are refused) the first such reason.
warplab::Error error_of(const std::string& text) {
  auto m = parse_module(text, "bad.ptx");
  if (m) {
    for (const Function& f : m->functions)
      if (!f.unsupported.empty())
        return warplab::Error{m->path, f.unsupported[0].ptx_line, f.unsupported[0].message};
    FAIL("expected a parse error or unsupported code for:\n" << text);
  }
  CHECK(m.error().file == "bad.ptx");
  return m.error();
}

bool has(const warplab::Error& e, std::string_view s) {
  const bool found = e.message.find(s) != std::string::npos;
  if (!found) MESSAGE("message was: " << e.to_string());
  return found;
}

}  // namespace

TEST_CASE("104 errors: operand punctuation names the operand and what was found") {
  auto e = error_of(kernel_with("\tadd.s32 %r3 %r1, %r2;"));
  CHECK(e.line == 9);
  CHECK(e.message == "expected ',' after operand 1 of 'add.s32', found '%r1'");
  e = error_of(kernel_with("\tmov.u32 %r1, 1;\n\tadd.s32 %r3, %r1, %r2\n\tret;"));
  CHECK(e.line == 11);
  CHECK(e.message == "expected ';' after operand 3 of 'add.s32', found 'ret'");
  e = error_of(kernel_with("\tadd.s32 %r1, %r2;"));
  CHECK(has(e, "'add.s32' takes 3 operands, found 2"));
  e = error_of(kernel_with("\tneg.s32 %r1, %r2, %r3;"));
  CHECK(has(e, "'neg.s32' takes 2 operands"));
  e = error_of(kernel_with("\tld.global.u32 %r1, %rd1;"));
  CHECK(has(e, "needs an address '[...]' as operand 2"));
  e = error_of(kernel_with("\tld.global.u32 %r1, [%rd1+4;"));
  CHECK(has(e, "expected ']' to close the address"));
  e = error_of(kernel_with("\tmov.b64 {%r1, 3}, %rd1;"));
  CHECK(has(e, "a register or '_' in the vector operand"));
}

TEST_CASE("104 errors: unknown and out-of-scope instructions name opcode and kernel") {
  auto e = error_of(kernel_with("\tmov.u32 %r1, 1;\n\tfrobnicate.b32 %r1, %r2;"));
  CHECK(e.line == 10);
  CHECK(e.message == "unsupported instruction 'frobnicate.b32' in kernel 'k'");
  e = error_of(kernel_with("\twmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1}, [%rd1];"));
  CHECK(has(e, "unsupported instruction 'wmma.load"));
  CHECK(has(e, "in kernel 'k'"));
  CHECK(has(e, "wgmma are simulated"));
  e =
      error_of(kernel_with("\tmma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%r1}, {%r2}, "
                           "{%r3}, {%r4};"));
  CHECK(has(e, "'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32' is not simulated"));
  e = error_of(kernel_with(
      "\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], "
      "[%rd1, {%r2, %r3, %r4}], [%r3], {%r5};"));
  CHECK(has(e, "cp.async.bulk.tensor"));
  CHECK(has(e, "im2col"));
  CHECK(has(e, "not simulated"));
  e = error_of(kernel_with(
      "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%r1], [%rd1], 256, [%r2], %rs1;"));
  CHECK(has(e, "not simulated"));
  e = error_of(kernel_with("\tfrob.b32 %r1;", ".func", "helper"));
  CHECK(has(e, "in function 'helper'"));
  e = error_of(kernel_with("\tbarrier.cluster.wait 1;"));
  CHECK(has(e, "takes no operands"));
  e =
      error_of(kernel_with("\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], "
                           "[%r1], 16;"));
  CHECK(has(e, "not simulated"));
}

TEST_CASE("104 errors: asynchronous copies and mbarriers with missing or wrong parts") {
  CHECK(has(error_of(kernel_with("\tcp.async.shared.global [%r1], [%rd1], 16;")),
            "needs .ca or .cg"));
  CHECK(has(error_of(kernel_with("\tcp.async.cg.shared.global [%r1], [%rd1], 8;")),
            "cp.async.cg copies 16 bytes"));
  CHECK(has(error_of(kernel_with("\tcp.async.ca.shared.global [%r1], [%rd1], 12;")),
            "4, 8 or 16 bytes"));
  CHECK(has(error_of(kernel_with("\tcp.async.ca.global.shared [%r1], [%rd1], 4;")),
            "unknown modifier '.global'"));
  CHECK(has(error_of(kernel_with("\tmbarrier.init.shared.b32 [%r1], 1;")), "needs the type .b64"));
  CHECK(has(error_of(kernel_with("\tmbarrier.frob.shared.b64 [%r1], 1;")), "unknown modifier"));
  CHECK(has(error_of(kernel_with("\tmbarrier.try_wait.shared.b64 [%r1], %rd1;")),
            "takes 3 to 4 operands"));
  CHECK(has(
      error_of(kernel_with("\tcp.async.bulk.shared::cluster.global.bulk_group [%r1], [%rd1], 16;")),
      "completes with .mbarrier::complete_tx::bytes"));
  CHECK(has(error_of(kernel_with("\telect.sync %r1, -1;")), "'d|p, membermask'"));
}

TEST_CASE("104 errors: unknown modifiers and missing required ones") {
  auto e = error_of(kernel_with("\tadd.foo.s32 %r1, %r2, %r3;"));
  CHECK(e.line == 9);
  CHECK(e.message == "unknown modifier '.foo' in 'add.foo.s32'");
  CHECK(has(error_of(kernel_with("\tmov.global.u32 %r1, 1;")), "unknown modifier '.global'"));
  CHECK(has(error_of(kernel_with("\tsetp.s32 %p1, %r1, %r2;")), "needs a comparison"));
  CHECK(has(error_of(kernel_with("\tshfl.sync.b32 %r1, %r2, 1, 31, -1;")), "needs a mode"));
  CHECK(has(error_of(kernel_with("\tatom.global.u32 %r1, [%rd1], 1;")), "needs an operation"));
  CHECK(has(error_of(kernel_with("\tshf.l.b32 %r1, %r2, %r3, %r4;")), ".wrap/.clamp"));
  CHECK(has(error_of(kernel_with("\tadd %r1, %r2, %r3;")), "needs a type"));
  CHECK(has(error_of(kernel_with("\tcvt.f32.s32.u8 %r1, %r2;")), "too many types"));
  CHECK(has(error_of(kernel_with("\tld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;")),
            "cache_hint"));
}

TEST_CASE("104 errors: undeclared names") {
  auto e = error_of(kernel_with("\tmov.u32 %r1, %r99;"));
  CHECK(e.message == "undeclared register '%r99' in kernel 'k'");
  e = error_of(kernel_with("\tmov.u32 %r1, 1;\n\tbra.uni $L__nowhere;\n\tret;"));
  CHECK(e.line == 10);
  CHECK(has(e, "undefined label or symbol '$L__nowhere' in kernel 'k'"));
  e = error_of(kernel_with("\tcall.uni missing;"));
  CHECK(has(e, "call to undeclared function 'missing'"));
  e = error_of(kernel_with("\tld.global.u32 %r1, [nosuch+4];"));
  CHECK(has(e, "undeclared register or symbol 'nosuch'"));
  e = error_of(kernel_with("\t@%r1 bra $L;\n$L:\n\tret;"));
  CHECK(has(e, "is not a .pred register"));
  e = error_of(kernel_with("\t@%p9 ret;"));
  CHECK(has(e, "undeclared predicate register '%p9'"));
  e = error_of(kernel_with("\tcall.uni %rd1, (x);"));
  CHECK(has(e, "indirect calls"));
  e = error_of(kernel_with("\tmov.u32 %r1, %tid;"));
  CHECK(has(e, "needs a component"));
}

TEST_CASE("104 errors: duplicates and structure") {
  CHECK(has(error_of(kernel_with("$L:\n\tret;\n$L:\n\tret;")), "label '$L' is defined twice"));
  CHECK(has(error_of(kernel_with("\t.reg .b32 %r1;")), "register '%r1' is declared twice"));
  auto e = error_of(".version 9.0\n.func f() { ret; }\n.func f() { ret; }\n");
  CHECK(e.line == 3);
  CHECK(has(e, "function 'f' is defined twice (first at line 2)"));
  e = error_of(".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n\tret;\n");
  CHECK(e.line == 5);
  CHECK(has(e, "missing '}'"));
  CHECK(has(error_of(".version 9.0\n.address_size 32\n"), "not supported"));
  e = error_of(".version 9.0\nfoo bar;\n");
  CHECK(e.line == 2);
  CHECK(has(e, "expected a directive"));
  CHECK(has(error_of(".version nine\n"), "version number"));
  CHECK(has(error_of(kernel_with("\t.maxntid 32;")), "unexpected directive '.maxntid'"));
  CHECK(has(error_of(".entry k(.param .u32 a .param .u32 b) { ret; }"),
            "',' or ')' after parameter 'a'"));
  CHECK(has(error_of(".entry k() .reqnctapercluster two { ret; }"),
            "a block count after .reqnctapercluster"));
  CHECK(
      has(error_of(".entry k() .maxclusterrank { ret; }"), "a block count after .maxclusterrank"));
  // setmaxnreg: .inc/.dec, .sync.aligned, .u32, a constant 24..256 that is a multiple of 8.
  CHECK(has(error_of(kernel_with("\tsetmaxnreg.sync.aligned.u32 64;")), "needs .inc or .dec"));
  CHECK(has(error_of(kernel_with("\tsetmaxnreg.inc.u32 64;")), "needs .sync.aligned"));
  CHECK(has(error_of(kernel_with("\tsetmaxnreg.inc.sync.aligned.u32 %r1;")),
            "a constant register count"));
  CHECK(has(error_of(kernel_with("\tsetmaxnreg.dec.sync.aligned.u32 20;")),
            "must be a multiple of 8 from 24 to 256"));
  CHECK(has(error_of(kernel_with("\tsetmaxnreg.dec.sync.aligned.u32 100;")),
            "must be a multiple of 8 from 24 to 256"));
  // barrier.cluster: arrive takes .release/.relaxed, wait .acquire.
  CHECK(has(error_of(kernel_with("\tbarrier.cluster.arrive.acquire;")),
            "arrive takes .release or .relaxed"));
  CHECK(has(error_of(kernel_with("\tbarrier.cluster.wait.release;")), "wait takes .acquire"));
  CHECK(has(error_of(".entry k(.reg .u32 a) { ret; }"), ".reg' parameters"));
}

TEST_CASE("104 errors: variable declarations") {
  CHECK(has(error_of(".global .u32 a[2] = {1, 2, 3};"), "too many initialisers for 'a'"));
  CHECK(has(error_of(".global .u64 p = generic(a);"), "address initialisers"));
  CHECK(has(error_of(".global .u32 a[];"), "has no size"));
  CHECK(has(error_of(".global .u32 a = 1.5;"), "floating-point initialiser"));
  CHECK(has(error_of(".global .align 3 .u32 a;"), "power of two"));
  CHECK(has(error_of(".global .u32 a;\n.global .u32 a;"), "declared twice"));
  CHECK(has(error_of(".global a;"), "expected a type"));
}

TEST_CASE("104 errors: literals") {
  CHECK(has(error_of(kernel_with("\tmov.f32 %r1, 0f3F80;")), "8 hex digits"));
  CHECK(has(error_of(kernel_with("\tmov.f64 %rd1, 0d3FF0;")), "16 hex digits"));
  CHECK(has(error_of(kernel_with("\tmov.u64 %rd1, 99999999999999999999;")), "64 bits"));
  CHECK(has(error_of(kernel_with("\tmov.u32 %r1, 09;")), "expected a number"));
  CHECK(has(error_of(kernel_with("\tmov.u32 %r1, 12abc;")), "expected a number"));
}

TEST_CASE("104 errors: parse_file on a missing file") {
  auto m = parse_file("/nonexistent/dir/k.ptx");
  REQUIRE(!m);
  CHECK(m.error().file == "/nonexistent/dir/k.ptx");
  CHECK(has(m.error(), "no such file"));
}

TEST_CASE("104 errors: truncated or corrupted input never crashes") {
  const std::string good = R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .b8 g[8] = {1, 2};
.func (.param .b32 func_retval0) f(.param .b32 f_param_0)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [f_param_0];
	st.param.b32 [func_retval0+0], %r1;
	ret;
}
.visible .entry k(.param .u64 k_param_0)
.maxntid 128, 1, 1
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	.loc 1 3 0
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra $L__BB0_2;
	shfl.sync.bfly.b32 %r2|%p2, %r1, 1, 31, -1;
	ld.global.nc.v2.f32 {%f1, %f2}, [%rd1+8];
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), f, (param0);
	ld.param.b32 %r3, [retval0+0];
	}
$L__BB0_2:
	ret;
}
.file 1 "x.cu"
)";
  REQUIRE(parse_module(good, "good.ptx"));
  int errors = 0;
  for (size_t cut = 0; cut < good.size(); ++cut) {
    auto m = parse_module(std::string_view(good).substr(0, cut), "cut.ptx");
    if (!m) {
      ++errors;
      CHECK(m.error().line >= 1);
      CHECK(!m.error().message.empty());
    }
  }
  CHECK(errors > 0);
  // Replace each character in turn with characters that change the token structure.
  for (char c : std::string("{};,[]|@!%-.0_")) {
    for (size_t at = 0; at < good.size(); at += 3) {
      std::string bad = good;
      bad[at] = c;
      auto m = parse_module(bad, "mut.ptx");
      if (!m) CHECK(m.error().line >= 1);
    }
  }
}

TEST_CASE("104 errors: wgmma with missing or wrong parts") {
  const std::string d4 = "{%r1, %r2, %r3, %r4}";
  auto mma = [&](const std::string& mods, const std::string& ops) {
    return error_of(kernel_with("\twgmma.mma_async" + mods + " " + ops + ";"));
  };
  CHECK(has(mma(".sync.aligned.m64n8k16.f32.f16.f16", "{%r1}, %rd1, %rd2, %p1, 1, 1, 0, 0"),
            "D is a vector of 4 registers (N = 8, .f32)"));
  CHECK(has(mma(".sync.aligned.m64n8k16.f32.f16.f16", d4 + ", %rd1, %rd2, %p1, 2, 1, 0, 0"),
            "imm-scale-a (operand 5) must be 1 or -1"));
  CHECK(has(mma(".sync.aligned.m64n8k16.f32.f16.f16", d4 + ", %rd1, %rd2, %p1, 1, 1, 0, 2"),
            "imm-trans-b (operand 8) must be 0 or 1"));
  CHECK(has(mma(".sync.aligned.m64n8k16.f32.f16.f16", d4 + ", %rd1, %rd2, %p1, 1, 1, 0"),
            "takes 8 operands, found 7"));
  CHECK(has(mma(".sync.aligned.m64n12k16.f32.f16.f16", d4 + ", %rd1, %rd2, %p1, 1, 1, 0, 0"),
            "N a multiple of 8 from 8 to 256"));
  CHECK(has(mma(".sync.aligned.m64n8k8.f32.tf32.tf32", d4 + ", %rd1, %rd2, %p1, 1, 1, 0, 0"),
            "takes 6 operands"));
  CHECK(has(mma(".m64n8k16.f32.f16.f16", d4 + ", %rd1, %rd2, %p1, 1, 1, 0, 0"),
            "needs .sync.aligned"));
  CHECK(has(mma(".sync.aligned.m64n8k32.s32.s8.s8", d4 + ", %rd1, %rd2, %p1"),
            "integer wgmma (s8/u8) is not simulated"));
  CHECK(has(mma(".sp.sync.aligned.m64n8k32.f32.f16.f16", d4 + ", %rd1, %rd2, %rd3, %r5, %p1"),
            "sparse wgmma"));
  CHECK(has(mma(".sync.aligned.m64n8k16.f32.bf16.bf16", d4 + ", {%r5, %r6}, %rd2, %p1, 1, 1, 0"),
            "a vector of 4 registers"));
  CHECK(has(error_of(kernel_with("\twgmma.wait_group.sync.aligned 9;")), "from 0 to 7"));
  CHECK(has(error_of(kernel_with("\twgmma.arrive.sync.aligned;")), "unknown instruction"));
  CHECK(has(error_of(kernel_with("\tmov.b32 {%r1, %r2, %r3, %r4, %r5}, %rd1;")),
            "a vector operand holds at most 4 elements"));
}
