// PTX kernels of the asynchronous-copy and mbarrier tests (tests/246-247), written by hand in the
// forms nvcc and Triton emit (cuda_pipeline's cp.async, cuda::barrier's mbarrier, TMA's bulk
// copies). Each kernel's comment says what it computes; the tests compute the same in C++.
#pragma once

namespace warplab::test {

constexpr const char* kAsyncPtx = R"PTX(
.version 8.0
.target sm_90
.address_size 64

// cp_sizes(src, out): lane l copies, with one cp.async each,
//   16 bytes src[16l, 16l+16) to A[16l] with src-size l % 17 (the rest zero-filled),
//   8 bytes src[512+8l, ...) to B[8l], ignore-src when l is odd (all eight bytes zero),
//   4 bytes src[768+4l, ...) to C[4l],
// waits for them and writes A, B, C (896 bytes) to out.
.visible .entry cp_sizes(.param .u64 p_src, .param .u64 p_out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 sm[896];
  ld.param.u64 %rd1, [p_src];
  ld.param.u64 %rd2, [p_out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 4;
  add.s32 %r4, %r2, %r3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  rem.u32 %r5, %r1, 17;
  cp.async.cg.shared.global [%r4], [%rd4], 16, %r5;
  shl.b32 %r3, %r1, 3;
  add.s32 %r4, %r2, %r3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  and.b32 %r6, %r1, 1;
  setp.ne.u32 %p1, %r6, 0;
  cp.async.ca.shared.global [%r4+512], [%rd4+512], 8, %p1;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global.L2::128B [%r4+768], [%rd4+768], 4;
  cp.async.commit_group;
  cp.async.wait_group 0;
  // out[4t .. 4t+4) for t = l, l+32, ... < 224: one u32 per step
  mov.u32 %r7, %r1;
$copy:
  shl.b32 %r8, %r7, 2;
  add.s32 %r9, %r2, %r8;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd5, %r8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r10;
  add.s32 %r7, %r7, 32;
  setp.lt.u32 %p1, %r7, 224;
  @%p1 bra $copy;
  ret;
}

// groups(src, out): lane l issues group 1 (src[l] -> X[l]) and group 2 (src[32+l] -> Y[l]),
// then records X[l], Y[l] before any wait (out[0..64)), after wait_group 1 (out[64..128)) and
// after wait_all (out[128..192)).
.visible .entry groups(.param .u64 p_src, .param .u64 p_out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b32 X[32];
  .shared .align 16 .b32 Y[32];
  ld.param.u64 %rd1, [p_src];
  ld.param.u64 %rd2, [p_out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  mov.u32 %r2, X;
  mov.u32 %r3, Y;
  shl.b32 %r4, %r1, 2;
  add.s32 %r2, %r2, %r4;
  add.s32 %r3, %r3, %r4;
  cp.async.ca.shared.global [%r2], [%rd4], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r3], [%rd4+128], 4;
  cp.async.commit_group;
  ld.shared.u32 %r5, [%r2];
  ld.shared.u32 %r6, [%r3];
  st.global.u32 [%rd5], %r5;
  st.global.u32 [%rd5+128], %r6;
  cp.async.wait_group 1;
  ld.shared.u32 %r5, [%r2];
  ld.shared.u32 %r6, [%r3];
  st.global.u32 [%rd5+256], %r5;
  st.global.u32 [%rd5+384], %r6;
  cp.async.wait_all;
  ld.shared.u32 %r5, [%r2];
  ld.shared.u32 %r6, [%r3];
  st.global.u32 [%rd5+512], %r5;
  st.global.u32 [%rd5+640], %r6;
  ret;
}

// pipeline(src, out, tiles, depth): a double-buffered loop. Lane l keeps two stages S[2][32];
// before tile t is read, tile t+1's copy is issued into the other stage and committed, then
// `cp.async.wait_group depth` (1 is right: all but the newest group; 2 forgets to wait). Each
// tile's value v becomes out[32t + l] = 3v + 1.
.visible .entry pipeline(.param .u64 p_src, .param .u64 p_out, .param .u32 p_tiles,
                         .param .u32 p_depth)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b32 S[64];
  ld.param.u64 %rd1, [p_src];
  ld.param.u64 %rd2, [p_out];
  ld.param.u32 %r1, [p_tiles];
  ld.param.u32 %r2, [p_depth];
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, S;
  shl.b32 %r5, %r3, 2;
  add.s32 %r4, %r4, %r5;          // &S[0][l]
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;       // &src[l]
  add.s64 %rd5, %rd2, %rd3;       // &out[l]
  cp.async.ca.shared.global [%r4], [%rd4], 4;
  cp.async.commit_group;
  mov.u32 %r6, 0;                 // t
$loop:
  add.s32 %r7, %r6, 1;
  setp.lt.u32 %p1, %r7, %r1;
  and.b32 %r8, %r7, 1;
  shl.b32 %r8, %r8, 7;
  add.s32 %r9, %r4, %r8;          // &S[(t+1)&1][l]
  mul.wide.u32 %rd6, %r7, 128;
  add.s64 %rd7, %rd4, %rd6;       // &src[32(t+1) + l]
  @%p1 cp.async.ca.shared.global [%r9], [%rd7], 4;
  cp.async.commit_group;
  setp.eq.u32 %p2, %r2, 1;
  @%p2 cp.async.wait_group 1;
  @!%p2 cp.async.wait_group 2;
  and.b32 %r10, %r6, 1;
  shl.b32 %r10, %r10, 7;
  add.s32 %r11, %r4, %r10;
  ld.shared.u32 %r12, [%r11];
  mad.lo.s32 %r13, %r12, 3, 1;
  mul.wide.u32 %rd8, %r6, 128;
  add.s64 %rd9, %rd5, %rd8;
  st.global.u32 [%rd9], %r13;
  mov.u32 %r6, %r7;
  @%p1 bra $loop;
  ret;
}

// mbar_rules(out): one thread walks an mbarrier through its rules and records, in out[0..16):
//   0: pending count of the state of arrive #1 (3, the count before it)
//   1: pending count of the state of arrive #2 (count 2; it completes phase 0) (2)
//   2: test_wait with arrive #1's state (1: its phase completed)
//   3,4: test_wait.parity 0 / 1 (1 / 0: phase 0 done, phase 1 running)
//   5: after arrive.expect_tx 64 and an arrive of 2, test_wait.parity 1 (0: 64 tx bytes due)
//   6: after complete_tx 64 (1)
//   7: try_wait.parity 0 with expect_tx 16 then complete_tx 16 while arrivals pend (0)
//   8: after arrive_drop and an arrive of 2 (1: phase 2 done with 3 - 1 expected)
//   9: pending count of an arrive's state in phase 3 (2: the expected count is now 2)
//  10: elect.sync's leader over lanes 0..31 (0) for this single thread
.visible .entry mbar_rules(.param .u64 p_out)
{
  .reg .pred %p<10>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r1, bar;
  mbarrier.init.shared::cta.b64 [%r1], 3;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.shared.b64 %rd2, [%r1];
  mbarrier.pending_count.b64 %r2, %rd2;
  st.global.u32 [%rd1], %r2;
  mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [%r1], 2;
  mbarrier.pending_count.b64 %r2, %rd3;
  st.global.u32 [%rd1+4], %r2;
  mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd1+8], %r3;
  mbarrier.test_wait.parity.shared.b64 %p2, [%r1], 0;
  selp.u32 %r3, 1, 0, %p2;
  st.global.u32 [%rd1+12], %r3;
  mov.u32 %r4, 1;
  mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %p3, [%r1], %r4;
  selp.u32 %r3, 1, 0, %p3;
  st.global.u32 [%rd1+16], %r3;
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r1], 64;
  mbarrier.arrive.shared.b64 _, [%r1], 2;
  mbarrier.test_wait.parity.shared.b64 %p4, [%r1], 1;
  selp.u32 %r3, 1, 0, %p4;
  st.global.u32 [%rd1+20], %r3;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 64;
  mbarrier.test_wait.parity.shared.b64 %p5, [%r1], 1;
  selp.u32 %r3, 1, 0, %p5;
  st.global.u32 [%rd1+24], %r3;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 16;
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r1], 0;
  selp.u32 %r3, 1, 0, %p6;
  st.global.u32 [%rd1+28], %r3;
  mbarrier.arrive_drop.shared.b64 _, [%r1];
  mbarrier.arrive.shared.b64 _, [%r1], 2;
  mbarrier.test_wait.parity.shared.b64 %p7, [%r1], 0;
  selp.u32 %r3, 1, 0, %p7;
  st.global.u32 [%rd1+32], %r3;
  mbarrier.arrive.shared.b64 %rd4, [%r1];
  mbarrier.pending_count.b64 %r2, %rd4;
  st.global.u32 [%rd1+36], %r2;
  elect.sync %r5|%p8, 0xffffffff;
  st.global.u32 [%rd1+40], %r5;
  mbarrier.inval.shared.b64 [%r1];
  ret;
}

// mbar_misuse(mode): mode 0 arrives on an mbarrier never initialised; mode 1 arrives with a count
// of 3 on one initialised with 2; mode 2 waits on a phase nobody completes.
.visible .entry mbar_misuse(.param .u32 p_mode)
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  .shared .align 8 .b64 bar;
  ld.param.u32 %r1, [p_mode];
  mov.u32 %r2, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $arrive;
  mbarrier.init.shared.b64 [%r2], 2;
  setp.eq.u32 %p2, %r1, 2;
  @%p2 bra $wait;
  mbarrier.arrive.shared.b64 _, [%r2], 3;
  ret;
$arrive:
  mbarrier.arrive.shared.b64 _, [%r2];
  ret;
$wait:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r2], 0;
  @!%p3 bra $wait;
  ret;
}

// elect_lanes(out, mask): lanes 5..31 execute elect.sync with member mask `mask`; out[l] is the
// leader's lane (d) and out[32 + l] the predicate, for those lanes (others keep 99).
.visible .entry elect_lanes(.param .u64 p_out, .param .u32 p_mask)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u32 %r1, [p_mask];
  mov.u32 %r2, %laneid;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  setp.lt.u32 %p1, %r2, 5;
  @%p1 bra $done;
  elect.sync %r3|%p2, %r1;
  selp.u32 %r4, 1, 0, %p2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+128], %r4;
$done:
  ret;
}

// tma_1d(src, out): 64 threads. Thread 0 initialises the mbarrier (count 1); after bar.sync,
// warp 0 waits on phase 0 first (functional mode runs it first: it must wait, not hang), while
// warp 1's elected lane announces 256 bytes (arrive.expect_tx) and starts the bulk copy of
// src[0..64) into T. Every thread then writes out[t] = T[t] + 1 (t < 64).
.visible .entry tma_1d(.param .u64 p_src, .param .u64 p_out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 T[64];
  ld.param.u64 %rd1, [p_src];
  ld.param.u64 %rd2, [p_out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  mov.u32 %r3, T;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $synced;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  fence.mbarrier_init.release.cluster;
  fence.proxy.async.shared::cta;
$synced:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra $wait;
  elect.sync _|%p3, 0xffffffff;
  @!%p3 bra $wait;
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r2], 256;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 256, [%r2];
$wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r2], 0;
  @!%p4 bra $wait;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  ld.shared.u32 %r6, [%r5];
  add.s32 %r6, %r6, 1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}

// cp_mbar(src, out, noinc): 32 threads copy src[l] to V[l] with cp.async and have the copies
// arrive on an mbarrier (cp.async.mbarrier.arrive, .noinc when noinc != 0: then the init count
// is 32; without it each thread also arrives itself and the count is 32 too). After the phase,
// out[l] = V[l ^ 1] (a neighbour's copy: it must have landed).
.visible .entry cp_mbar(.param .u64 p_src, .param .u64 p_out, .param .u32 p_noinc)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 V[32];
  ld.param.u64 %rd1, [p_src];
  ld.param.u64 %rd2, [p_out];
  ld.param.u32 %r9, [p_noinc];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  mov.u32 %r3, V;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $synced;
  mbarrier.init.shared.b64 [%r2], 32;
$synced:
  bar.sync 0;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r5], [%rd4], 4;
  setp.ne.u32 %p2, %r9, 0;
  @%p2 cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];
  @!%p2 cp.async.mbarrier.arrive.shared::cta.b64 [%r2];
  @!%p2 mbarrier.arrive.shared.b64 _, [%r2];
$wait:
  mbarrier.test_wait.parity.shared.b64 %p3, [%r2], 0;
  @!%p3 bra $wait;
  xor.b32 %r6, %r1, 1;
  shl.b32 %r6, %r6, 2;
  add.s32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r8;
  ret;
}

// bulk_store(out, seen): thread 0 fills W[0..32) with 1000 + i, stores W to out with a bulk
// copy in a bulk group, records out[0] before waiting (seen[0]), waits with .read, then
// overwrites W (which the copy has read already) and waits for the group to finish.
.visible .entry bulk_store(.param .u64 p_out, .param .u64 p_seen)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .shared .align 128 .b32 W[32];
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_seen];
  mov.u32 %r1, W;
  mov.u32 %r2, 0;
$fill:
  shl.b32 %r3, %r2, 2;
  add.s32 %r4, %r1, %r3;
  add.s32 %r5, %r2, 1000;
  st.shared.u32 [%r4], %r5;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 32;
  @%p1 bra $fill;
  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 128;
  cp.async.bulk.commit_group;
  ld.global.u32 %r6, [%rd1];
  st.global.u32 [%rd2], %r6;
  cp.async.bulk.wait_group.read 0;
  st.shared.u32 [%r1], 7;
  cp.async.bulk.wait_group 0;
  ret;
}

// cluster_one(out, rank): blocks of 64 threads, each a cluster of one. Thread t stores
// 100 * ctaid + t to S[t] through st.shared::cluster at the address mapa gives for block `rank`
// of the cluster, passes barrier.cluster.arrive/wait, then reads S[63 - t] with
// ld.shared::cluster: out[64 ctaid + t] = S[63 - t] + (%clusterid.x << 16) + (%cluster_ctarank
// << 20) + (%cluster_nctarank << 24) + (%cluster_nctaid.x << 28). A rank other than 0 is a fault.
.visible .entry cluster_one(.param .u64 p_out, .param .u32 p_rank)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 S[64];
  ld.param.u64 %rd1, [p_out];
  ld.param.u32 %r20, [p_rank];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, S;
  mapa.shared::cluster.u32 %r5, %r3, %r20;
  shl.b32 %r6, %r1, 2;
  add.s32 %r7, %r5, %r6;
  mad.lo.s32 %r8, %r2, 100, %r1;
  st.shared::cluster.u32 [%r7], %r8;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  sub.s32 %r9, 63, %r1;
  shl.b32 %r9, %r9, 2;
  add.s32 %r10, %r5, %r9;
  ld.shared::cluster.u32 %r11, [%r10];
  mov.u32 %r12, %clusterid.x;
  shl.b32 %r12, %r12, 16;
  add.s32 %r11, %r11, %r12;
  mov.u32 %r13, %cluster_ctarank;
  shl.b32 %r13, %r13, 20;
  add.s32 %r11, %r11, %r13;
  mov.u32 %r14, %cluster_nctarank;
  shl.b32 %r14, %r14, 24;
  add.s32 %r11, %r11, %r14;
  mov.u32 %r15, %cluster_nctaid.x;
  shl.b32 %r15, %r15, 28;
  add.s32 %r11, %r11, %r15;
  mad.lo.s32 %r16, %r2, 64, %r1;
  mul.wide.u32 %rd2, %r16, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
}

// tensor_copy: a TMA tensor copy through a map in global memory (the kernel only; tests/248 runs
// tensor copies).
.visible .entry tensor_copy(.param .u64 p_map)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b32 T[64];
  mov.u32 %r1, bar;
  mov.u32 %r2, T;
  ld.param.u64 %rd1, [p_map];
  mov.u32 %r3, 0;
  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3}], [%r1];
  ret;
}
)PTX";

}  // namespace warplab::test
