// Where t.tma.copy_edges.large's time goes (issue 25; stop 36): the corpus's tma_copy_f32 (one
// 32 x 32 f32 box per one-warp block: TMA load, mbarrier wait, TMA store, wait_group.read) beside
// its parts, at the corpus point's size (W = 4000, H = 2000), so that their times say which part
// sets the ~280-360 SM cycles per box operation per SM the H100 showed (h100-tma-copy-2026-11-27.tsv):
//   tma_copy_f32  the corpus kernel itself (validation/kernels/tensor/tma_wgmma.cu);
//   load_only   the TMA load and its mbarrier wait, no store;
//   store_only  the TMA store of the block's (zeroed) tile and its wait_group.read, no load;
//   empty       the same grid and shared memory, only the mbarrier init: block turnover alone;
//   copy_x4     one block copies 4 boxes (a column of 4), one after another through one tile:
//               a quarter of the blocks, the same boxes.
// The corpus kernel and its helpers come from tma_wgmma.cu, included whole (its other kernels are
// compiled and not launched).

#include "../../../validation/kernels/tensor/tma_wgmma.cu"

// The block's mbarrier, initialised for one arrival and made visible to the TMA unit.
__device__ __forceinline__ unsigned init_bar(unsigned long long* bar) {
  const unsigned b = smem_addr(bar);
  mbar_init(b, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  return b;
}

__device__ __forceinline__ void tma_store(const TensorMap* map, int x, int y, unsigned src) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
      "r"(x), "r"(y), "r"(src)
      : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

extern "C" __global__ void load_only(const __grid_constant__ TensorMap in,
                                     const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
    mbar_wait(b, 0);
  }
}

extern "C" __global__ void store_only(const __grid_constant__ TensorMap in,
                                      const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  for (int i = threadIdx.x; i < 32 * 32; i += 32) tile[i] = 0.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    tma_store(&out, x, y, smem_addr(tile));
  }
}

extern "C" __global__ void empty(const __grid_constant__ TensorMap in,
                                 const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  if (threadIdx.x == 0) {
    init_bar(&bar);
    if (blockIdx.x == 0xFFFFFFFFu) tile[0] = 1.0f;  // keeps the tile's shared memory
  }
}

extern "C" __global__ void copy_x4(const __grid_constant__ TensorMap in,
                                   const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    for (int k = 0; k < 4; ++k) {
      const int y = (blockIdx.y * 4 + k) * 32;
      tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
      mbar_wait(b, k & 1);
      tma_store(&out, x, y, smem_addr(tile));
    }
  }
}
