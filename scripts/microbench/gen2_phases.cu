// WarpLab microbenchmark (issue 25): where gen2's histogram_skewed and spmv_coo spend their time
// on the GPU (the model has them 1.34x and 1.33x too slow). Each kernel is timed beside variants
// that drop one phase, with the corpus's sizes and the L2 evicted before every launch (as
// `warplab validate` times them); the histogram also runs once with clock64 stamps per block.
//
//   nvcc -O3 -arch=sm_90 -I../../validation/kernels/gen2 -o gen2_phases gen2_phases.cu
//   ./gen2_phases OUT_DIR
//
// OUT_DIR/phases.tsv: event times (median of 20, min, max; microseconds):
//   histogram_skewed          misc.cu's kernel (264 blocks of 256, 2^20 values)
//   histogram_no_global       the same, each block's bins stored to its own row (no REDs)
//   histogram_global_only     no input loop: every block adds 1 to all 1024 bins (the REDs alone:
//                             264 x 32 full-line REDs on the same 32 lines)
//   spmv_coo                  sparse.cu's kernel (N = 16384, ~6 entries a row, power-law rows)
//   spmv_coo_store            the same product stored (y[row] = v, racy) instead of added
//   spmv_coo_atomic_only      atomicAdd(&y[row], 1.0f): the float REDs without the x gather
//   empty                     an empty kernel of 264 blocks (the launch as the events see it)
// OUT_DIR/histogram_blocks.csv: per block, smid, %globaltimer (ns from the first block's start) at
//   its start, after the input loop (second barrier) and at its end (warp 0's last RED issued,
//   then every warp's end: a third barrier), clock64 cycles of the loop and of the RED phase.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "event_timer.h"
#include "misc.cu"
#include "sparse.cu"

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void histogram_no_global(const unsigned* x, unsigned* rows, int n) {
  __shared__ unsigned bins[1024];
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) bins[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = mix32(x[i]) >> 22;
    atomicAdd(&bins[(h * h) >> 10], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) rows[blockIdx.x * 1024 + b] = bins[b];
}

extern "C" __global__ void histogram_global_only(unsigned* hist) {
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) atomicAdd(&hist[b], 1u + (b & 1));
}

extern "C" __global__ void histogram_stamped(const unsigned* x, unsigned* hist, int n,
                                             long long* rec) {
  __shared__ unsigned bins[1024];
  const unsigned long long g0 = gtimer();
  const long long c0 = clock64();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) bins[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = mix32(x[i]) >> 22;
    atomicAdd(&bins[(h * h) >> 10], 1u);
  }
  __syncthreads();
  const unsigned long long g1 = gtimer();
  const long long c1 = clock64();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) {
    if (bins[b] != 0u) atomicAdd(&hist[b], bins[b]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    long long* r = rec + blockIdx.x * 8;
    r[0] = smid();
    r[1] = (long long)g0;
    r[2] = (long long)g1;
    r[3] = (long long)gtimer();
    r[4] = c1 - c0;
    r[5] = clock64() - c1;
  }
}

extern "C" __global__ void spmv_coo_store(const int* row_ptr, const int* coo_rows, const int* cols,
                                          const float* vals, const float* x, float* y, int n) {
  int nnz = row_ptr[n];
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x)
    y[coo_rows[k]] = vals[k] * x[cols[k]];
}

extern "C" __global__ void spmv_coo_atomic_only(const int* row_ptr, const int* coo_rows, float* y,
                                                int n) {
  int nnz = row_ptr[n];
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x)
    atomicAdd(&y[coo_rows[k]], 1.0f);
}

__global__ void empty_kernel() {}

__global__ void evict(float* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (float)i;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const size_t evict_n = 64ull << 20;
  float* ev;
  CK(cudaMalloc(&ev, evict_n * 4));
  auto cold = [&](int) { evict<<<264, 1024>>>(ev, evict_n); };
  FILE* f = fopen((dir + "/phases.tsv").c_str(), "w");
  fprintf(f, "# gen2_phases.cu, %s: event times, median of 20 (min, max), L2 evicted before each\n",
          prop.name);
  fprintf(f, "kernel\tus_median\tus_min\tus_max\n");
  auto row = [&](const char* name, const std::vector<float>& t) {
    fprintf(f, "%s\t%.2f\t%.2f\t%.2f\n", name, t[10], t[0], t[19]);
  };
  // The histogram (gen2-misc.toml: HN = 2^20, x = iota, 264 blocks of 256).
  const int hn = 1 << 20;
  unsigned *hx, *hist, *rows;
  long long* rec;
  CK(cudaMalloc(&hx, hn * 4));
  CK(cudaMalloc(&hist, 1024 * 4));
  CK(cudaMalloc(&rows, 264 * 1024 * 4));
  CK(cudaMalloc(&rec, 264 * 8 * sizeof(long long)));
  std::vector<unsigned> h(hn);
  for (int i = 0; i < hn; ++i) h[i] = i;
  CK(cudaMemcpy(hx, h.data(), hn * 4, cudaMemcpyHostToDevice));
  row("histogram_skewed", time_launches(cold, [&] { histogram_skewed<<<264, 256>>>(hx, hist, hn); }));
  row("histogram_no_global", time_launches(cold, [&] { histogram_no_global<<<264, 256>>>(hx, rows, hn); }));
  row("histogram_global_only", time_launches(cold, [&] { histogram_global_only<<<264, 256>>>(hist); }));
  row("empty", time_launches(cold, [&] { empty_kernel<<<264, 256>>>(); }));
  // spmv_coo (gen2-sparse.toml: N = 16384, grid cdiv(6N, 256) of 256).
  const int n = 16384;
  int *row_ptr, *sell_ptr, *sell_width, *cols, *coo_rows, *sell_cols, *dist;
  float *vals, *sell_vals, *x, *y;
  CK(cudaMalloc(&row_ptr, (n + 1) * 4));
  CK(cudaMalloc(&sell_ptr, (n / 32 + 1) * 4));
  CK(cudaMalloc(&sell_width, (n / 32) * 4));
  CK(cudaMalloc(&cols, 6 * n * 4));
  CK(cudaMalloc(&vals, 6 * n * 4));
  CK(cudaMalloc(&coo_rows, 6 * n * 4));
  CK(cudaMalloc(&sell_cols, 80 * n * 4));
  CK(cudaMalloc(&sell_vals, 80 * n * 4));
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&dist, n * 4));
  CK(cudaMalloc(&y, n * 4));
  gen_rows<<<1, 1>>>(row_ptr, sell_ptr, sell_width, n);
  gen_fill<<<n / 256, 256>>>(row_ptr, sell_ptr, sell_width, cols, vals, coo_rows, sell_cols, sell_vals,
                             x, dist, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int nnz = 0;
  CK(cudaMemcpy(&nnz, row_ptr + n, 4, cudaMemcpyDeviceToHost));
  fprintf(f, "# spmv: nnz %d\n", nnz);
  const int grid = (6 * n + 255) / 256;
  row("spmv_coo", time_launches(cold, [&] { spmv_coo<<<grid, 256>>>(row_ptr, coo_rows, cols, vals, x, y, n); }));
  row("spmv_coo_store",
      time_launches(cold, [&] { spmv_coo_store<<<grid, 256>>>(row_ptr, coo_rows, cols, vals, x, y, n); }));
  row("spmv_coo_atomic_only",
      time_launches(cold, [&] { spmv_coo_atomic_only<<<grid, 256>>>(row_ptr, coo_rows, y, n); }));
  row("empty_384", time_launches(cold, [&] { empty_kernel<<<grid, 256>>>(); }));
  fclose(f);
  // One stamped histogram.
  cold(0);
  histogram_stamped<<<264, 256>>>(hx, hist, hn, rec);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<long long> r(264 * 8);
  CK(cudaMemcpy(r.data(), rec, r.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  long long g0 = r[1];
  for (int b = 0; b < 264; ++b) g0 = std::min(g0, r[b * 8 + 1]);
  FILE* g = fopen((dir + "/histogram_blocks.csv").c_str(), "w");
  fprintf(g, "# gen2_phases.cu histogram_stamped, %s, L2 evicted; ns from the first block's start\n", prop.name);
  fprintf(g, "block,smid,start_ns,loop_done_ns,end_ns,loop_cycles,red_cycles\n");
  for (int b = 0; b < 264; ++b) {
    const long long* q = &r[b * 8];
    fprintf(g, "%d,%lld,%lld,%lld,%lld,%lld,%lld\n", b, q[0], q[1] - g0, q[2] - g0, q[3] - g0, q[4], q[5]);
  }
  fclose(g);
  printf("gen2_phases.cu done\n");
  return 0;
}
