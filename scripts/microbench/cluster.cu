// WarpLab microbenchmark: thread-block clusters on Hopper, for the [cluster] section of
// configs/h100-sxm.toml (sim/timing/dsmem.h, block_scheduler.h).
//
//   nvcc -O3 -arch=sm_90 -o cluster scripts/microbench/cluster.cu && ./cluster > h100-cluster-DATE.tsv
//   (scripts/microbench/cluster.sh does this and keeps the SASS beside the table)
//
// Every row is `test  param  value  unit` (TSV, '#' lines are comments):
//   local_chase        1      one thread chasing indices through its own shared memory
//                             (ld.shared::cta + the address arithmetic): cycles per step
//   remote_chase       1      the same chase in block rank 1's shared memory through
//                             ld.shared::cluster at mapa addresses: cycles per step
//   remote_extra       1      remote_chase - local_chase: what crossing to another SM adds
//   mapa_chain         1      one thread, dependent mapa.shared::cluster (each on the last
//                             result): cycles per mapa
//   cluster_barrier    SIZE   warp 0 of every block of a cluster of SIZE blocks (one warp a
//                             block): barrier.cluster.arrive.release + wait.acquire in a loop,
//                             cycles per barrier
//   cluster_barrier4w  SIZE   the same with 4 warps a block
//   remote_store_bw    SIZE   every block of clusters of SIZE stores 16 KiB into the next rank's
//                             shared memory (st.shared::cluster.v4, 256 threads): bytes per SM
//                             cycle, all SMs
// Cycles are SM clock cycles (clock64) taken by one thread around the loop; each figure is the
// median of 9 launches.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

constexpr int kSteps = 1024;
constexpr int kChain = 1024;  // u32 slots of the chase

__device__ __forceinline__ uint64_t clk() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ uint32_t rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;"
               ::: "memory");
}
__device__ __forceinline__ uint32_t mapa(uint32_t a, uint32_t r) {
  uint32_t d;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(r));
  return d;
}

// Slot i holds (i * 97 + 1) % kChain: a permutation that jumps over the banks.
__device__ void fill_chain(uint32_t* s) {
  for (int i = threadIdx.x; i < kChain; i += blockDim.x) s[i] = (i * 97 + 1) % kChain;
}

// ---- 1. chases: local, remote; mapa ---------------------------------------------------------
__global__ void chase(uint64_t* out, int remote) {
  __shared__ uint32_t s[kChain];
  fill_chain(s);
  cluster_sync();
  if (rank() == 0 && threadIdx.x == 0) {
    const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(s));
    const uint32_t rbase = remote ? mapa(base, 1) : base;
    uint32_t idx = 0;
    const uint64_t t0 = clk();
    for (int i = 0; i < kSteps; ++i) {
      if (remote)
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(idx) : "r"(rbase + idx * 4));
      else
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(idx) : "r"(rbase + idx * 4));
    }
    const uint64_t t1 = clk();
    out[0] = t1 - t0;
    out[1] = idx;
  }
  cluster_sync();
}

__global__ void mapa_chain(uint64_t* out) {
  __shared__ uint32_t s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = threadIdx.x;
  cluster_sync();
  if (rank() == 0 && threadIdx.x == 0) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(s));
    const uint64_t t0 = clk();
    for (int i = 0; i < kSteps; ++i) a = mapa(a, i & 1);
    const uint64_t t1 = clk();
    out[0] = t1 - t0;
    out[1] = a;
  }
  cluster_sync();
}

// ---- 2. barrier.cluster ------------------------------------------------------------------------
__global__ void barrier_loop(uint64_t* out) {
  cluster_sync();
  const uint64_t t0 = clk();
  for (int i = 0; i < kSteps; ++i) cluster_sync();
  const uint64_t t1 = clk();
  if (rank() == 0 && threadIdx.x == 0) out[0] = t1 - t0;
}

// ---- 3. remote store bandwidth -------------------------------------------------------------------
constexpr int kBwBytes = 16384;
__global__ void remote_store(uint64_t* out, int reps) {
  __shared__ __align__(16) uint4 s[kBwBytes / 16];
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(s));
  const uint32_t dst = mapa(base, (rank() + 1) % n);
  cluster_sync();
  const uint64_t t0 = clk();
  for (int r = 0; r < reps; ++r)
    for (int i = threadIdx.x; i < kBwBytes / 16; i += blockDim.x)
      asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst + i * 16),
                   "r"(r), "r"(i), "r"(r), "r"(i)
                   : "memory");
  cluster_sync();
  const uint64_t t1 = clk();
  if (threadIdx.x == 0) out[blockIdx.x] = t1 - t0;
}

// ---- driver ---------------------------------------------------------------------------------------
template <class... A>
void launch(void (*k)(A...), int grid, int block, int cluster, A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  if (cluster > 8)
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaLaunchKernelEx(&cfg, k, args...));
  CK(cudaDeviceSynchronize());
}

template <class F>
double median9(F&& f) {
  std::vector<double> v;
  for (int i = 0; i < 9; ++i) v.push_back(f());
  std::sort(v.begin(), v.end());
  return v[4];
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0, sms = prop.multiProcessorCount;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  printf("# device\t%s\tsms=%d\tclock_khz=%d\n", prop.name, sms, clock_khz);
  uint64_t* d_out;
  const int kOut = 4096;
  CK(cudaMalloc(&d_out, kOut * sizeof(uint64_t)));
  std::vector<uint64_t> h(kOut);
  auto read = [&](int n) {
    CK(cudaMemcpy(h.data(), d_out, n * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  };
  // 1. chases and mapa
  double chase_cycles[2];
  for (int remote = 0; remote < 2; ++remote) {
    chase_cycles[remote] = median9([&] {
      launch(chase, 2, 32, 2, d_out, remote);
      read(1);
      return double(h[0]) / kSteps;
    });
    printf("%s\t1\t%.2f\tcycles/step\n", remote ? "remote_chase" : "local_chase",
           chase_cycles[remote]);
  }
  printf("remote_extra\t1\t%.2f\tcycles\n", chase_cycles[1] - chase_cycles[0]);
  printf("mapa_chain\t1\t%.2f\tcycles/mapa\n", median9([&] {
           launch(mapa_chain, 2, 32, 2, d_out);
           read(1);
           return double(h[0]) / kSteps;
         }));
  // 2. barrier.cluster by cluster size, 1 and 4 warps a block
  for (int warps : {1, 4})
    for (int size : {1, 2, 4, 8, 16}) {
      const double c = median9([&] {
        launch(barrier_loop, size, 32 * warps, size, d_out);
        read(1);
        return double(h[0]) / kSteps;
      });
      printf("%s\t%d\t%.2f\tcycles/barrier\n", warps == 1 ? "cluster_barrier" : "cluster_barrier4w",
             size, c);
    }
  // 3. remote store bandwidth: one block per SM (as many whole clusters as fit)
  const int reps = 64;
  for (int size : {2, 4, 8}) {
    const int grid = sms / size * size;
    const double bpc = median9([&] {
      launch(remote_store, grid, 256, size, d_out, reps);
      read(grid);
      double worst = 0;
      for (int b = 0; b < grid; ++b) worst = std::max(worst, double(h[b]));
      return double(kBwBytes) * reps / worst;
    });
    printf("remote_store_bw\t%d\t%.2f\tbytes/SM-cycle\n", size, bpc);
  }
  CK(cudaFree(d_out));
  return 0;
}
