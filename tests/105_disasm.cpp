// IR -> PTX text: every form parses back to the same IR.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sim/ptx/disasm.h"
#include "sim/ptx/parser.h"

using namespace warplab::ptx;

namespace {

std::string module_with(std::string_view body) {
  return std::string(R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .b8 gbuf[64];
.func (.param .b32 func_retval0) helper(.param .b32 helper_param_0) { ret; }
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred 	%p<8>;
	.reg .b16 	%rs<8>;
	.reg .b32 	%r<16>;
	.reg .f32 	%f<16>;
	.reg .b64 	%rd<16>;
	.reg .f64 	%fd<8>;
	.shared .align 4 .b8 sm[64];
$L__top:
)") + std::string(body) +
         "\n}\n";
}

bool same_modifiers(const Modifiers& a, const Modifiers& b) {
  return a.rounding == b.rounding && a.cmp == b.cmp && a.bool_op == b.bool_op && a.mul == b.mul &&
         a.shfl == b.shfl && a.vote == b.vote && a.atom == b.atom && a.bar == b.bar &&
         a.bar_red == b.bar_red && a.testp == b.testp && a.shf == b.shf && a.prmt == b.prmt &&
         a.cache == b.cache && a.vec == b.vec && a.ftz == b.ftz && a.sat == b.sat &&
         a.approx == b.approx && a.full == b.full && a.carry_out == b.carry_out && a.uni == b.uni &&
         a.sync == b.sync && a.aligned == b.aligned && a.nc == b.nc && a.volatile_ == b.volatile_ &&
         a.relaxed_or_acquire == b.relaxed_or_acquire && a.popc == b.popc &&
         a.shiftamt == b.shiftamt && a.abs == b.abs && a.nan == b.nan && a.xorsign == b.xorsign &&
         a.match_all == b.match_all && a.relu == b.relu && a.to_space == b.to_space &&
         a.mode_l2_evict == b.mode_l2_evict && a.mem_scope == b.mem_scope && a.mem_sem == b.mem_sem;
}

bool same_operand(const Operand& a, const Operand& b) {
  return a.kind == b.kind && a.imm_kind == b.imm_kind && a.neg == b.neg &&
         a.vec_count == b.vec_count && a.component == b.component && a.special == b.special &&
         a.reg == b.reg &&
         (a.kind != Operand::Kind::Addr && a.kind != Operand::Kind::Symbol
              ? true
              : a.scope == b.scope && a.symbol == b.symbol) &&
         a.label == b.label && a.offset == b.offset && a.bits == b.bits && a.vec == b.vec;
}

bool same_ops(const std::vector<Operand>& a, const std::vector<Operand>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_operand(a[i], b[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("105 disasm: every form round-trips through the parser") {
  const char* lines[] = {
      "add.s32 %r3, %r1, -2;",
      "@!%p1 mul.wide.s32 %rd1, %r1, 4;",
      "mad.lo.cc.u32 %r1, %r2, %r3, %r4;",
      "addc.cc.u32 %r1, %r2, %r3;",
      "setp.lt.and.f32 %p1, %f1, %f2, !%p2;",
      "setp.ne.s32 %p1|%p2, %r1, 0;",
      "div.approx.ftz.f32 %f1, %f2, 0f3F800000;",
      "div.full.f32 %f1, %f2, %f3;",
      "fma.rn.sat.f32 %f1, %f2, %f3, %f4;",
      "mov.f64 %fd1, 0d3FF0000000000000;",
      "cvt.rzi.ftz.s32.f32 %r1, %f1;",
      "cvt.rn.relu.f16.f32 %rs1, %f1;",
      "cvta.to.global.u64 %rd1, %rd2;",
      "cvta.shared.u64 %rd1, %rd2;",
      "ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];",
      "ld.param.u64 %rd1, [k_param_0];",
      "st.shared.v2.f32 [sm+8], {%f1, %f2};",
      "ld.u32 %r1, [%rd1+-4];",
      "ld.global.u32 %r1, [1024];",
      "ld.relaxed.gpu.global.u32 %r1, [gbuf];",
      "ld.volatile.shared.u32 %r1, [%rd1];",
      "st.global.cs.f32 [%rd1], %f1;",
      "prefetch.global.L2::evict_last [%rd1];",
      "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
      "atom.add.noftz.f16 %rs1, [%rd1], %rs2;",
      "red.global.add.u32 [%rd1], 1;",
      "atom.acquire.sys.global.exch.b64 %rd1, [%rd2], %rd3;",
      "bar.sync 0;",
      "bar.sync 1, 64;",
      "barrier.sync 0;",
      "bar.red.popc.u32 %r1, 0, %p1;",
      "bar.red.or.pred %p1, 0, %p2;",
      "bar.arrive 1, 64;",
      "bar.warp.sync -1;",
      "membar.gl;",
      "fence.acq_rel.gpu;",
      "shfl.sync.bfly.b32 %r1|%p1, %r2, %r3, 31, -1;",
      "vote.sync.ballot.b32 %r1, %p1, -1;",
      "vote.sync.all.pred %p1, !%p2, -1;",
      "match.all.sync.b32 %r1|%p1, %r2, -1;",
      "redux.sync.max.s32 %r1, %r2, -1;",
      "activemask.b32 %r1;",
      "lop3.b32 %r1, %r2, %r3, %r4, 150;",
      "prmt.b32.f4e %r1, %r2, %r3, %r4;",
      "shf.r.clamp.b32 %r1, %r2, %r3, %r4;",
      "bfind.shiftamt.u32 %r1, %r2;",
      "testp.notanumber.f64 %p1, %fd1;",
      "min.NaN.f32 %f1, %f2, %f3;",
      "max.xorsign.abs.f32 %f1, %f2, %f3;",
      "slct.f32.s32 %f1, %f2, %f3, %r1;",
      "set.eq.or.u32.f32 %r1, %f2, %f3, %p1;",
      "mov.u32 %r1, %ctaid.y;",
      "mov.u64 %rd1, %clock64;",
      "mov.u64 %rd1, gbuf;",
      "mov.u64 %rd1, helper;",
      "mov.b32 %r1, {%rs1, %rs2};",
      "bra.uni $L__top;",
      "nanosleep.u32 100;",
      "trap;",
      "ret;",
      "@%p1 cp.async.cg.shared.global [%rd1], [%rd2+16], 16, %r2;",
      "cp.async.ca.shared.global [%rd1], [%rd2], 8, %p1;",
      "cp.async.wait_group 1;",
      "cp.async.wait_all;",
      "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%rd1], %r2;",
      "mbarrier.arrive.expect_tx.shared.b64 _, [%rd1], 64;",
      "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%rd2], 128;",
      "fence.proxy.async.shared::cta;",
      "fence.mbarrier_init.release.cluster;",
      "elect.sync _|%p1, -1;",
  };
  for (const char* line : lines) {
    CAPTURE(line);
    auto a = parse_module(module_with(line), "a.ptx");
    REQUIRE_MESSAGE(a, a.error().to_string());
    const Function& fa = a->functions.at(1);
    REQUIRE(fa.instructions.size() == 1);
    const Instruction& ia = fa.instructions[0];
    const std::string text = disassemble(*a, fa, ia);
    CAPTURE(text);
    auto b = parse_module(module_with(text), "b.ptx");
    REQUIRE_MESSAGE(b, b.error().to_string());
    const Instruction& ib = b->functions.at(1).instructions.at(0);
    CHECK(ib.op == ia.op);
    CHECK(ib.type == ia.type);
    CHECK(ib.type2 == ia.type2);
    CHECK(ib.space == ia.space);
    CHECK(ib.guard == ia.guard);
    CHECK(ib.guard_neg == ia.guard_neg);
    CHECK(ib.pair_dest == ia.pair_dest);
    CHECK(same_modifiers(ib.mod, ia.mod));
    CHECK(same_ops(ib.ops, ia.ops));
  }
}

TEST_CASE("105 disasm: calls and canonical text") {
  auto m = parse_module(module_with(R"(	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0);
	ld.param.b32 	%r2, [retval0+0];
	}
	ld.global.nc.v2.f32 {%f1, %f2}, [%rd1];)"),
                        "c.ptx");
  REQUIRE(m);
  const Function& f = m->functions.at(1);
  REQUIRE(f.instructions.size() == 4);
  CHECK(disassemble(*m, f, f.instructions[0]) == "st.param.b32 [param0], %r1;");
  CHECK(disassemble(*m, f, f.instructions[1]) == "call.uni (retval0), helper, (param0);");
  CHECK(disassemble(*m, f, f.instructions[3]) == "ld.global.nc.v2.f32 {%f1, %f2}, [%rd1];");
}
