// Is t.tma.copy_edges.large's extra time the DRAM write-back of its stores? (issue 25, stop 37)
// tma_copy_f32 (validation/kernels/tensor/tma_wgmma.cu, included whole) beside copy_wrap8: the
// same blocks, loads and stores, but block (x, y) stores its box to (x, y % 8): the 7,875 stores
// land in 8 rows of boxes (4 MB of lines that stay in the L2), so nothing is written back to
// DRAM while the per-SM TMA work and the L2 write requests are the same.
#include "../../../validation/kernels/tensor/tma_wgmma.cu"

extern "C" __global__ void copy_wrap8(const __grid_constant__ TensorMap in,
                                      const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  if (threadIdx.x == 0) {
    const unsigned b = smem_addr(&bar);
    mbar_init(b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
    mbar_wait(b, 0);
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&out),
        "r"(x), "r"((blockIdx.y % 8) * 32), "r"(smem_addr(tile))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
