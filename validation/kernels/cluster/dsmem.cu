// Validation corpus: thread-block clusters and distributed shared memory (sim/func/cluster.h,
// sim/timing/dsmem.h). The experiment (../../experiments/cluster_dsmem.toml) launches these with
// `cluster = [C, 1, 1]`; every output is a constant the checks know.
//
// dsmem_sum:      each block adds up its share of `in` (all ones), weighted by its rank + 1, into
//                 shared memory; after barrier.cluster every block reads every block's sum
//                 through mapa + ld.shared::cluster and divides the total by C (C + 1) / 2:
//                 out[block] = blockDim.x * per_thread (only when every rank's sum was read).
// dsmem_neighbor: each thread reads the next block's shared memory `iters` times (all ones) at
//                 bank-spread offsets: out[thread] = iters. Remote load latency and bandwidth.
// cluster_sync:   `iters` barrier.cluster arrive/wait rounds: out[thread] = iters. Its cost.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void dsmem_sum(const unsigned* in, unsigned* out, int per_thread) {
  __shared__ unsigned partial;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) partial = 0;
  __syncthreads();
  const size_t base = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * per_thread;
  unsigned s = 0;
  for (int i = 0; i < per_thread; ++i) s += in[base + i];
  atomicAdd(&partial, s * (cluster.block_rank() + 1));
  cluster.sync();
  if (threadIdx.x == 0) {
    unsigned total = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) total += *cluster.map_shared_rank(&partial, r);
    const unsigned n = cluster.num_blocks();
    out[blockIdx.x] = total / (n * (n + 1) / 2);
  }
  cluster.sync();  // no block leaves while another may still read its shared memory
}

extern "C" __global__ void dsmem_neighbor(unsigned* out, int iters) {
  __shared__ unsigned s[1024];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 1;
  cluster.sync();
  const unsigned next = (cluster.block_rank() + 1) % cluster.num_blocks();
  const unsigned* remote = cluster.map_shared_rank(s, next);
  unsigned sum = 0;
  for (int i = 0; i < iters; ++i) sum += remote[(threadIdx.x + 33u * i) % 1024];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  cluster.sync();
}

extern "C" __global__ void cluster_sync(unsigned* out, int iters) {
  cg::cluster_group cluster = cg::this_cluster();
  unsigned n = 0;
  for (int i = 0; i < iters; ++i) {
    cluster.sync();
    ++n;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}
