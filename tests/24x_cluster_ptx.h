// PTX of the thread-block cluster tests (tests/248_clusters.cpp, tests/344_dsmem_timing.cpp).
#pragma once

namespace warplab::test {

inline constexpr const char* kClusterPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

// cluster_sum(in, sums, count, info): blocks of 128 threads in clusters along x. Each block sums
// its 128 inputs into S (atom.shared.add); every thread also adds 1 to rank 0's counter C through
// atom.shared::cluster; after barrier.cluster, thread 0 of rank 0 adds up every block's S through
// mapa + ld.shared::cluster (even ranks) and generic mapa.u64 + ld (odd ranks):
// sums[%clusterid.x] = the cluster's total, count[%clusterid.x] = C. A second barrier.cluster keeps
// every block alive until rank 0 has read its S. info[global thread] = %cluster_ctarank |
// %clusterid.x << 4 | %nclusterid.x << 10 | %cluster_nctarank << 16 | %cluster_ctaid.x << 21 |
// %cluster_nctaid.x << 25 | %is_explicit_cluster << 30.
.visible .entry cluster_sum(.param .u64 p_in, .param .u64 p_sums, .param .u64 p_count,
                            .param .u64 p_info)
{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .shared .align 4 .b32 S;
  .shared .align 4 .b32 C;
  ld.param.u64 %rd1, [p_in];
  ld.param.u64 %rd2, [p_sums];
  ld.param.u64 %rd3, [p_count];
  ld.param.u64 %rd4, [p_info];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.s32 %r3, %r2, 128, %r1;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r4, [%rd6];
  atom.shared.add.u32 %r5, [S], %r4;
  mov.u32 %r6, C;
  mov.u32 %r7, 0;
  mapa.shared::cluster.u32 %r8, %r6, %r7;
  atom.shared::cluster.add.u32 %r9, [%r8], 1;
  // the special registers
  mov.u32 %r10, %cluster_ctarank;
  mov.u32 %r11, %clusterid.x;
  shl.b32 %r11, %r11, 4;
  or.b32 %r10, %r10, %r11;
  mov.u32 %r11, %nclusterid.x;
  shl.b32 %r11, %r11, 10;
  or.b32 %r10, %r10, %r11;
  mov.u32 %r11, %cluster_nctarank;
  shl.b32 %r11, %r11, 16;
  or.b32 %r10, %r10, %r11;
  mov.u32 %r11, %cluster_ctaid.x;
  shl.b32 %r11, %r11, 21;
  or.b32 %r10, %r10, %r11;
  mov.u32 %r11, %cluster_nctaid.x;
  shl.b32 %r11, %r11, 25;
  or.b32 %r10, %r10, %r11;
  mov.u32 %r11, %is_explicit_cluster;
  shl.b32 %r11, %r11, 30;
  or.b32 %r10, %r10, %r11;
  add.s64 %rd7, %rd4, %rd5;
  st.global.u32 [%rd7], %r10;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  // thread 0 of rank 0 adds up the cluster
  mov.u32 %r12, %cluster_ctarank;
  or.b32 %r13, %r12, %r1;
  setp.ne.u32 %p1, %r13, 0;
  @%p1 bra DONE;
  mov.u32 %r14, %cluster_nctarank;
  mov.u32 %r15, 0;   // rank
  mov.u32 %r16, 0;   // total
  mov.u32 %r17, S;
  cvta.shared.u64 %rd8, S;
LOOP:
  and.b32 %r18, %r15, 1;
  setp.eq.u32 %p2, %r18, 1;
  @%p2 bra ODD;
  mapa.shared::cluster.u32 %r19, %r17, %r15;
  ld.shared::cluster.u32 %r20, [%r19];
  bra.uni NEXT;
ODD:
  mapa.u64 %rd9, %rd8, %r15;
  ld.u32 %r20, [%rd9];
NEXT:
  add.s32 %r16, %r16, %r20;
  add.s32 %r15, %r15, 1;
  setp.lt.u32 %p3, %r15, %r14;
  @%p3 bra LOOP;
  mov.u32 %r21, %clusterid.x;
  mul.wide.u32 %rd10, %r21, 4;
  add.s64 %rd11, %rd2, %rd10;
  st.global.u32 [%rd11], %r16;
  ld.shared.u32 %r22, [C];
  add.s64 %rd12, %rd3, %rd10;
  st.global.u32 [%rd12], %r22;
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}

// ring(out): blocks of 64 threads; thread t of block rank r writes r * 1000 + t to S[t] of rank
// (r + 1) % n through st.shared::cluster, then after barrier.cluster reads its own S[t]:
// out[global thread] = ((r + n - 1) % n) * 1000 + t. Cluster shape from the launch (x, y, z).
.visible .entry ring(.param .u64 p_out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 S[64];
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  add.s32 %r4, %r2, 1;
  rem.u32 %r4, %r4, %r3;
  mov.u32 %r5, S;
  shl.b32 %r6, %r1, 2;
  add.s32 %r5, %r5, %r6;
  mapa.shared::cluster.u32 %r7, %r5, %r4;
  mad.lo.s32 %r8, %r2, 1000, %r1;
  st.shared::cluster.u32 [%r7], %r8;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.shared.u32 %r9, [%r5];
  // global block index: ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)
  mov.u32 %r10, %ctaid.x;
  mov.u32 %r11, %ctaid.y;
  mov.u32 %r12, %ctaid.z;
  mov.u32 %r13, %nctaid.x;
  mov.u32 %r14, %nctaid.y;
  mad.lo.s32 %r15, %r12, %r14, %r11;
  mad.lo.s32 %r15, %r15, %r13, %r10;
  mad.lo.s32 %r16, %r15, 64, %r1;
  mul.wide.u32 %rd2, %r16, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}

// early_exit(out): rank 1 exits at once; rank 0 passes barrier.cluster (exited threads are not
// waited for), then reads rank 1's shared memory (a fault: its shared memory is gone).
.visible .entry early_exit(.param .u64 p_out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .shared .align 4 .b32 S[4];
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mov.u32 %r2, S;
  mov.u32 %r3, 1;
  mapa.shared::cluster.u32 %r4, %r2, %r3;
  ld.shared::cluster.u32 %r5, [%r4];
END:
  ret;
}

// no_arrive(out): rank 1's threads never arrive: they wait on an mbarrier phase nobody
// completes; rank 0 waits at barrier.cluster for them forever (a deadlock).
.visible .entry no_arrive(.param .u64 p_out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .shared .align 8 .b64 M;
  mov.u32 %r1, %cluster_ctarank;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SPIN;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
SPIN:
  mov.u32 %r2, M;
  mbarrier.init.shared::cta.b64 [%r2], 2;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra LOOP;
  ret;
}

// bad_rank(out): mapa to rank 7 of a smaller cluster.
.visible .entry bad_rank(.param .u64 p_out)
{
  .reg .b32 %r<4>;
  .shared .align 4 .b32 S[4];
  mov.u32 %r1, S;
  mov.u32 %r2, 7;
  mapa.shared::cluster.u32 %r3, %r1, %r2;
  ret;
}

// fixed: a kernel with .reqnctapercluster 2, 1, 1.
.visible .entry fixed(.param .u64 p_out) .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r1, %cluster_nctarank;
  mov.u32 %r2, %ctaid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

// regs(out): 2 warpgroups; warpgroup 0 lowers to 40 registers, warpgroup 1 raises to 232 (it
// waits for warpgroup 0's registers); out[tid] = tid after both. .maxnreg 168 is the start.
.visible .entry regs(.param .u64 p_out) .maxnreg 168
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 128;
  @%p1 bra UP;
  setmaxnreg.dec.sync.aligned.u32 40;
  bra.uni STORE;
UP:
  setmaxnreg.inc.sync.aligned.u32 232;
STORE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}

// regs_bad(out): .inc below the current count (168).
.visible .entry regs_bad(.param .u64 p_out) .maxnreg 168
{
  setmaxnreg.inc.sync.aligned.u32 128;
  ret;
}
)";

}  // namespace warplab::test
