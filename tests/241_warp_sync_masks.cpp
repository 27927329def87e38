// Warp-level .sync instructions with a member mask per lane (PTX ISA: each executing lane computes
// its result over the lanes of its own membermask), and synccheck's reports of the uses the GPU
// leaves undefined. The kernels are hand-written PTX so that every lane can be given any mask:
// tiles of every width 1..32, labeled partitions (arbitrary disjoint groups), and broken masks.
// Every result is checked against a plain C++ model of the group computed here.
#include <algorithm>
#include <bit>
#include <random>
#include <sstream>

#include "21x_sim.h"
#include "lab/compile.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

// out[t*16 + i]: 0 ballot(v>50), 1 all|any<<1|uni<<2, 2 redux.add.u32, 3 min.s32, 4 max.s32,
// 5 min.u32, 6 max.u32, 7 and, 8 or, 9 xor, 10 match.any(v&3), 11 match.all(v>>6),
// 12 match.all pred, 13 shfl.idx from the mask's highest lane, 14 shfl.bfly 1 (c = 31),
// 15 shfl.up 1 with c = (32 - popc(mask)) << 8 (a segment per lane), plus 0x10000 when in range.
const char* kSyncPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry sync_ops(.param .u64 pin, .param .u64 pmask, .param .u64 pout)
{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<10>;
	ld.param.u64 	%rd1, [pin];
	ld.param.u64 	%rd2, [pmask];
	ld.param.u64 	%rd3, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	cvta.to.global.u64 	%rd3, %rd3;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd1, %rd4;
	ld.global.u32 	%r2, [%rd5];
	add.s64 	%rd6, %rd2, %rd4;
	ld.global.u32 	%r3, [%rd6];
	mul.wide.u32 	%rd7, %r1, 64;
	add.s64 	%rd8, %rd3, %rd7;
	setp.gt.s32 	%p1, %r2, 50;
	vote.sync.ballot.b32 	%r4, %p1, %r3;
	st.global.u32 	[%rd8], %r4;
	vote.sync.all.pred 	%p2, %p1, %r3;
	selp.u32 	%r5, 1, 0, %p2;
	vote.sync.any.pred 	%p3, %p1, %r3;
	selp.u32 	%r6, 2, 0, %p3;
	vote.sync.uni.pred 	%p4, %p1, %r3;
	selp.u32 	%r7, 4, 0, %p4;
	or.b32 	%r5, %r5, %r6;
	or.b32 	%r5, %r5, %r7;
	st.global.u32 	[%rd8+4], %r5;
	redux.sync.add.u32 	%r8, %r2, %r3;
	st.global.u32 	[%rd8+8], %r8;
	redux.sync.min.s32 	%r9, %r2, %r3;
	st.global.u32 	[%rd8+12], %r9;
	redux.sync.max.s32 	%r10, %r2, %r3;
	st.global.u32 	[%rd8+16], %r10;
	redux.sync.min.u32 	%r11, %r2, %r3;
	st.global.u32 	[%rd8+20], %r11;
	redux.sync.max.u32 	%r12, %r2, %r3;
	st.global.u32 	[%rd8+24], %r12;
	redux.sync.and.b32 	%r13, %r2, %r3;
	st.global.u32 	[%rd8+28], %r13;
	redux.sync.or.b32 	%r14, %r2, %r3;
	st.global.u32 	[%rd8+32], %r14;
	redux.sync.xor.b32 	%r15, %r2, %r3;
	st.global.u32 	[%rd8+36], %r15;
	and.b32 	%r16, %r2, 3;
	match.any.sync.b32 	%r17, %r16, %r3;
	st.global.u32 	[%rd8+40], %r17;
	shr.s32 	%r18, %r2, 6;
	match.all.sync.b32 	%r19|%p5, %r18, %r3;
	st.global.u32 	[%rd8+44], %r19;
	selp.u32 	%r20, 1, 0, %p5;
	st.global.u32 	[%rd8+48], %r20;
	clz.b32 	%r21, %r3;
	mov.u32 	%r22, 31;
	sub.s32 	%r23, %r22, %r21;
	shfl.sync.idx.b32 	%r24, %r2, %r23, 31, %r3;
	st.global.u32 	[%rd8+52], %r24;
	shfl.sync.bfly.b32 	%r25, %r2, 1, 31, %r3;
	st.global.u32 	[%rd8+56], %r25;
	popc.b32 	%r26, %r3;
	mov.u32 	%r27, 32;
	sub.s32 	%r28, %r27, %r26;
	shl.b32 	%r29, %r28, 8;
	shfl.sync.up.b32 	%r30|%p6, %r2, 1, %r29, %r3;
	selp.u32 	%r31, 0x10000, 0, %p6;
	add.s32 	%r31, %r31, %r30;
	st.global.u32 	[%rd8+60], %r31;
	ret;
}
)";

// Kernels that break the rules, one per synccheck case. Each marks its instruction with a
// comment naming the case; the test finds that PTX line.
const char* kBadPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry not_self(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [pout];
	mov.u32 	%r1, %laneid;
	setp.lt.u32 	%p1, %r1, 16;
	vote.sync.any.pred 	%p2, %p1, -65536; // CASE not_self
	selp.u32 	%r3, 1, 0, %p2;
	ret;
}

.visible .entry differ(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	mov.u32 	%r1, %laneid;
	setp.eq.u32 	%p1, %r1, 5;
	selp.b32 	%r2, 65535, -1, %p1;
	redux.sync.add.u32 	%r3, %r1, %r2; // CASE differ
	ret;
}

.visible .entry other_path(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	mov.u32 	%r1, %laneid;
	setp.ge.u32 	%p1, %r1, 16;
	@%p1 bra 	$L_skip;
	redux.sync.add.u32 	%r3, %r1, -1; // CASE other_path
$L_skip:
	add.u32 	%r4, %r1, 1;
	ret;
}

// CUDA's `if (lane >= 16) return;`: lanes 16-31 branch to the kernel's last ret and only wait
// there to exit, as if they had exited.
.visible .entry returned(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %laneid;
	setp.ge.u32 	%p1, %r1, 16;
	@%p1 bra 	$L_end;
	setp.lt.u32 	%p2, %r1, 4;
	vote.sync.ballot.b32 	%r2, %p2, -1;
	redux.sync.add.u32 	%r3, %r1, -1;
	match.any.sync.b32 	%r5, %r1, -1;
	bar.warp.sync 	-1; // CASE syncwarp_returned
	mul.wide.u32 	%rd2, %r1, 12;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r2;
	st.global.u32 	[%rd3+4], %r3;
	shfl.sync.idx.b32 	%r4, %r1, 20, 31, -1; // CASE shfl_returned
	st.global.u32 	[%rd3+8], %r4;
$L_end:
	ret;
}

.visible .entry predicated(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	mov.u32 	%r1, %laneid;
	setp.lt.u32 	%p1, %r1, 20;
	@%p1 vote.sync.ballot.b32 	%r3, %p1, -1; // CASE predicated
	ret;
}

.visible .entry exited(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [pout];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %laneid;
	setp.ge.u32 	%p1, %r1, 16;
	@%p1 exit;
	setp.lt.u32 	%p2, %r1, 4;
	vote.sync.ballot.b32 	%r2, %p2, -1; // CASE vote_exited_ok
	redux.sync.add.u32 	%r3, %r1, -1; // CASE redux_exited_ok
	bar.warp.sync 	-1; // CASE syncwarp_exited
	mul.wide.u32 	%rd2, %r1, 12;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r2;
	st.global.u32 	[%rd3+4], %r3;
	shfl.sync.idx.b32 	%r4, %r1, 20, 31, 65535; // CASE shfl_exited
	st.global.u32 	[%rd3+8], %r4;
	ret;
}

.visible .entry clean(.param .u64 pout)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	mov.u32 	%r1, %laneid;
	and.b32 	%r2, %r1, 8;
	setp.eq.u32 	%p1, %r2, 0;
	selp.b32 	%r3, 0x00FF00FF, 0xFF00FF00, %p1;
	bar.warp.sync 	%r3;
	redux.sync.add.u32 	%r4, %r1, %r3;
	ret;
}
)";

using test::line_of;

struct Model {
  uint32_t out[16] = {};
};

// What lane l computes when its member mask is m (the lanes of m all execute with mask m).
Model model(const std::vector<int32_t>& v, uint32_t m, int l) {
  Model r;
  uint32_t ballot = 0, add = 0, andv = ~0u, orv = 0, xorv = 0, any_match = 0;
  int32_t smin = INT32_MAX, smax = INT32_MIN;
  uint32_t umin = ~0u, umax = 0;
  bool all_same_hi = true;
  for (int k = 0; k < 32; ++k) {
    if (!((m >> k) & 1u)) continue;
    const int32_t x = v[k];
    const uint32_t u = static_cast<uint32_t>(x);
    ballot |= uint32_t(x > 50) << k;
    add += u;
    smin = std::min(smin, x);
    smax = std::max(smax, x);
    umin = std::min(umin, u);
    umax = std::max(umax, u);
    andv &= u;
    orv |= u;
    xorv ^= u;
    any_match |= uint32_t((x & 3) == (v[l] & 3)) << k;
    if ((x >> 6) != (v[l] >> 6)) all_same_hi = false;
  }
  r.out[0] = ballot;
  const bool all = ballot == m, any = ballot != 0;
  r.out[1] = uint32_t(all) | uint32_t(any) << 1 | uint32_t(all || !any) << 2;
  r.out[2] = add;
  r.out[3] = static_cast<uint32_t>(smin);
  r.out[4] = static_cast<uint32_t>(smax);
  r.out[5] = umin;
  r.out[6] = umax;
  r.out[7] = andv;
  r.out[8] = orv;
  r.out[9] = xorv;
  r.out[10] = any_match;
  r.out[11] = all_same_hi ? m : 0u;
  r.out[12] = all_same_hi;
  r.out[13] = static_cast<uint32_t>(v[31 - std::countl_zero(m)]);
  r.out[14] = static_cast<uint32_t>(v[l ^ 1]);  // bfly 1 with c = 31: always in range
  // shfl.up by 1, c = (32 - popc(m)) << 8: segment mask seg, maxLane = l & seg (PTX pseudo-code).
  const uint32_t seg = (32u - static_cast<uint32_t>(std::popcount(m))) & 31u;
  const int j = l - 1;
  const bool in_range = j >= static_cast<int>(static_cast<uint32_t>(l) & seg);
  r.out[15] = static_cast<uint32_t>(v[in_range ? j : l]) + (in_range ? 0x10000u : 0u);
  return r;
}

// Runs sync_ops on one warp whose lane l has member mask masks[l]; checks every output.
void run_partition(const std::vector<uint32_t>& masks, uint64_t seed, const std::string& what) {
  Sim s(kSyncPtx, "sync.ptx");
  std::mt19937_64 rng(seed);
  std::vector<int32_t> v(32);
  for (int32_t& x : v) x = static_cast<int32_t>(rng() % 201) - 100;
  const uint64_t I = s.buffer("in", v), M = s.buffer("mask", masks),
                 O = s.zeros<uint32_t>("out", 32 * 16);
  func::LaunchConfig lc{"sync_ops", {1, 1, 1}, {32, 1, 1}, 0, s.params("sync_ops", {I, M, O})};
  lc.synccheck = true;
  auto r = func::run_functional(*s.program, s.mem, lc, {});
  REQUIRE(r);
  REQUIRE(!r->fault);
  // Valid groups give no hazard, except a shuffle whose source lane lies outside the reading
  // lane's group (labeled partitions): synccheck reports that read, at the shfl's line.
  auto up_source = [&](int l) {
    const uint32_t seg = (32u - static_cast<uint32_t>(std::popcount(masks[l]))) & 31u;
    return l - 1 >= static_cast<int>(static_cast<uint32_t>(l) & seg) ? l - 1 : l;
  };
  bool bfly_outside = false, up_outside = false;
  for (int l = 0; l < 32; ++l) {
    bfly_outside |= !((masks[l] >> (l ^ 1)) & 1u);
    up_outside |= !((masks[l] >> up_source(l)) & 1u);
  }
  CHECK(r->hazards.size() == size_t(bfly_outside) + size_t(up_outside));
  for (const func::Hazard& h : r->hazards) {
    INFO(what << ": " << h.message);
    CHECK((h.ptx_line == line_of(kSyncPtx, "shfl.sync.bfly") ||
           h.ptx_line == line_of(kSyncPtx, "shfl.sync.up")));
  }
  const auto out = s.read<uint32_t>(O, 32 * 16);
  for (int l = 0; l < 32; ++l) {
    const Model want = model(v, masks[l], l);
    for (int i = 0; i < 16; ++i) {
      // A shuffle's source lane must be in l's group for a defined result.
      if (i == 14 && !((masks[l] >> (l ^ 1)) & 1u)) continue;
      if (i == 15 && !((masks[l] >> up_source(l)) & 1u)) continue;
      INFO(what << ": lane " << l << " mask 0x" << std::hex << masks[l] << std::dec << " output "
                << i);
      CHECK(out[l * 16 + i] == want.out[i]);
    }
  }
}

}  // namespace

TEST_CASE("warp .sync instructions: tiles of every width 1..32 each get their own result") {
  for (int width = 1; width <= 32; width *= 2) {
    std::vector<uint32_t> masks(32);
    const uint32_t tile = width == 32 ? ~0u : (1u << width) - 1u;
    for (int l = 0; l < 32; ++l) masks[l] = tile << (l / width * width);
    run_partition(masks, 100 + width, "tile width " + std::to_string(width));
  }
}

TEST_CASE("warp .sync instructions: labeled partitions (arbitrary disjoint lane groups)") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 12; ++trial) {
    const int groups = 1 + trial % 7;
    std::vector<int> label(32);
    for (int& x : label) x = static_cast<int>(rng() % groups);
    std::vector<uint32_t> masks(32, 0);
    for (int l = 0; l < 32; ++l)
      for (int k = 0; k < 32; ++k)
        if (label[k] == label[l]) masks[l] |= 1u << k;
    run_partition(masks, 1000 + trial, "labeled partition " + std::to_string(trial));
  }
}

TEST_CASE("warp .sync: full mask on a full warp is unchanged (fast path)") {
  run_partition(std::vector<uint32_t>(32, ~0u), 5, "full mask");
}

namespace {

struct BadRun {
  func::FunctionalResult result;
  std::vector<uint32_t> out;
};

BadRun run_bad(const std::string& kernel, bool synccheck, uint32_t threads = 32) {
  Sim s(kBadPtx, "bad.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 32 * 3);
  func::LaunchConfig lc{kernel, {1, 1, 1}, {threads, 1, 1}, 0, s.params(kernel, {O})};
  lc.synccheck = synccheck;
  auto r = func::run_functional(*s.program, s.mem, lc, {});
  REQUIRE(r);
  REQUIRE(!r->fault);
  return {std::move(*r), s.read<uint32_t>(O, 32 * 3)};
}

// Exactly one hazard, at the PTX line marked `marker`, whose message contains `words`.
void check_one(const func::FunctionalResult& r, const std::string& marker, const std::string& words,
               uint32_t thread) {
  REQUIRE(r.hazards.size() == 1);
  const func::Hazard& h = r.hazards[0];
  INFO(h.message);
  CHECK(h.kind == func::Hazard::Kind::WarpSyncMask);
  CHECK(h.ptx_line == line_of(kBadPtx, "CASE " + marker));
  CHECK(h.message.find(words) != std::string::npos);
  CHECK(h.thread.x == thread);
  CHECK(h.kernel != "");
}

}  // namespace

TEST_CASE("synccheck: a lane not in its own member mask") {
  auto r = run_bad("not_self", true).result;
  check_one(r, "not_self", "not in their own member mask", 0);
  CHECK(r.hazards[0].message.find("lane(s) 0-15 ") != std::string::npos);
  CHECK(run_bad("not_self", false).result.hazards.empty());  // off by default: nothing recorded
}

TEST_CASE("synccheck: lanes naming each other with different masks") {
  check_one(run_bad("differ", true).result, "differ", "different member masks", 0);
}

TEST_CASE("synccheck: a mask naming lanes on another path says the SIMT stack is pre-Volta") {
  auto r = run_bad("other_path", true).result;
  check_one(r, "other_path", "pre-Volta", 0);
  CHECK(r.hazards[0].message.find("16-31") != std::string::npos);
}

TEST_CASE("synccheck: a mask naming lanes whose guard predicate is false") {
  auto r = run_bad("predicated", true).result;
  check_one(r, "predicated", "guard predicate is false", 0);
  CHECK(r.hazards[0].message.find("20-31") != std::string::npos);
}

TEST_CASE(
    "synccheck: exited lanes: defined for vote/redux, undefined for bar.warp.sync and a "
    "shfl source") {
  auto b = run_bad("exited", true);
  REQUIRE(b.result.hazards.size() == 2);
  std::sort(b.result.hazards.begin(), b.result.hazards.end(),
            [](const auto& x, const auto& y) { return x.ptx_line < y.ptx_line; });
  CHECK(b.result.hazards[0].ptx_line == line_of(kBadPtx, "CASE syncwarp_exited"));
  CHECK(b.result.hazards[0].message.find("16-31") != std::string::npos);
  CHECK(b.result.hazards[1].ptx_line == line_of(kBadPtx, "CASE shfl_exited"));
  CHECK(b.result.hazards[1].message.find("reads lane 20, which has exited") != std::string::npos);
  // vote and redux over the non-exited lanes of the full mask (PTX ISA): lanes 0..15.
  for (uint32_t l = 0; l < 16; ++l) {
    CHECK(b.out[l * 3] == 0xFu);
    CHECK(b.out[l * 3 + 1] == 120u);  // 0 + 1 + ... + 15
  }
  // A partial warp: the lanes the block lacks count as exited, and nothing else is reported.
  auto p = run_bad("exited", true, 10);
  REQUIRE(p.result.hazards.size() == 2);
  for (const func::Hazard& h : p.result.hazards)
    CHECK(h.message.find("the block's last warp is partial") != std::string::npos);
  for (uint32_t l = 0; l < 10; ++l) CHECK(p.out[l * 3 + 1] == 45u);
}

TEST_CASE("synccheck: lanes that branched to the kernel's last ret count as exited") {
  auto b = run_bad("returned", true);
  REQUIRE(b.result.hazards.size() == 2);
  std::sort(b.result.hazards.begin(), b.result.hazards.end(),
            [](const auto& x, const auto& y) { return x.ptx_line < y.ptx_line; });
  CHECK(b.result.hazards[0].ptx_line == line_of(kBadPtx, "CASE syncwarp_returned"));
  CHECK(b.result.hazards[0].message.find("names lane(s) 16-31 that have exited or returned "
                                         "from the kernel") != std::string::npos);
  CHECK(b.result.hazards[1].ptx_line == line_of(kBadPtx, "CASE shfl_returned"));
  CHECK(b.result.hazards[1].message.find("reads lane 20, which has returned from the kernel") !=
        std::string::npos);
  // vote, redux and match over lanes 0-15 (no hazard), as with exited lanes.
  for (uint32_t l = 0; l < 16; ++l) {
    CHECK(b.out[l * 3] == 0xFu);
    CHECK(b.out[l * 3 + 1] == 120u);
  }
  CHECK(run_bad("returned", false).result.hazards.empty());
}

TEST_CASE("synccheck: a full-mask shfl.down reduction after half the warp returned") {
  // if (lane >= 16) return; v += __shfl_down_sync(0xffffffff, v, 8): lanes 8-15 read lanes 16-23,
  // which have exited (the H100 gave them 0). The redux of the same lanes is defined: 120.
  Sim s(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pout)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [pout];
	mov.u32 	%r1, %laneid;
	setp.ge.u32 	%p1, %r1, 16;
	@%p1 exit;
	redux.sync.add.u32 	%r2, %r1, -1;
	shfl.sync.down.b32 	%r3, %r1, 8, 31, -1;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r2;
	ret;
}
)",
        "down.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 32);
  func::LaunchConfig lc{"k", {1, 1, 1}, {32, 1, 1}, 0, s.params("k", {O})};
  lc.synccheck = true;
  auto r = func::run_functional(*s.program, s.mem, lc, {});
  REQUIRE(r);
  REQUIRE(r->hazards.size() == 1);
  const func::Hazard& h = r->hazards[0];
  INFO(h.message);
  CHECK(h.ptx_line == 14);
  CHECK(h.thread.x == 8);
  CHECK(h.message.find("lane(s) 8-15 read a lane that does not take part") != std::string::npos);
  CHECK(h.message.find("reads lane 16, which has exited") != std::string::npos);
  const auto out = s.read<uint32_t>(O, 16);
  for (uint32_t l = 0; l < 16; ++l) CHECK(out[l] == 120u);
}

TEST_CASE("synccheck: sub-warp masks used correctly give no hazard") {
  CHECK(run_bad("clean", true).result.hazards.empty());
}

TEST_CASE("synccheck on CUDA: the hazard names the CUDA line; correct tiles give none") {
  lab::Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  const std::string cu =
      "#include <cooperative_groups.h>\n"
      "#include <cooperative_groups/reduce.h>\n"
      "namespace cg = cooperative_groups;\n"
      "extern \"C\" __global__ void k(int* out) {\n"
      "  int v = threadIdx.x;\n"
      "  auto tile = cg::tiled_partition<8>(cg::this_thread_block());\n"
      "  out[threadIdx.x] = tile.any(v % 8 == 3) + cg::reduce(tile, v, cg::plus<int>());\n"
      "  if (threadIdx.x < 16)\n"
      "    out[threadIdx.x] += __reduce_add_sync(0xffffffffu, v);  // line 9\n"
      "  out[threadIdx.x] += 1000;  // lanes 16-31 have more to do: they are on another path\n"
      "}\n";
  auto ptx = tc.compile_cuda(cu, "sync.cu", {});
  REQUIRE_MESSAGE(ptx, (ptx ? "" : ptx.error().to_string()));
  Sim s(ptx->ptx, "sync.cu.ptx");
  const uint64_t O = s.zeros<int32_t>("out", 32);
  func::LaunchConfig lc{"k", {1, 1, 1}, {32, 1, 1}, 0, s.params("k", {O})};
  lc.synccheck = true;
  auto r = func::run_functional(*s.program, s.mem, lc, {});
  REQUIRE(r);
  REQUIRE(!r->fault);
  REQUIRE(r->hazards.size() == 1);
  const func::Hazard& h = r->hazards[0];
  INFO(h.message);
  CHECK(h.src_file.ends_with("sync.cu"));
  CHECK(h.src_line == 9);
  CHECK(h.message.find("redux.sync") != std::string::npos);
  CHECK(h.message.find("16-31") != std::string::npos);
  // Results: each tile of 8 its own any and sum; lanes 0-15 add the sum over lanes 0-15, the only
  // lanes that execute the (misused) full-mask reduction in WarpLab; every lane adds 1000. (Had
  // the kernel ended after the `if`, lanes 16-31 would only wait to exit: no hazard, tests/511.)
  const auto out = s.read<int32_t>(O, 32);
  for (int l = 0; l < 32; ++l) {
    const int base = l / 8 * 8;
    const int want = 1 + (base + base + 7) * 4 + (l < 16 ? 120 : 0) + 1000;
    CHECK(out[l] == want);
  }
}
