// The PTX front end, instruction level: every opcode form nvcc emits, with its modifiers (isa.h
// Modifiers), and every operand form (registers, predicates, special registers, immediates,
// addresses, vectors, sinks, "d|p" pairs, symbols, function addresses).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sim/ptx/parser.h"

using namespace warplab::ptx;

namespace {

std::string kernel_with(std::string_view body) {
  return std::string(R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .b8 gbuf[64];
.func helper() { ret; }
.visible .entry k(.param .u64 k_param_0)
{
	.reg .pred 	%p<8>;
	.reg .b16 	%rs<8>;
	.reg .b32 	%r<16>;
	.reg .f32 	%f<16>;
	.reg .b64 	%rd<16>;
	.reg .f64 	%fd<8>;
	.shared .align 4 .b8 sm[64];
)") + std::string(body) +
         "\n}\n";
}

// Parses `body` inside a kernel with registers %p %rs %r %f %rd %fd and returns the kernel.
Function parse_body(std::string_view body) {
  auto m = parse_module(kernel_with(body), "t.ptx");
  if (!m) FAIL_CHECK(m.error().to_string());
  REQUIRE(m);
  return m->functions.at(1);
}

Instruction one(std::string_view line) {
  Function f = parse_body(line);
  REQUIRE(f.instructions.size() >= 1);
  return f.instructions[0];
}

// Register numbers in kernel_with(): %p0.. = 0.., %rs0 = 8, %r0 = 16, %f0 = 32, %rd0 = 48, %fd0 =
// 64
constexpr int P = 0, RS = 8, R = 16, F = 32, RD = 48, FD = 64;

bool is_reg(const Operand& o, int reg) { return o.kind == Operand::Kind::Reg && o.reg == reg; }
bool is_int(const Operand& o, uint64_t bits) {
  return o.kind == Operand::Kind::Imm && o.imm_kind == Operand::ImmKind::Int && o.bits == bits;
}

}  // namespace

TEST_CASE("103 instructions: integer arithmetic and carries") {
  Instruction i = one("add.s32 %r3, %r1, %r2;");
  CHECK(i.op == Opcode::Add);
  CHECK(i.type == Type::S32);
  REQUIRE(i.ops.size() == 3);
  CHECK(is_reg(i.ops[0], R + 3));
  CHECK(is_reg(i.ops[2], R + 2));
  i = one("mul.wide.s32 %rd1, %r1, 4;");
  CHECK(i.mod.mul == MulMode::Wide);
  CHECK(is_int(i.ops[2], 4));
  CHECK(one("mul.hi.u64 %rd1, %rd2, %rd3;").mod.mul == MulMode::Hi);
  i = one("mad.lo.s32 %r1, %r2, %r3, %r4;");
  CHECK(i.op == Opcode::Mad);
  CHECK(i.mod.mul == MulMode::Lo);
  CHECK(i.ops.size() == 4);
  i = one("mad.lo.cc.u32 %r1, %r2, %r3, %r4;");
  CHECK(i.mod.carry_out);
  i = one("sub.cc.u32 %r1, %r2, %r3;");
  CHECK(i.op == Opcode::Sub);
  CHECK(i.mod.carry_out);
  i = one("addc.cc.u32 %r1, %r2, %r3;");
  CHECK(i.op == Opcode::Addc);
  CHECK(i.mod.carry_out);
  CHECK(one("subc.u32 %r1, %r2, %r3;").op == Opcode::Subc);
  i = one("mul24.lo.s32 %r1, %r2, %r3;");
  CHECK(i.op == Opcode::Mul24);
  CHECK(i.mod.mul == MulMode::Lo);
  CHECK(one("mad24.lo.u32 %r1, %r2, %r3, %r4;").op == Opcode::Mad24);
  CHECK(one("sad.u32 %r1, %r2, %r3, %r4;").op == Opcode::Sad);
  i = one("dp4a.s32.s32 %r1, %r2, %r3, %r4;");
  CHECK(i.op == Opcode::Dp4a);
  CHECK(i.type == Type::S32);
  CHECK(i.type2 == Type::S32);
  CHECK(one("add.sat.s32 %r1, %r2, %r3;").mod.sat);
  CHECK(one("div.s64 %rd1, %rd2, %rd3;").op == Opcode::Div);
  CHECK(one("rem.u32 %r1, %r2, 7;").op == Opcode::Rem);
  CHECK(one("abs.s64 %rd1, %rd2;").op == Opcode::Abs);
  CHECK(one("neg.s32 %r1, %r2;").op == Opcode::Neg);
  CHECK(one("min.u32 %r1, %r2, %r3;").op == Opcode::Min);
  CHECK(one("max.s64 %rd1, %rd2, %rd3;").op == Opcode::Max);
}

TEST_CASE("103 instructions: bit manipulation") {
  Instruction i = one("lop3.b32 %r1, %r2, %r3, %r4, 0x96;");
  CHECK(i.op == Opcode::Lop3);
  REQUIRE(i.ops.size() == 5);
  CHECK(is_int(i.ops[4], 0x96));
  i = one("prmt.b32 %r1, %r2, %r3, 0x3210;");
  CHECK(i.op == Opcode::Prmt);
  CHECK(i.mod.prmt == PrmtMode::None);
  CHECK(one("prmt.b32.f4e %r1, %r2, %r3, %r4;").mod.prmt == PrmtMode::F4e);
  CHECK(one("prmt.b32.rc16 %r1, %r2, %r3, %r4;").mod.prmt == PrmtMode::Rc16);
  CHECK(one("shf.l.wrap.b32 %r1, %r2, %r3, %r4;").mod.shf == ShfMode::LeftWrap);
  CHECK(one("shf.r.clamp.b32 %r1, %r2, %r3, %r4;").mod.shf == ShfMode::RightClamp);
  CHECK(one("shf.r.wrap.b32 %r1, %r2, %r3, 3;").mod.shf == ShfMode::RightWrap);
  CHECK(one("bfe.u32 %r1, %r2, 8, 4;").op == Opcode::Bfe);
  i = one("bfi.b64 %rd1, %rd2, %rd3, %r1, %r2;");
  CHECK(i.op == Opcode::Bfi);
  CHECK(i.ops.size() == 5);
  i = one("bfind.shiftamt.u32 %r1, %r2;");
  CHECK(i.op == Opcode::Bfind);
  CHECK(i.mod.shiftamt);
  CHECK(one("popc.b64 %r1, %rd2;").op == Opcode::Popc);
  CHECK(one("clz.b32 %r1, %r2;").op == Opcode::Clz);
  CHECK(one("brev.b32 %r1, %r2;").op == Opcode::Brev);
  CHECK(one("fns.b32 %r1, %r2, %r3, 1;").op == Opcode::Fns);
  CHECK(one("and.pred %p1, %p2, %p3;").type == Type::Pred);
  CHECK(one("or.b64 %rd1, %rd2, %rd3;").op == Opcode::Or);
  CHECK(one("xor.b16 %rs1, %rs2, %rs3;").type == Type::B16);
  CHECK(one("not.b32 %r1, %r2;").op == Opcode::Not);
  CHECK(one("cnot.b32 %r1, %r2;").op == Opcode::Cnot);
  CHECK(one("shl.b64 %rd1, %rd2, 3;").op == Opcode::Shl);
  CHECK(one("shr.s32 %r1, %r2, 31;").type == Type::S32);
}

TEST_CASE("103 instructions: floating point with rounding, ftz, sat, approx") {
  Instruction i = one("div.rn.f32 %f1, %f2, %f3;");
  CHECK(i.mod.rounding == Rounding::Rn);
  CHECK(one("div.full.f32 %f1, %f2, %f3;").mod.full);
  i = one("div.approx.ftz.f32 %f1, %f2, %f3;");
  CHECK(i.mod.approx);
  CHECK(i.mod.ftz);
  CHECK(one("div.rn.f64 %fd1, %fd2, %fd3;").type == Type::F64);
  i = one("mad.rn.f32 %f1, %f2, %f3, %f4;");
  CHECK(i.op == Opcode::Mad);
  CHECK(i.mod.rounding == Rounding::Rn);
  i = one("fma.rn.sat.f32 %f1, %f2, %f3, %f4;");
  CHECK(i.op == Opcode::Fma);
  CHECK(i.mod.sat);
  CHECK(one("fma.rz.ftz.f32 %f1, %f2, %f3, %f4;").mod.rounding == Rounding::Rz);
  CHECK(one("add.rm.f32 %f1, %f2, %f3;").mod.rounding == Rounding::Rm);
  CHECK(one("mul.rp.f64 %fd1, %fd2, %fd3;").mod.rounding == Rounding::Rp);
  CHECK(one("rcp.approx.ftz.f64 %fd1, %fd2;").mod.approx);
  CHECK(one("rcp.rn.f32 %f1, %f2;").op == Opcode::Rcp);
  CHECK(one("sqrt.rn.f64 %fd1, %fd2;").op == Opcode::Sqrt);
  CHECK(one("rsqrt.approx.ftz.f32 %f1, %f2;").op == Opcode::Rsqrt);
  CHECK(one("sin.approx.ftz.f32 %f1, %f2;").op == Opcode::Sin);
  CHECK(one("cos.approx.f32 %f1, %f2;").op == Opcode::Cos);
  CHECK(one("lg2.approx.ftz.f32 %f1, %f2;").op == Opcode::Lg2);
  CHECK(one("ex2.approx.ftz.f32 %f1, %f2;").op == Opcode::Ex2);
  CHECK(one("tanh.approx.f32 %f1, %f2;").op == Opcode::Tanh);
  CHECK(one("abs.ftz.f32 %f1, %f2;").mod.ftz);
  CHECK(one("neg.f64 %fd1, %fd2;").type == Type::F64);
  CHECK(one("copysign.f32 %f1, %f2, %f3;").op == Opcode::Copysign);
  i = one("min.NaN.f32 %f1, %f2, %f3;");
  CHECK(i.op == Opcode::Min);
  CHECK(i.mod.nan);
  i = one("max.xorsign.abs.f32 %f1, %f2, %f3;");
  CHECK(i.mod.xorsign);
  CHECK(i.mod.abs);
  CHECK(one("max.ftz.f32 %f1, %f2, %f3;").mod.ftz);
  i = one("testp.finite.f32 %p1, %f1;");
  CHECK(i.op == Opcode::Testp);
  CHECK(i.mod.testp == TestpMode::Finite);
  CHECK(one("testp.notanumber.f64 %p1, %fd1;").mod.testp == TestpMode::NotANumber);
  CHECK(one("testp.subnormal.f32 %p1, %f1;").mod.testp == TestpMode::Subnormal);
  // Half precision (nvcc writes these inside { } from cuda_fp16.hpp's inline asm).
  Function f = parse_body(R"({add.f16 %rs2,%rs3,%rs1;
}
	{mul.f16x2 %r1,%r2,%r2;
}
	{  cvt.rn.f16.f32 %rs1, %f1;}
	{fma.rn.bf16 %rs1,%rs2,%rs3,%rs4;
})");
  REQUIRE(f.instructions.size() == 4);
  CHECK(f.instructions[0].type == Type::F16);
  CHECK(f.instructions[1].type == Type::F16x2);
  CHECK(f.instructions[2].type == Type::F16);
  CHECK(f.instructions[2].type2 == Type::F32);
  CHECK(f.instructions[3].type == Type::BF16);
}

TEST_CASE("103 instructions: comparison and selection") {
  Instruction i = one("setp.lt.and.f32 %p1, %f1, %f2, %p2;");
  CHECK(i.op == Opcode::Setp);
  CHECK(i.mod.cmp == CmpOp::Lt);
  CHECK(i.mod.bool_op == BoolOp::And);
  CHECK(i.type == Type::F32);
  CHECK(i.type2 == Type::None);
  REQUIRE(i.ops.size() == 4);
  CHECK(is_reg(i.ops[3], P + 2));
  i = one("setp.ne.s32 %p1|%p2, %r1, 0;");
  CHECK(i.pair_dest);
  REQUIRE(i.ops.size() == 4);
  CHECK(is_reg(i.ops[1], P + 2));
  CHECK(one("setp.ltu.ftz.f32 %p1, %f1, %f2;").mod.cmp == CmpOp::Ltu);
  CHECK(one("setp.num.f64 %p1, %fd1, %fd2;").mod.cmp == CmpOp::Num);
  CHECK(one("setp.nan.f32 %p1, %f1, %f2;").mod.cmp == CmpOp::Nan);
  CHECK(one("setp.hs.u32 %p1, %r1, %r2;").mod.cmp == CmpOp::Hs);
  CHECK(one("setp.gtu.f64 %p1, %fd1, %fd2;").mod.cmp == CmpOp::Gtu);
  i = one("selp.b32 %r1, %r2, 1, %p1;");
  CHECK(i.op == Opcode::Selp);
  CHECK(is_reg(i.ops[3], P + 1));
  i = one("slct.f32.s32 %f1, %f2, %f3, %r1;");
  CHECK(i.type == Type::F32);
  CHECK(i.type2 == Type::S32);
  i = one("set.lt.u32.f32 %r1, %f1, %f2;");
  CHECK(i.op == Opcode::Set);
  CHECK(i.type == Type::U32);
  CHECK(i.type2 == Type::F32);
  i = one("set.eq.or.f32.f32 %f1, %f2, %f3, !%p1;");
  CHECK(i.mod.bool_op == BoolOp::Or);
  CHECK(i.ops[3].neg);
}

TEST_CASE("103 instructions: conversions and data movement") {
  Instruction i = one("cvt.rn.f32.s32 %f1, %r1;");
  CHECK(i.op == Opcode::Cvt);
  CHECK(i.type == Type::F32);
  CHECK(i.type2 == Type::S32);
  CHECK(i.mod.rounding == Rounding::Rn);
  i = one("cvt.rzi.s32.f32 %r1, %f1;");
  CHECK(i.mod.rounding == Rounding::Rzi);
  CHECK(i.type == Type::S32);
  CHECK(one("cvt.rn.f16.f32 %rs1, %f1;").type == Type::F16);
  i = one("cvt.u64.u32 %rd1, %r1;");
  CHECK(i.type == Type::U64);
  CHECK(i.type2 == Type::U32);
  CHECK(i.mod.rounding == Rounding::None);
  i = one("cvt.sat.f32.f32 %f1, %f2;");
  CHECK(i.mod.sat);
  CHECK(one("cvt.rzi.ftz.s64.f32 %rd1, %f1;").mod.ftz);
  CHECK(one("cvt.rn.f16x2.f32 %r1, %f1, %f2;").ops.size() == 3);
  CHECK(one("cvt.rn.relu.f16.f32 %rs1, %f1;").mod.relu);
  CHECK(one("cvt.f32.bf16 %f1, %rs1;").type2 == Type::BF16);
  i = one("cvta.to.global.u64 %rd1, %rd2;");
  CHECK(i.op == Opcode::Cvta);
  CHECK(i.mod.to_space);
  CHECK(i.space == Space::Global);
  i = one("cvta.shared.u64 %rd1, %rd2;");
  CHECK(!i.mod.to_space);
  CHECK(i.space == Space::Shared);
  i = one("isspacep.global %p1, %rd1;");
  CHECK(i.op == Opcode::Isspacep);
  CHECK(i.space == Space::Global);
  i = one("mov.u32 %r1, %tid.x;");
  CHECK(i.ops[1].kind == Operand::Kind::Special);
  CHECK(i.ops[1].special == SpecialReg::Tid);
  CHECK(i.ops[1].component == 0);
  i = one("mov.u32 %r1, %nctaid.z;");
  CHECK(i.ops[1].special == SpecialReg::Nctaid);
  CHECK(i.ops[1].component == 2);
  CHECK(one("mov.u32 %r1, %laneid;").ops[1].special == SpecialReg::Laneid);
  CHECK(one("mov.u32 %r1, %warpid;").ops[1].special == SpecialReg::Warpid);
  CHECK(one("mov.u32 %r1, %smid;").ops[1].special == SpecialReg::Smid);
  CHECK(one("mov.u64 %rd1, %clock64;").ops[1].special == SpecialReg::Clock64);
  CHECK(one("mov.u32 %r1, %clock;").ops[1].special == SpecialReg::Clock);
  CHECK(one("mov.u64 %rd1, %globaltimer;").ops[1].special == SpecialReg::Globaltimer);
  CHECK(one("mov.u32 %r1, %lanemask_lt;").ops[1].special == SpecialReg::LanemaskLt);
  CHECK(one("mov.u32 %r1, %dynamic_smem_size;").ops[1].special == SpecialReg::DynamicSmemSize);
  i = one("mov.b32 %r1, {%rs1, %rs2};");
  REQUIRE(i.ops[1].kind == Operand::Kind::Vec);
  CHECK(i.ops[1].vec_count == 2);
  CHECK(i.ops[1].vec[1] == RS + 2);
  i = one("mov.b64 {%r1, _}, %rd1;");
  CHECK(i.ops[0].vec[0] == R + 1);
  CHECK(i.ops[0].vec[1] == -1);
  i = one("mov.u64 %rd1, gbuf;");
  CHECK(i.ops[1].kind == Operand::Kind::Symbol);
  CHECK(i.ops[1].scope == Operand::Scope::Variable);
  CHECK(i.ops[1].symbol == 0);
  i = one("mov.u64 %rd1, helper;");
  CHECK(i.ops[1].kind == Operand::Kind::Symbol);
  CHECK(i.ops[1].scope == Operand::Scope::Function);
  CHECK(i.ops[1].symbol == 0);
  i = one("mov.u64 %rd1, sm;");
  CHECK(i.ops[1].scope == Operand::Scope::Variable);
  CHECK(i.ops[1].symbol == 1);
}

TEST_CASE("103 instructions: loads, stores, atomics and reductions") {
  Instruction i = one("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];");
  CHECK(i.op == Opcode::Ld);
  CHECK(i.space == Space::Global);
  CHECK(i.mod.nc);
  CHECK(i.mod.vec == 4);
  CHECK(i.type == Type::F32);
  REQUIRE(i.ops[0].kind == Operand::Kind::Vec);
  CHECK(i.ops[0].vec_count == 4);
  CHECK(i.ops[0].vec[3] == F + 4);
  CHECK(i.ops[1].kind == Operand::Kind::Addr);
  CHECK(i.ops[1].reg == RD + 1);
  CHECK(i.ops[1].offset == 16);
  i = one("ld.param.u64 %rd1, [k_param_0];");
  CHECK(i.space == Space::Param);
  CHECK(i.ops[1].scope == Operand::Scope::Param);
  CHECK(i.ops[1].symbol == 0);
  i = one("st.shared.v2.f32 [sm+8], {%f1, %f2};");
  CHECK(i.op == Opcode::St);
  CHECK(i.space == Space::Shared);
  CHECK(i.mod.vec == 2);
  CHECK(i.ops[0].symbol == 1);
  CHECK(i.ops[0].offset == 8);
  CHECK(one("ld.shared::cta.u32 %r1, [%rd1];").space == Space::Shared);
  i = one("ld.u32 %r1, [%rd1+-4];");
  CHECK(i.space == Space::Generic);
  CHECK(i.ops[1].offset == -4);
  CHECK(one("ld.global.u32 %r1, [%rd1-8];").ops[1].offset == -8);
  i = one("ld.global.u32 %r1, [1024];");
  CHECK(i.ops[1].reg == -1);
  CHECK(i.ops[1].symbol == -1);
  CHECK(i.ops[1].offset == 1024);
  CHECK(one("ld.global.v4.u32 {%r1, %r2, _, %r4}, [gbuf];").ops[0].vec[2] == -1);
  CHECK(one("ld.volatile.global.u32 %r1, [%rd1];").mod.volatile_);
  i = one("ld.relaxed.gpu.global.u32 %r1, [%rd1];");
  CHECK(i.mod.relaxed_or_acquire);
  CHECK(i.mod.mem_sem == MemSem::Relaxed);
  CHECK(i.mod.mem_scope == MemScope::Gpu);
  CHECK(one("ld.acquire.sys.global.u32 %r1, [%rd1];").mod.mem_sem == MemSem::Acquire);
  CHECK(one("st.release.cta.shared.u32 [%rd1], %r1;").mod.mem_sem == MemSem::Release);
  CHECK(one("st.global.cs.f32 [%rd1], %f1;").mod.cache == CacheOp::Cs);
  CHECK(one("st.global.wb.f32 [%rd1], %f1;").mod.cache == CacheOp::Wb);
  CHECK(one("ld.global.cg.f32 %f1, [%rd1];").mod.cache == CacheOp::Cg);
  CHECK(one("ld.global.L1::evict_last.f32 %f1, [%rd1];").mod.mode_l2_evict);
  CHECK(one("ld.global.nc.L1::no_allocate.v2.f32 {%f1, %f2}, [%rd1];").mod.vec == 2);
  CHECK(one("ld.const.f32 %f1, [gbuf+4];").space == Space::Const);
  CHECK(one("ld.local.u32 %r1, [%rd1];").space == Space::Local);
  CHECK(one("ldu.global.f32 %f1, [%rd1];").op == Opcode::Ldu);
  i = one("prefetch.global.L2 [%rd1];");
  CHECK(i.op == Opcode::Prefetch);
  CHECK(i.space == Space::Global);
  CHECK(one("prefetch.global.L2::evict_last [%rd1];").mod.mode_l2_evict);
  CHECK(one("prefetchu.L1 [%rd1];").op == Opcode::Prefetchu);
  i = one("atom.global.add.f32 %f1, [%rd1], %f2;");
  CHECK(i.op == Opcode::Atom);
  CHECK(i.mod.atom == AtomOp::Add);
  CHECK(i.space == Space::Global);
  CHECK(i.type == Type::F32);
  i = one("atom.shared.cas.b32 %r1, [%rd1], %r2, %r3;");
  CHECK(i.mod.atom == AtomOp::Cas);
  CHECK(i.ops.size() == 4);
  i = one("red.global.add.u32 [%rd1], 1;");
  CHECK(i.op == Opcode::Red);
  CHECK(i.ops.size() == 2);
  CHECK(one("atom.global.exch.b64 %rd1, [%rd2], %rd3;").mod.atom == AtomOp::Exch);
  i = one("atom.add.noftz.f16 %rs1, [%rd1], %rs2;");
  CHECK(i.space == Space::Generic);
  CHECK(i.type == Type::F16);
  CHECK(one("atom.global.inc.u32 %r1, [%rd1], 10;").mod.atom == AtomOp::Inc);
  CHECK(one("atom.global.dec.u32 %r1, [%rd1], 10;").mod.atom == AtomOp::Dec);
  CHECK(one("atom.global.min.s32 %r1, [%rd1], %r2;").mod.atom == AtomOp::Min);
  CHECK(one("atom.global.max.u64 %rd1, [%rd1], %rd2;").mod.atom == AtomOp::Max);
  CHECK(one("atom.global.and.b32 %r1, [%rd1], %r2;").mod.atom == AtomOp::And);
  CHECK(one("atom.global.or.b32 %r1, [%rd1], %r2;").mod.atom == AtomOp::Or);
  CHECK(one("atom.global.xor.b32 %r1, [%rd1], %r2;").mod.atom == AtomOp::Xor);
  CHECK(one("atom.global.add.f64 %fd1, [%rd1], %fd2;").type == Type::F64);
  i = one("atom.global.sys.add.u32 %r1, [%rd1], 1;");
  CHECK(i.mod.mem_scope == MemScope::Sys);
  CHECK(one("atom.relaxed.gpu.global.add.u32 %r1, [%rd1], 1;").mod.mem_sem == MemSem::Relaxed);
  CHECK(one("atom.global.add.u32 _, [%rd1], 1;").ops[0].kind == Operand::Kind::Sink);
}

TEST_CASE("103 instructions: barriers, fences and warp-level operations") {
  Instruction i = one("bar.sync 0;");
  CHECK(i.op == Opcode::Bar);
  CHECK(i.mod.bar == BarMode::Sync);
  CHECK(i.mod.aligned);
  REQUIRE(i.ops.size() == 1);
  CHECK(is_int(i.ops[0], 0));
  i = one("bar.sync 1, 64;");
  CHECK(i.ops.size() == 2);
  CHECK(is_int(i.ops[1], 64));
  i = one("barrier.sync.aligned 0;");
  CHECK(i.op == Opcode::Bar);
  CHECK(i.mod.bar == BarMode::Sync);
  CHECK(i.mod.aligned);
  CHECK(!one("barrier.sync 0;").mod.aligned);
  i = one("bar.red.popc.u32 %r1, 0, %p1;");
  CHECK(i.mod.bar == BarMode::Red);
  CHECK(i.mod.popc);
  CHECK(i.type == Type::U32);
  i = one("bar.red.and.pred %p1, 0, !%p2;");
  CHECK(i.mod.bar_red == BoolOp::And);
  CHECK(i.ops[2].neg);
  CHECK(one("bar.red.or.pred %p1, 0, %p2;").mod.bar_red == BoolOp::Or);
  CHECK(one("bar.arrive 1, 64;").mod.bar == BarMode::Arrive);
  i = one("bar.warp.sync -1;");
  CHECK(i.mod.bar == BarMode::WarpSync);
  CHECK(is_int(i.ops[0], ~0ull));
  CHECK(one("membar.gl;").mod.mem_scope == MemScope::Gpu);
  CHECK(one("membar.cta;").mod.mem_scope == MemScope::Cta);
  CHECK(one("membar.sys;").mod.mem_scope == MemScope::Sys);
  i = one("fence.sc.cta;");
  CHECK(i.op == Opcode::Fence);
  CHECK(i.mod.mem_sem == MemSem::Sc);
  CHECK(i.mod.mem_scope == MemScope::Cta);
  i = one("fence.acq_rel.gpu;");
  CHECK(i.mod.mem_sem == MemSem::AcqRel);
  CHECK(i.mod.mem_scope == MemScope::Gpu);
  i = one("shfl.sync.bfly.b32 %r1|%p1, %r2, %r3, %r4, %r5;");
  CHECK(i.op == Opcode::Shfl);
  CHECK(i.mod.shfl == ShflMode::Bfly);
  CHECK(i.mod.sync);
  CHECK(i.pair_dest);
  REQUIRE(i.ops.size() == 6);
  CHECK(is_reg(i.ops[0], R + 1));
  CHECK(is_reg(i.ops[1], P + 1));
  CHECK(is_reg(i.ops[5], R + 5));
  CHECK(one("shfl.sync.up.b32 %r1|%p1, %r2, 1, 0, -1;").mod.shfl == ShflMode::Up);
  CHECK(one("shfl.sync.down.b32 %r1|%p1, %r2, 16, 31, -1;").mod.shfl == ShflMode::Down);
  i = one("shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;");
  CHECK(i.mod.shfl == ShflMode::Idx);
  CHECK(!i.pair_dest);
  i = one("vote.sync.ballot.b32 %r1, %p1, -1;");
  CHECK(i.mod.vote == VoteMode::Ballot);
  i = one("vote.sync.all.pred %p1, !%p2, %r1;");
  CHECK(i.mod.vote == VoteMode::All);
  CHECK(i.type == Type::Pred);
  CHECK(i.ops[1].neg);
  CHECK(one("vote.sync.any.pred %p1, %p2, -1;").mod.vote == VoteMode::Any);
  CHECK(one("vote.sync.uni.pred %p1, %p2, -1;").mod.vote == VoteMode::Uni);
  i = one("match.any.sync.b32 %r1, %r2, -1;");
  CHECK(i.op == Opcode::Match);
  CHECK(!i.mod.match_all);
  i = one("match.all.sync.b32 %r1|%p1, %r2, -1;");
  CHECK(i.mod.match_all);
  CHECK(i.pair_dest);
  i = one("redux.sync.add.s32 %r1, %r2, -1;");
  CHECK(i.op == Opcode::Redux);
  CHECK(i.mod.atom == AtomOp::Add);
  CHECK(one("redux.sync.max.s32 %r1, %r2, -1;").mod.atom == AtomOp::Max);
  CHECK(one("redux.sync.or.b32 %r1, %r2, -1;").mod.atom == AtomOp::Or);
  CHECK(one("activemask.b32 %r1;").op == Opcode::Activemask);
  CHECK(one("nanosleep.u32 100;").op == Opcode::Nanosleep);
}

TEST_CASE("103 instructions: control flow and guards") {
  Function f = parse_body(R"(
$L__BB0_1:
	@!%p1 bra 	$L__BB0_1;
	bra.uni 	$L__BB0_2;
$L__BB0_2:
	@%p2 exit;
	trap;
	ret;)");
  REQUIRE(f.instructions.size() == 5);
  CHECK(f.instructions[0].guard == P + 1);
  CHECK(f.instructions[0].guard_neg);
  CHECK(f.instructions[0].ops[0].label == 0);
  CHECK(f.instructions[1].mod.uni);
  CHECK(f.instructions[1].ops[0].label == 2);
  CHECK(f.instructions[2].op == Opcode::Exit);
  CHECK(f.instructions[2].guard == P + 2);
  CHECK(f.instructions[3].op == Opcode::Trap);
  CHECK(f.instructions[4].op == Opcode::Ret);
}

TEST_CASE("103 instructions: immediate literals") {
  Instruction i = one("mov.f32 %f1, 0f3F800000;");
  CHECK(i.ops[1].imm_kind == Operand::ImmKind::F32);
  CHECK(i.ops[1].bits == 0x3F800000u);
  i = one("mov.f64 %fd1, 0d3FF0000000000000;");
  CHECK(i.ops[1].imm_kind == Operand::ImmKind::F64);
  CHECK(i.ops[1].bits == 0x3FF0000000000000ull);
  CHECK(one("mov.f32 %f1, 0fBF800000;").ops[1].bits == 0xBF800000u);
  CHECK(is_int(one("mov.u32 %r1, -1;").ops[1], ~0ull));
  CHECK(is_int(one("mov.u32 %r1, 0x10U;").ops[1], 16));
  CHECK(is_int(one("mov.u32 %r1, 0XffU;").ops[1], 255));
  CHECK(is_int(one("mov.u32 %r1, 017;").ops[1], 15));
  CHECK(is_int(one("mov.u32 %r1, 42U;").ops[1], 42));
  CHECK(is_int(one("mov.u32 %r1, 0;").ops[1], 0));
  CHECK(is_int(one("mov.u32 %r1, 0b101;").ops[1], 5));
  CHECK(is_int(one("mov.u64 %rd1, -9223372036854775808;").ops[1], 0x8000000000000000ull));
  CHECK(is_int(one("mov.u64 %rd1, 18446744073709551615;").ops[1], ~0ull));
  i = one("mov.f64 %fd1, 1.5;");
  CHECK(i.ops[1].imm_kind == Operand::ImmKind::F64);
  double d;
  std::memcpy(&d, &i.ops[1].bits, 8);
  CHECK(d == 1.5);
  i = one("mov.f64 %fd1, -2.5e-1;");
  std::memcpy(&d, &i.ops[1].bits, 8);
  CHECK(d == -0.25);
  CHECK(is_int(one("add.s32 %r1, %r2, -4;").ops[2], static_cast<uint64_t>(-4)));
}

TEST_CASE("103 instructions: text and line of every instruction") {
  Function f = parse_body("\tadd.s32 \t%r3,\n\t\t%r1, %r2;  // sum\n\tret;");
  REQUIRE(f.instructions.size() == 2);
  CHECK(f.instructions[0].text == "add.s32 %r3, %r1, %r2;");
  CHECK(f.instructions[0].ptx_line == 15);
  CHECK(f.instructions[1].ptx_line == 17);
}

TEST_CASE("103 instructions: asynchronous copies, mbarriers, proxy fences, elect") {
  Instruction i = one("cp.async.cg.shared.global.L2::128B [%r1+16], [%rd1+32], 16, %r2;");
  CHECK(i.op == Opcode::CpAsync);
  CHECK(i.space == Space::Shared);
  CHECK(i.mod.async_src == Space::Global);
  CHECK(i.mod.cache == CacheOp::Cg);
  REQUIRE(i.ops.size() == 4);
  CHECK(i.ops[0].offset == 16);
  CHECK(i.ops[1].offset == 32);
  CHECK(is_int(i.ops[2], 16));
  CHECK(one("cp.async.ca.shared::cta.global [%r1], [%rd1], 4, %p1;").mod.cache == CacheOp::Ca);
  // Triton's spelling: spaces inside the brackets, a hex size, src-size in a register.
  i = one("@%p1 cp.async.cg.shared.global [ %r1 + 0 ], [ %rd1 + 0 ], 0x10, %r2;");
  CHECK(i.op == Opcode::CpAsync);
  CHECK(is_int(i.ops[2], 16));
  CHECK(i.guard >= 0);
  CHECK(one("cp.async.commit_group;").op == Opcode::CpAsyncCommit);
  i = one("cp.async.wait_group 2;");
  CHECK(i.op == Opcode::CpAsyncWait);
  CHECK(!i.mod.full);
  CHECK(is_int(i.ops[0], 2));
  CHECK(one("cp.async.wait_all;").mod.full);
  i = one("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];");
  CHECK(i.op == Opcode::CpAsyncMbarrierArrive);
  CHECK(i.mod.noinc);
  i =
      one("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, "
          "[%r2];");
  CHECK(i.op == Opcode::CpAsyncBulk);
  CHECK(i.space == Space::Shared);
  CHECK(i.mod.async_src == Space::Global);
  CHECK(!i.mod.bulk_group);
  i = one("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2;");
  CHECK(i.space == Space::Global);
  CHECK(i.mod.bulk_group);
  CHECK(one("cp.async.bulk.commit_group;").op == Opcode::CpAsyncBulkCommit);
  i = one("cp.async.bulk.wait_group.read 0;");
  CHECK(i.op == Opcode::CpAsyncBulkWait);
  CHECK(i.mod.bulk_read);
  i = one("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p1, [%r1], %r2, %r3;");
  CHECK(i.op == Opcode::Mbarrier);
  CHECK(i.mod.mbar == MbarOp::TryWait);
  CHECK(i.mod.parity);
  CHECK(i.mod.mem_sem == MemSem::Acquire);
  CHECK(i.space == Space::Shared);
  i = one("mbarrier.arrive.expect_tx.release.cluster.shared::cta.b64 _, [%r1], 64;");
  CHECK(i.mod.mbar == MbarOp::Arrive);
  CHECK(i.mod.expect_tx);
  CHECK(i.mod.mem_scope == MemScope::Cluster);
  CHECK(i.ops[0].kind == Operand::Kind::Sink);
  CHECK(one("mbarrier.init.b64 [%rd1], 32;").space == Space::Generic);
  CHECK(one("mbarrier.arrive_drop.shared.b64 %rd1, [%r1];").mod.mbar == MbarOp::ArriveDrop);
  CHECK(one("mbarrier.pending_count.b64 %r1, %rd1;").mod.mbar == MbarOp::PendingCount);
  CHECK(one("fence.proxy.async.shared::cta;").mod.proxy_async);
  i = one("fence.mbarrier_init.release.cluster;");
  CHECK(i.mod.mbarrier_init);
  CHECK(i.mod.mem_scope == MemScope::Cluster);
  i = one("elect.sync %r1|%p1, -1;");
  CHECK(i.op == Opcode::Elect);
  CHECK(i.pair_dest);
}
