// WarpLab microbenchmark: barrier.cluster by cluster size C, warps a block W and how many
// clusters run at once (one cluster, or 128 blocks as validation/kernels/cluster/dsmem.cu's
// cluster_sync), for configs/h100-sxm.toml's [cluster] barrier_* (sim/timing/dsmem.h).
//
//   nvcc -O3 -arch=sm_90 -o cluster_barrier scripts/microbench/cluster_barrier.cu && ./cluster_barrier
//
// cg_loop: cg::this_cluster().sync() (SASS: MEMBAR.ALL.GPU, CGAERRBAR, UCGABAR_ARV, then
// UCGABAR_WAIT, CCTL.IVALL) 512 times; aligned_loop: barrier.cluster.arrive.release.aligned +
// wait.acquire.aligned (the same SASS). Each row: the median over blocks of thread 0's clock64
// cycles per barrier, the slowest block's, and the launch's event time per barrier in ns x 1000
// / 1000 (ns); each the median of 5 launches.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
namespace cg = cooperative_groups;
#include "cuda_check.h"
__device__ __forceinline__ long long clk() { long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory"); return t; }
constexpr int kIters = 512;
extern "C" __global__ void cg_loop(long long* out, unsigned* o2) {
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  long long t0 = clk();
  unsigned n = 0;
  for (int i = 0; i < kIters; ++i) { cluster.sync(); ++n; }
  long long t1 = clk();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
  o2[blockIdx.x * blockDim.x + threadIdx.x] = n;
}
extern "C" __global__ void aligned_loop(long long* out, unsigned* o2) {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  long long t0 = clk();
  unsigned n = 0;
  for (int i = 0; i < kIters; ++i) { asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory"); ++n; }
  long long t1 = clk();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
  o2[blockIdx.x * blockDim.x + threadIdx.x] = n;
}
int main() {
  long long* out; unsigned* o2;
  CK(cudaMalloc(&out, 4096 * 8)); CK(cudaMalloc(&o2, 4096 * 1024 * 4));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  printf("# kernel\tC\tW\tgrid\tcycles_per_barrier_median_block\tcycles_max_block\tevent_us_per_barrier_x1000\n");
  for (int kind = 0; kind < 2; ++kind)
    for (int C : {1, 2, 4, 8})
      for (int W : {1, 8})
        for (int grid : {C, 128}) {
          void (*k)(long long*, unsigned*) = kind ? aligned_loop : cg_loop;
          cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(grid); cfg.blockDim = dim3(32 * W);
          cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
          at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
          cfg.attrs = at; cfg.numAttrs = 1;
          std::vector<double> med, mx, ev;
          for (int r = 0; r < 5; ++r) {
            CK(cudaEventRecord(e0));
            CK(cudaLaunchKernelEx(&cfg, k, out, o2));
            CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            std::vector<long long> h(grid); CK(cudaMemcpy(h.data(), out, grid * 8, cudaMemcpyDeviceToHost));
            std::sort(h.begin(), h.end());
            med.push_back(double(h[grid / 2]) / kIters); mx.push_back(double(h[grid - 1]) / kIters); ev.push_back(ms * 1e6 / kIters);
          }
          std::sort(med.begin(), med.end()); std::sort(mx.begin(), mx.end()); std::sort(ev.begin(), ev.end());
          printf("%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\n", kind ? "aligned" : "cg_sync", C, W, grid, med[2], mx[2], ev[2]);
        }
  return 0;
}
