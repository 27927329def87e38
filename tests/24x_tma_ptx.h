// PTX kernels of the TMA tensor-copy tests (tests/248), written by hand in the forms nvcc and
// Triton emit: a __grid_constant__ CUtensorMap parameter named through cvta.param, the map built
// on the device with tensormap.replace and published with tensormap.cp_fenceproxy (Triton's
// tl.make_tensor_descriptor). Each kernel's comment says what it does; the tests compute the
// expected bytes in C++.
#pragma once

#include <string>

namespace warplab::test {

// tma_load_<rank>d(map, out, bytes, c0..c<rank-1>): thread 0 starts one tensor copy of the box at
// (c0, ..) into `tile` (1024-byte aligned, at shared offset 0), reporting to an mbarrier that
// expects `bytes`; every thread waits on the mbarrier, then the block writes the first `bytes`
// bytes of `tile` to out.
inline std::string tma_load_ptx(int rank) {
  std::string params, loads, coords;
  for (int i = 0; i < rank; ++i) {
    const std::string n = std::to_string(i);
    params += ", .param .s32 p_c" + n;
    loads += "  ld.param.u32 %c" + n + ", [p_c" + n + "];\n";
    coords += (i ? ", %c" : "%c") + n;
  }
  const std::string r = std::to_string(rank);
  return R"(
.visible .entry tma_load_)" + r + R"(d(.param .align 64 .b8 tmap[128], .param .u64 p_out, .param .u32 p_bytes)" +
         params + R"()
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b32 %c<6>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[16384];
  .shared .align 8 .b64 bar;
  mov.b64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [p_out];
  ld.param.u32 %r1, [p_bytes];
)" + loads + R"(
  mov.u32 %r4, tile;
  mov.u32 %r5, bar;
  mov.u32 %r6, %tid.x;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p1 prefetch.tensormap [%rd2];
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], %r1;
  @%p1 cp.async.bulk.tensor.)" + r + R"(d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r4], [%rd2, {)" +
         coords + R"(}], [%r5];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
  @!%p2 bra WAIT;
  mov.u32 %r7, %r6;
LOOP:
  shl.b32 %r8, %r7, 2;
  setp.ge.u32 %p3, %r8, %r1;
  @%p3 bra DONE;
  add.u32 %r9, %r4, %r8;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd4, %r8;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r10;
  add.u32 %r7, %r7, 32;
  bra LOOP;
DONE:
  ret;
}
)";
}

constexpr const char* kTmaPtx = R"PTX(
.version 8.3
.target sm_90a
.address_size 64

// tma_store_2d(map, src, bytes, c0, c1): the block copies `bytes` bytes of src into `tile`,
// fences them for the async proxy, and thread 0 stores the box at (c0, c1) with one tensor copy
// in a bulk group and waits for it.
.visible .entry tma_store_2d(.param .align 64 .b8 tmap[128], .param .u64 p_src, .param .u32 p_bytes, .param .s32 p_c0, .param .s32 p_c1)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 1024 .b8 tile[16384];
  mov.b64 %rd1, tmap;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [p_src];
  ld.param.u32 %r1, [p_bytes];
  ld.param.u32 %r2, [p_c0];
  ld.param.u32 %r3, [p_c1];
  mov.u32 %r4, tile;
  mov.u32 %r6, %tid.x;
  mov.u32 %r7, %r6;
LOOP:
  shl.b32 %r8, %r7, 2;
  setp.ge.u32 %p3, %r8, %r1;
  @%p3 bra COPIED;
  cvt.u64.u32 %rd4, %r8;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.u32 %r10, [%rd5];
  add.u32 %r9, %r4, %r8;
  st.shared.u32 [%r9], %r10;
  add.u32 %r7, %r7, 32;
  bra LOOP;
COPIED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r2, %r3}], [%r4];
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group 0;
  ret;
}

// tma_device_map(scratch, base, out, W, H, c0, c1): Triton's device-side descriptor. Warp 0
// zeroes a 128-byte map in shared memory, lane 0 writes its fields with tensormap.replace (an
// f32 W x H row-major tensor at `base`, a 16 x 8 box, 64-byte swizzle, zero fill), warp 0
// publishes it to global `scratch` with tensormap.cp_fenceproxy and fences it; then thread 0
// loads the box at (c0, c1) through the map at `scratch` (a generic global address) and the
// block writes the 512-byte tile to out.
.visible .entry tma_device_map(.param .u64 p_scratch, .param .u64 p_base, .param .u64 p_out, .param .u32 p_w, .param .u32 p_h, .param .s32 p_c0, .param .s32 p_c1)
{
  .reg .pred %p<6>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .shared .align 1024 .b8 tile[512];
  .shared .align 128 .b8 desc[128];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [p_scratch];
  ld.param.u64 %rd2, [p_base];
  ld.param.u64 %rd3, [p_out];
  ld.param.u32 %r1, [p_w];
  ld.param.u32 %r2, [p_h];
  ld.param.u32 %r11, [p_c0];
  ld.param.u32 %r12, [p_c1];
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, desc;
  mov.u32 %r5, tile;
  mov.u32 %r6, bar;
  setp.lt.u32 %p1, %r3, 32;
  setp.eq.u32 %p2, %r3, 0;
  shl.b32 %r7, %r3, 2;
  add.u32 %r8, %r4, %r7;
  mov.u32 %r9, 0;
  @%p1 st.shared.b32 [%r8], %r9;
  bar.warp.sync -1;
  @%p2 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r4], %rd2;
  @%p2 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r4], 1;
  mov.u32 %r13, 16;
  mov.u32 %r14, 8;
  @%p2 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r4], 0, %r13;
  @%p2 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r4], 1, %r14;
  @%p2 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r4], 0, %r1;
  @%p2 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r4], 1, %r2;
  mul.wide.u32 %rd4, %r1, 4;
  @%p2 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r4], 0, %rd4;
  mov.u32 %r15, 1;
  @%p2 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r4], 0, %r15;
  @%p2 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r4], 1, %r15;
  @%p2 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r4], 7;
  @%p2 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r4], 0;
  @%p2 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r4], 2;
  @%p2 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r4], 0;
  @%p1 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r4], 128;
  @%p2 fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
  @%p2 mbarrier.init.shared::cta.b64 [%r6], 1;
  bar.sync 0;
  cvta.global.u64 %rd5, %rd1;
  @%p2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], 512;
  @%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r5], [%rd5, {%r11, %r12}], [%r6];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r6], 0;
  @!%p3 bra WAIT;
  setp.lt.u32 %p4, %r3, 128;
  @!%p4 bra DONE;
  add.u32 %r16, %r5, %r7;
  ld.shared.u32 %r17, [%r16];
  cvt.u64.u32 %rd6, %r7;
  add.s64 %rd7, %rd3, %rd6;
  st.global.u32 [%rd7], %r17;
DONE:
  ret;
}
)PTX";

// The PTX module header and every load kernel (1d..5d), then kTmaPtx's kernels.
inline std::string tma_module() {
  std::string m = kTmaPtx;
  for (int r = 1; r <= 5; ++r) m += tma_load_ptx(r);
  return m;
}

}  // namespace warplab::test
