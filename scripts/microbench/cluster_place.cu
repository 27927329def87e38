// WarpLab microbenchmark (issues 23/25, helper cluster5): where the H100 places the blocks of a
// cluster launch, and what that placement costs barrier.cluster, remote shared-memory loads and
// TMA box copies. The corpus points it explains: c.cluster_sync.*, c.dsmem_neighbor.* (validation/
// kernels/cluster/dsmem.cu) and t.tma.copy_edges* (validation/kernels/tensor/tma_wgmma.cu).
//
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o cluster_place cluster_place.cu -lcuda
//   ./cluster_place OUTDIR      (writes OUTDIR/*.tsv; a summary on stdout)
//
// Every kernel's thread 0 writes one row per block: its SM (%smid), cluster rank, the SM of the
// block it reads (neighbor/chase), clock64 cycles of its timed region and %globaltimer (ns) at
// the block's start and end, so the block-to-SM placement and each block's time come out of the
// same launch.
//   sync      the corpus's cluster_sync (256 threads, `iters` cg cluster.sync rounds), grid 128
//   neighbor  the corpus's dsmem_neighbor (256 threads read block (rank + dist) % C's shared memory
//             `iters` times at bank-spread offsets), grid 128 or one cluster
//   chase     one thread a block chases a pointer ring in block (rank + dist) % C's shared memory:
//             the remote latency by SM pair (same TPC or not)
//   gpcmap    1 block per SM (forced with 200 KB of dynamic shared memory), clusters of C: which SMs
//             share a cluster (so a GPC), and cudaOccupancyMaxActiveClusters by C
//   tma       the corpus's tma_copy_f32 (one 32 x 32 f32 box a block: TMA load, mbarrier wait, TMA
//             store, bulk wait), L2 flushed before each launch; thread 0 stamps load and store
//             completion; mode 0 load+store, 1 load only, 2 store only
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cuda_check.h"

namespace cg = cooperative_groups;

__device__ __forceinline__ long long clk() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

constexpr int kRec = 8;  // long longs per block row
// rec: smid, rank, peer smid, cycles, t0 ns, t1 ns, extra1, extra2
__device__ void put(long long* rec, long long a, long long b, long long c, long long d,
                    long long e, long long f, long long g = 0, long long h = 0) {
  long long* r = rec + size_t(blockIdx.x + gridDim.x * blockIdx.y) * kRec;
  r[0] = a, r[1] = b, r[2] = c, r[3] = d, r[4] = e, r[5] = f, r[6] = g, r[7] = h;
}

extern "C" __global__ void k_sync(long long* rec, unsigned* out, int iters) {
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned long long g0 = gtime();
  const long long t0 = clk();
  unsigned n = 0;
  for (int i = 0; i < iters; ++i) {
    cluster.sync();
    ++n;
  }
  const long long t1 = clk();
  out[blockIdx.x * blockDim.x + threadIdx.x] = n;
  if (threadIdx.x == 0) put(rec, smid(), cluster.block_rank(), 0, t1 - t0, g0, gtime());
}

extern "C" __global__ void k_neighbor(long long* rec, unsigned* out, int iters, int dist) {
  __shared__ unsigned s[1024];
  __shared__ unsigned my_sm;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned long long g0 = gtime();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 1;
  if (threadIdx.x == 0) my_sm = smid();
  cluster.sync();
  const unsigned next = (cluster.block_rank() + dist) % cluster.num_blocks();
  const unsigned* remote = cluster.map_shared_rank(s, next);
  const long long t0 = clk();
  unsigned sum = 0;
  for (int i = 0; i < iters; ++i) sum += remote[(threadIdx.x + 33u * i) % 1024];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  const long long t1 = clk();
  const unsigned peer = *cluster.map_shared_rank(&my_sm, next);
  cluster.sync();
  if (threadIdx.x == 0) put(rec, smid(), cluster.block_rank(), peer, t1 - t0, g0, gtime());
}

extern "C" __global__ void k_chase(long long* rec, unsigned* out, int steps, int dist) {
  __shared__ unsigned ring[1024];
  __shared__ unsigned my_sm;
  cg::cluster_group cluster = cg::this_cluster();
  // A ring with stride 33 words (every step a new bank and line).
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) ring[i] = (i + 33) % 1024;
  if (threadIdx.x == 0) my_sm = smid();
  cluster.sync();
  const unsigned next = (cluster.block_rank() + dist) % cluster.num_blocks();
  const unsigned* remote = cluster.map_shared_rank(ring, next);
  if (threadIdx.x == 0) {
    unsigned j = 0;
    for (int i = 0; i < 8; ++i) j = remote[j];  // warm the path
    const long long t0 = clk();
    for (int i = 0; i < steps; ++i) j = remote[j];
    const long long t1 = clk();
    out[blockIdx.x] = j;
    put(rec, smid(), cluster.block_rank(), *cluster.map_shared_rank(&my_sm, next), t1 - t0, 0, 0);
  }
  cluster.sync();
}

extern "C" __global__ void k_gpcmap(long long* rec) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) {
    unsigned cid;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    put(rec, smid(), cluster.block_rank(), cid, 0, gtime(), 0);
  }
  cluster.sync();
}

// ---- TMA box copies (as validation/kernels/tensor/tma_wgmma.cu's tma_copy_f32) ----
__device__ __forceinline__ unsigned saddr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// The record pointer travels in a global, so the kernel's parameters are the corpus kernel's.
__device__ long long* g_tma_rec;
extern "C" __global__ void k_tma_rec(const __grid_constant__ CUtensorMap in,
                                     const __grid_constant__ CUtensorMap out, int mode) {
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * 32, y = blockIdx.y * 32;
  if (threadIdx.x != 0) return;
  const unsigned long long g0 = gtime();
  const long long t0 = clk();
  long long t1 = t0;
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
    t1 = clk();
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
  const long long t2 = clk();
  put(g_tma_rec, smid(), 0, 0, t2 - t0, g0, gtime(), t1 - t0, t2 - t1);
}

// A plain copy of the same tensor (float4 a thread, grid-stride): mode 0 copy, 1 read only,
// 2 write only; the LSU path beside the TMA's.
extern "C" __global__ void k_copy(const float4* in, float4* out, size_t n, int mode, int* sink) {
  float acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    if (mode == 0) out[i] = in[i];
    if (mode == 1) acc += in[i].x;
    if (mode == 2) out[i] = make_float4(1, 2, 3, 4);
  }
  if (acc == 1234.5f) *sink = 1;
}

extern "C" __global__ void k_flush(const int4* x, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    acc ^= x[i].x;
  if (acc == 0x12345678) *sink = acc;
}

// ---- host ----
static FILE* open_tsv(const std::string& dir, const char* name, const char* header) {
  FILE* f = fopen((dir + "/" + name).c_str(), "w");
  if (!f) {
    fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name);
    exit(1);
  }
  fprintf(f, "%s\n", header);
  return f;
}

template <typename K, typename... A>
static float launch_cluster(K kernel, int grid, int block, int C, size_t smem, A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C;
  at[0].val.clusterDim.y = 1;
  at[0].val.clusterDim.z = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a));
  CK(cudaLaunchKernelEx(&cfg, kernel, args...));
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CK(cudaGetLastError());
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms * 1000.f;
}

static std::vector<long long> fetch(const long long* d, int blocks) {
  std::vector<long long> h(size_t(blocks) * kRec);
  CK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
  return h;
}

// Per launch: blocks per SM of the launch (max), and the slowest block's cycles.
static void dump(FILE* f, const char* kernel, int C, int dist, int grid, int rep, float us,
                 const std::vector<long long>& h, int blocks) {
  std::map<long long, int> per_sm;
  for (int i = 0; i < blocks; ++i) ++per_sm[h[size_t(i) * kRec]];
  for (int i = 0; i < blocks; ++i) {
    const long long* r = &h[size_t(i) * kRec];
    fprintf(f, "%s\t%d\t%d\t%d\t%d\t%.2f\t%d\t%lld\t%lld\t%lld\t%d\t%lld\t%lld\t%lld\t%lld\n",
            kernel, C, dist, grid, rep, us, i, r[0], r[1], r[2], per_sm[r[0]], r[3], r[4], r[5],
            r[6]);
  }
}

static int encode(CUtensorMap* map, void* base, uint64_t w, uint64_t h) {
  const cuuint64_t dims[2] = {w, h}, strides[1] = {w * 4};
  const cuuint32_t box[2] = {32, 32}, es[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(
      map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const bool ncu = dir == "--ncu";  // one launch of each corpus configuration, for ncu
  const bool part2 = argc > 2 && std::string(argv[2]) == "part2";  // sections 6 and 7 only
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  printf("# device\t%s\tsms=%d\tclock_khz=%d\n", p.name, p.multiProcessorCount, clock_khz);
  long long* rec;
  unsigned* out;
  CK(cudaMalloc(&rec, 65536 * kRec * 8));
  CK(cudaMalloc(&out, 1024 * 1024 * 4));
  const char* hdr =
      "kernel\tC\tdist\tgrid\trep\tevent_us\tblock\tsmid\trank\tpeer_smid\tblocks_on_sm\tcycles\tt0_"
      "ns\tt1_ns\textra";

  if (ncu) {
    launch_cluster(k_sync, 128, 256, 4, 0, rec, out, 256);
    launch_cluster(k_neighbor, 128, 256, 2, 0, rec, out, 256, 1);
    launch_cluster(k_neighbor, 128, 256, 4, 0, rec, out, 256, 1);
    float *din, *dout;
    long long* trec;
    CK(cudaMalloc(&trec, size_t(128 * 64) * kRec * 8));
    CK(cudaMemcpyToSymbol(g_tma_rec, &trec, sizeof trec));
    CK(cudaMalloc(&din, size_t(4000) * 2000 * 4));
    CK(cudaMalloc(&dout, size_t(4000) * 2000 * 4));
    CK(cudaMemset(din, 0, size_t(4000) * 2000 * 4));
    CUtensorMap mi, mo;
    if (encode(&mi, din, 4000, 2000) || encode(&mo, dout, 4000, 2000)) return 1;
    for (int mode : {0, 1}) k_tma_rec<<<dim3(125, 63), 32>>>(mi, mo, mode);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  if (part2) {
    // 6. barrier.cluster against the warps on the SM: clusters of 1 and 2, blocks of W warps,
    //    one block an SM (grid 132, or 128 for pairs) or two, three, four (grid 264, 396, 528).
    FILE* fw = open_tsv(dir, "sync_sm.tsv", hdr);
    for (int i = 0; i < 20; ++i) launch_cluster(k_sync, 132, 256, 1, 0, rec, out, 64);  // warm-up
    struct Cfg {
      int C, W, grid;
    };
    const Cfg cfgs[] = {{1, 1, 132},  {1, 2, 132},  {1, 4, 132},  {1, 8, 132},  {1, 12, 132},
                        {1, 16, 132}, {1, 24, 132}, {1, 32, 132}, {1, 8, 264},  {1, 4, 264},
                        {1, 4, 528},  {1, 16, 264}, {1, 8, 396},  {1, 1, 528},  {2, 8, 128},
                        {2, 8, 264},  {2, 16, 128}, {4, 8, 128},  {4, 16, 128}, {8, 16, 128}};
    for (const Cfg& c : cfgs)
      for (int rep = 0; rep < 3; ++rep) {
        const float us = launch_cluster(k_sync, c.grid, 32 * c.W, c.C, 0, rec, out, 64);
        const auto h = fetch(rec, c.grid);
        dump(fw, "sync_sm", c.C, c.W, c.grid, rep, us, h, c.grid);
        std::vector<double> cyc;
        std::map<long long, int> per_sm;
        for (int i = 0; i < c.grid; ++i) cyc.push_back(h[size_t(i) * kRec + 3] / 64.0), ++per_sm[h[size_t(i) * kRec]];
        std::sort(cyc.begin(), cyc.end());
        int most = 0;
        for (auto& kv : per_sm) most = std::max(most, kv.second);
        printf("sync_sm\tC=%d\tW=%d\tgrid=%d\trep=%d\t%.2f us\tmedian %.1f\tmax %.1f cycles/barrier\tSMs %zu\tmost blocks/SM %d\n",
               c.C, c.W, c.grid, rep, us, cyc[cyc.size() / 2], cyc.back(), per_sm.size(), most);
      }
    fclose(fw);
    // 7. TMA box copies with the source L2-resident (1000 x 2000 f32, 8 MB; no flush, a warm-up
    //    launch first): do loads and stores still take turns without DRAM fills?
    float *din, *dout;
    long long* trec;
    CK(cudaMalloc(&trec, size_t(128 * 64) * kRec * 8));
    CK(cudaMemcpyToSymbol(g_tma_rec, &trec, sizeof trec));
    CK(cudaMalloc(&din, size_t(4000) * 2000 * 4));
    CK(cudaMalloc(&dout, size_t(4000) * 2000 * 4));
    CK(cudaMemset(din, 0, size_t(4000) * 2000 * 4));
    for (int w : {1000, 4000})
      for (int mode : {0, 1, 2}) {
        CUtensorMap mi, mo;
        if (encode(&mi, din, w, 2000) || encode(&mo, dout, w, 2000)) return 1;
        const dim3 grid((w + 31) / 32, (2000 + 31) / 32);
        std::vector<float> t;
        for (int rep = 0; rep < 8; ++rep) {
          cudaEvent_t a, b;
          CK(cudaEventCreate(&a));
          CK(cudaEventCreate(&b));
          CK(cudaEventRecord(a));
          k_tma_rec<<<grid, 32>>>(mi, mo, mode);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float ms;
          CK(cudaEventElapsedTime(&ms, a, b));
          if (rep) t.push_back(ms * 1000.f);
        }
        std::sort(t.begin(), t.end());
        printf("tma_warm\tW=%d\tH=2000\tmode=%d\tmedian %.2f us\tmin %.2f\tmax %.2f\n", w, mode,
               t[3], t[0], t[6]);
      }
    // 8. The same 4000 x 2000 f32 (32 MB) through the LSUs, L2 flushed before each launch.
    int4* flush;
    const size_t flush_n = size_t(p.l2CacheSize) * 2 / 16;
    CK(cudaMalloc(&flush, flush_n * 16));
    CK(cudaMemset(flush, 0, flush_n * 16));
    int* sink;
    CK(cudaMalloc(&sink, 4));
    const size_t n4 = size_t(4000) * 2000 / 4;
    for (int blocks : {132 * 8, int((n4 + 255) / 256)})
      for (int mode : {0, 1, 2}) {
        std::vector<float> t;
        for (int rep = 0; rep < 7; ++rep) {
          k_flush<<<p.multiProcessorCount * 4, 1024>>>(flush, flush_n, sink);
          cudaEvent_t a, b;
          CK(cudaEventCreate(&a));
          CK(cudaEventCreate(&b));
          CK(cudaEventRecord(a));
          k_copy<<<blocks, 256>>>((const float4*)din, (float4*)dout, n4, mode, sink);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float ms;
          CK(cudaEventElapsedTime(&ms, a, b));
          t.push_back(ms * 1000.f);
        }
        std::sort(t.begin(), t.end());
        printf("lsu_copy\tblocks=%d\tmode=%d\tmedian %.2f us\tmin %.2f\tmax %.2f\n", blocks, mode,
               t[3], t[0], t[6]);
      }
    // 9. TMA cold again beside it (4000 x 2000), and with the loads and the stores in separate
    //    launches back to back (load-only then store-only).
    for (int mode : {0, 1, 2}) {
      CUtensorMap mi, mo;
      if (encode(&mi, din, 4000, 2000) || encode(&mo, dout, 4000, 2000)) return 1;
      std::vector<float> t;
      for (int rep = 0; rep < 7; ++rep) {
        k_flush<<<p.multiProcessorCount * 4, 1024>>>(flush, flush_n, sink);
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        CK(cudaEventRecord(a));
        k_tma_rec<<<dim3(125, 63), 32>>>(mi, mo, mode);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.f);
      }
      std::sort(t.begin(), t.end());
      printf("tma_cold\tW=4000\tH=2000\tmode=%d\tmedian %.2f us\tmin %.2f\tmax %.2f\n", mode, t[3],
             t[0], t[6]);
    }
    return 0;
  }
  // 1. Occupancy in clusters, and the GPC map (1 block per SM).
  CK(cudaFuncSetAttribute(k_gpcmap, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CK(cudaFuncSetAttribute(k_gpcmap, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(k_sync, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int C : {1, 2, 4, 8, 16}) {
    for (int big = 0; big < 2; ++big) {
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(C * 64);
      cfg.blockDim = dim3(big ? 32 : 256);
      cfg.dynamicSmemBytes = big ? 200 * 1024 : 0;
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = C;
      at[0].val.clusterDim.y = 1;
      at[0].val.clusterDim.z = 1;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      int n = -1;
      cudaError_t e = cudaOccupancyMaxActiveClusters(&n, big ? (void*)k_gpcmap : (void*)k_sync, &cfg);
      printf("max_active_clusters\tC=%d\t%s\t%d\t%s\n", C, big ? "1_block_per_sm" : "sync_256thr",
             n, e == cudaSuccess ? "" : cudaGetErrorString(e));
      cudaGetLastError();
    }
  }
  FILE* fg = open_tsv(dir, "gpcmap.tsv", hdr);
  for (int C : {2, 8, 16}) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(C * 64);
    cfg.blockDim = dim3(32);
    cfg.dynamicSmemBytes = 200 * 1024;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, (void*)k_gpcmap, &cfg) != cudaSuccess || n == 0) {
      cudaGetLastError();
      continue;
    }
    for (int rep = 0; rep < 3; ++rep) {
      const float us = launch_cluster(k_gpcmap, n * C, 32, C, 200 * 1024, rec);
      dump(fg, "gpcmap", C, 0, n * C, rep, us, fetch(rec, n * C), n * C);
    }
  }
  fclose(fg);

  // 2. The corpus's cluster_sync: 128 blocks of 256 threads, 256 rounds; 5 launches per C.
  FILE* fs = open_tsv(dir, "sync.tsv", hdr);
  CK(cudaFuncSetAttribute(k_sync, cudaFuncAttributeMaxDynamicSharedMemorySize, 120 * 1024));
  CK(cudaFuncSetAttribute(k_neighbor, cudaFuncAttributeMaxDynamicSharedMemorySize, 120 * 1024));
  for (int one : {0, 1})  // one: 120 KB of dynamic shared memory, so one block per SM
    for (int C : {1, 2, 4, 8})
      for (int rep = 0; rep < 5; ++rep) {
        const float us = launch_cluster(k_sync, 128, 256, C, one ? 120 * 1024 : 0, rec, out, 256);
        const auto h = fetch(rec, 128);
        dump(fs, one ? "sync_1sm" : "sync", C, 0, 128, rep, us, h, 128);
        long long mx = 0;
        for (int i = 0; i < 128; ++i) mx = std::max(mx, h[size_t(i) * kRec + 3]);
        printf("%s\tC=%d\trep=%d\t%.2f us\tslowest block %.1f cycles/barrier\n",
               one ? "sync_1sm" : "sync", C, rep, us, mx / 256.0);
      }
  fclose(fs);

  // 3. The corpus's dsmem_neighbor (dist 1) and other distances; grid 128 and one cluster.
  FILE* fn = open_tsv(dir, "neighbor.tsv", hdr);
  for (int C : {2, 4, 8})
    for (int dist : {1, 2, 4})
      for (int grid : {C, 128, -128}) {  // -128: 128 blocks, one a SM (120 KB dynamic shared)
        if (dist >= C) continue;
        const int g = grid < 0 ? -grid : grid;
        for (int rep = 0; rep < 3; ++rep) {
          const float us =
              launch_cluster(k_neighbor, g, 256, C, grid < 0 ? 120 * 1024 : 0, rec, out, 256, dist);
          const auto h = fetch(rec, g);
          dump(fn, grid < 0 ? "neighbor_1sm" : "neighbor", C, dist, g, rep, us, h, g);
          long long mx = 0;
          for (int i = 0; i < g; ++i) mx = std::max(mx, h[size_t(i) * kRec + 3]);
          printf("%s\tC=%d\tdist=%d\tgrid=%d\trep=%d\t%.2f us\tslowest %.1f B/cycle\n",
                 grid < 0 ? "neighbor_1sm" : "neighbor", C, dist, g, rep, us,
                 256.0 * 256 * 4 / mx);
        }
      }
  fclose(fn);

  // 4. Remote pointer chase by SM pair.
  FILE* fc = open_tsv(dir, "chase.tsv", hdr);
  for (int C : {2, 4, 8})
    for (int dist : {1, 2, 4}) {
      if (dist >= C) continue;
      const float us = launch_cluster(k_chase, 128, 32, C, 0, rec, out, 512, dist);
      dump(fc, "chase", C, dist, 128, 0, us, fetch(rec, 128), 128);
    }
  fclose(fc);

  // 5. TMA box copies, L2 flushed before each launch (a read of 2x L2).
  int4* flush;
  const size_t flush_n = size_t(p.l2CacheSize) * 2 / 16;
  CK(cudaMalloc(&flush, flush_n * 16));
  CK(cudaMemset(flush, 0, flush_n * 16));
  int* sink;
  CK(cudaMalloc(&sink, 4));
  long long* trec;
  CK(cudaMalloc(&trec, size_t(128 * 64) * kRec * 8));
  CK(cudaMemcpyToSymbol(g_tma_rec, &trec, sizeof trec));
  FILE* ft = open_tsv(dir, "tma.tsv",
                      "W\tH\tmode\trep\tevent_us\tblock\tsmid\tblocks_on_sm\tcycles\tt0_ns\tt1_ns\t"
                      "load_cycles\tstore_cycles");
  float* din;
  float* dout;
  CK(cudaMalloc(&din, size_t(4096) * 2048 * 4));
  CK(cudaMalloc(&dout, size_t(4096) * 2048 * 4));
  CK(cudaMemset(din, 0, size_t(4096) * 2048 * 4));
  struct Shape {
    int w, h;
  };
  for (Shape s : {Shape{1000, 600}, Shape{4000, 2000}, Shape{4096, 2048}})
    for (int mode : {0, 1, 2}) {
      CUtensorMap mi, mo;
      if (encode(&mi, din, s.w, s.h) || encode(&mo, dout, s.w, s.h)) return 1;
      const dim3 grid((s.w + 31) / 32, (s.h + 31) / 32);
      const int blocks = grid.x * grid.y;
      std::vector<float> t;
      for (int rep = 0; rep < 7; ++rep) {
        k_flush<<<p.multiProcessorCount * 4, 1024>>>(flush, flush_n, sink);
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        CK(cudaEventRecord(a));
        k_tma_rec<<<grid, 32>>>(mi, mo, mode);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.f);
        if (rep == 6 && (mode == 0 || s.w == 4000)) {
          std::vector<long long> h(size_t(blocks) * kRec);
          CK(cudaMemcpy(h.data(), trec, h.size() * 8, cudaMemcpyDeviceToHost));
          std::map<long long, int> per_sm;
          for (int i = 0; i < blocks; ++i) ++per_sm[h[size_t(i) * kRec]];
          for (int i = 0; i < blocks; ++i) {
            const long long* r = &h[size_t(i) * kRec];
            fprintf(ft, "%d\t%d\t%d\t%d\t%.2f\t%d\t%lld\t%d\t%lld\t%lld\t%lld\t%lld\t%lld\n", s.w,
                    s.h, mode, rep, ms * 1000.f, i, r[0], per_sm[r[0]], r[3], r[4], r[5], r[6],
                    r[7]);
          }
        }
      }
      std::sort(t.begin(), t.end());
      printf("tma\tW=%d\tH=%d\tmode=%d\tmedian %.2f us\tmin %.2f\tmax %.2f\n", s.w, s.h, mode,
             t[3], t[0], t[6]);
    }
  fclose(ft);
  return 0;
}
