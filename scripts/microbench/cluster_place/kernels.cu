// The kernels of ../cluster_place.cu without its per-block records, for the simulator
// (cluster_place.toml): the model's answer beside the H100's (h100-cluster-place-2026-11-27.md).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// dsmem_neighbor with the reader's distance as a parameter: block r reads block (r + dist) % C.
extern "C" __global__ void neighbor_dist(unsigned* out, int iters, int dist) {
  __shared__ unsigned s[1024];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 1;
  cluster.sync();
  const unsigned next = (cluster.block_rank() + dist) % cluster.num_blocks();
  const unsigned* remote = cluster.map_shared_rank(s, next);
  unsigned sum = 0;
  for (int i = 0; i < iters; ++i) sum += remote[(threadIdx.x + 33u * i) % 1024];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  cluster.sync();
}

extern "C" __global__ void sync_rounds(unsigned* out, int iters) {
  cg::cluster_group cluster = cg::this_cluster();
  unsigned n = 0;
  for (int i = 0; i < iters; ++i) {
    cluster.sync();
    ++n;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}

struct __align__(64) TensorMap {
  unsigned long long opaque[16];
};
__device__ __forceinline__ unsigned saddr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// tma_copy_f32 with mode: 0 load + store (the corpus kernel), 1 load only, 2 store only.
extern "C" __global__ void tma_mode(const __grid_constant__ TensorMap in,
                                    const __grid_constant__ TensorMap out, int mode) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  if (threadIdx.x != 0) return;
  const unsigned b = saddr(&bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("prefetch.tensormap [%0];" ::"l"(&in) : "memory");
  if (mode != 2) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(4096)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "
        "[%1, {%2, %3}], [%4];" ::"r"(saddr(tile)),
        "l"(&in), "r"(x), "r"(y), "r"(b)
        : "memory");
    unsigned done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
          "0, p; }"
          : "=r"(done)
          : "r"(b), "r"(0)
          : "memory");
  }
  if (mode != 1) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            &out),
        "r"(x), "r"(y), "r"(saddr(tile))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
