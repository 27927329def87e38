// What limits t.tma.copy_edges.large on all 132 SMs (issue 25, stop 38): the corpus's boxed TMA
// copy (one 4 KiB box per one-warp block: TMA load, mbarrier wait, TMA store, wait_group.read)
// against variants that keep its traffic and change one thing each:
//   pair_indep   the load and the store issued together (the store sends the tile while the load
//                fills it; Out2 is not checked): the same L2/DRAM traffic without the chain
//                load -> complete_tx -> try_wait -> store;
//   copy_box     tma_copy_f32 with the box's shape (bw x bh f32, 4 KiB) and, through the launch's
//                shared_bytes, the blocks resident a SM (32, 16, 8) as parameters;
//   load_box / store_box   its load alone, its store alone (of a zeroed tile);
//   copy_bulk / load_bulk / store_bulk   the same 4 KiB a block as 1D cp.async.bulk (32
//                consecutive lines instead of 32 rows 4W bytes apart).
// tma_parts.cu brings tma_copy_f32 (tma_wgmma.cu), load_only, store_only and empty.

#include "../tma_parts/tma_parts.cu"

extern "C" __global__ void pair_indep(const __grid_constant__ TensorMap in,
                                      const __grid_constant__ TensorMap out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
    tma_store(&out, x, y, smem_addr(tile));  // commit + wait_group.read inside
    mbar_wait(b, 0);
  }
}

extern "C" __global__ void copy_box(const __grid_constant__ TensorMap in,
                                    const __grid_constant__ TensorMap out, int bw, int bh) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * bw, y = blockIdx.y * bh;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
    mbar_wait(b, 0);
    tma_store(&out, x, y, smem_addr(tile));
  }
}

extern "C" __global__ void load_box(const __grid_constant__ TensorMap in, int bw, int bh) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * bw, y = blockIdx.y * bh;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
    tma_load(smem_addr(tile), &in, x, y, b, sizeof tile);
    mbar_wait(b, 0);
  }
}

extern "C" __global__ void store_box(const __grid_constant__ TensorMap out, int bw, int bh) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * bw, y = blockIdx.y * bh;
  for (int i = threadIdx.x; i < 32 * 32; i += 32) tile[i] = 0.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  if (threadIdx.x == 0) {
    init_bar(&bar);
    tma_store(&out, x, y, smem_addr(tile));
  }
}

__device__ __forceinline__ void bulk_load(unsigned dst, const float* src, unsigned bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(4096u)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(dst),
      "l"(src), "r"(4096u), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void bulk_store(float* dst, unsigned src) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src),
               "r"(4096u)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

extern "C" __global__ void copy_bulk(const float* in, float* out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const size_t at = static_cast<size_t>(blockIdx.x) * 1024;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    bulk_load(smem_addr(tile), in + at, b);
    mbar_wait(b, 0);
    bulk_store(out + at, smem_addr(tile));
  }
}

extern "C" __global__ void load_bulk(const float* in) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const size_t at = static_cast<size_t>(blockIdx.x) * 1024;
  if (threadIdx.x == 0) {
    const unsigned b = init_bar(&bar);
    bulk_load(smem_addr(tile), in + at, b);
    mbar_wait(b, 0);
  }
}

extern "C" __global__ void store_bulk(float* out) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const size_t at = static_cast<size_t>(blockIdx.x) * 1024;
  for (int i = threadIdx.x; i < 32 * 32; i += 32) tile[i] = 0.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  if (threadIdx.x == 0) {
    init_bar(&bar);
    bulk_store(out + at, smem_addr(tile));
  }
}
