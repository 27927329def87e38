// WarpLab microbenchmark (issue 25): the latency of global atomics whose result is used (ATOMG
// with a return value, as bfs_step's atomicCAS claim and hash_build's insert issue them), timed
// with clock64() inside the kernel (SM cycles; one block of 1 or 4 warps on one SM).
//
//   nvcc -O3 -arch=sm_90 -o atomics atomics.cu && ./atomics > atomics.csv
//   cuobjdump -sass atomics   (check one ATOMG per link and no warp aggregation where noted)
//
// Each warp runs one dependent chain: a link's address comes from the previous link's returned
// value, so the warp waits for every round trip to the L2 slice and back. cycles_per_op is the
// median over the warps of (clock64 after - clock64 before) / LINKS. The buffer (256 x 32 words)
// is touched once first, so every link hits in the L2.
//   add_lanes    atomicAdd(&p[row * 32 + lane], 1): 32 words of one line per link
//   cas_lanes    atomicCAS(&p[row * 32 + lane], v, v + 1): the same addresses, compare-and-swap
//   add_one_lane lane 0 alone: atomicAdd(&p[row * 32], 1) (one sector per link)
//   ld_cg_lanes  the same chain with ld.global.cg loads instead (the L2 round trip without the
//                atomic unit; compare with chains.cu's ldg_l2)
// The model (configs/h100-sxm.toml) answers an atomic with a return value after the L2 round
// trip plus l2.atomic_latency (12) and the atomic unit's queue; this measures that sum.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../cuda_check.h"

constexpr int LINKS = 512;
constexpr int ROWS = 256;

__device__ __forceinline__ unsigned row_of(unsigned v, int i) { return (v ^ (unsigned)i) & (ROWS - 1); }

__global__ void add_lanes(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS; ++i) v = atomicAdd(&p[row_of(v, i) * 32 + lane], 1u);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

__global__ void cas_lanes(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS; ++i) v = atomicCAS(&p[row_of(v, i) * 32 + lane], v, v + 1u);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

__global__ void add_one_lane(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  if (lane == 0)
    for (int i = 0; i < LINKS; ++i) v = atomicAdd(&p[row_of(v, i) * 32 + threadIdx.x / 32], 1u);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

__global__ void ld_cg_lanes(unsigned* p, long long* cycles, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  unsigned v = threadIdx.x / 32;
  long long t0 = clock64();
  for (int i = 0; i < LINKS; ++i) v += __ldcg(&p[row_of(v, i) * 32 + lane]);
  long long t1 = clock64();
  if (lane == 0) cycles[threadIdx.x / 32] = t1 - t0;
  sink[threadIdx.x] = v;
}

__global__ void touch(unsigned* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = 0u;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  unsigned *d_p, *d_sink;
  long long* d_cycles;
  CK(cudaMalloc(&d_p, ROWS * 32 * sizeof(unsigned)));
  CK(cudaMalloc(&d_sink, 1024 * sizeof(unsigned)));
  CK(cudaMalloc(&d_cycles, 32 * sizeof(long long)));
  printf("# device,%s,sm_clock_khz,%d\n", prop.name, khz);
  printf("kernel,sass,warps,links,cycles_per_op_median,cycles_per_op_min,cycles_per_op_max\n");
  using K = void (*)(unsigned*, long long*, unsigned*);
  struct {
    const char* name;
    const char* sass;
    K k;
  } ks[] = {{"add_lanes", "ATOMG.E.ADD", add_lanes},
            {"cas_lanes", "ATOMG.E.CAS", cas_lanes},
            {"add_one_lane", "ATOMG.E.ADD", add_one_lane},
            {"ld_cg_lanes", "LDG.E.STRONG.GPU", ld_cg_lanes}};
  for (auto& k : ks) {
    for (int warps : {1, 4}) {
      std::vector<long long> c(warps);
      for (int rep = 0; rep < 3; ++rep) {  // the last of three runs: the buffer's lines in L2
        touch<<<64, 256>>>(d_p, ROWS * 32);
        k.k<<<1, warps * 32>>>(d_p, d_cycles, d_sink);
      }
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(c.data(), d_cycles, warps * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(c.begin(), c.end());
      printf("%s,%s,%d,%d,%.2f,%.2f,%.2f\n", k.name, k.sass, warps, LINKS,
             (double)c[warps / 2] / LINKS, (double)c[0] / LINKS, (double)c[warps - 1] / LINKS);
    }
  }
  return 0;
}
