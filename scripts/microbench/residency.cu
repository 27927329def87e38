// WarpLab microbenchmark (issue 25): how the H100 keeps short warps resident. gen2's
// spmv_csr_warp (2048 blocks of 8 warps, a warp per sparse row, most warps one loop trip) keeps
// ~75% of its warp slots busy on the GPU against the model's ~45%. This measures where a block's
// time goes, with the gen2 kernels themselves (validation/kernels/gen2/sparse.cu, included):
//
//   nvcc -O3 -arch=sm_90 -I. -o residency residency.cu && ./residency OUT_DIR
//
// OUT_DIR/warps.csv   per warp of an instrumented spmv_csr_warp (same body; lane 0 stamps
//                     %smid, clock64 and %globaltimer at entry and after the store): the
//                     timeline of every block on every SM (dispatch order, lifetimes, the gap
//                     between a block leaving an SM and the next one starting there)
// OUT_DIR/times.csv   event-timed launches (median of 20, L2 flushed before each where noted):
//                     the plain spmv kernels, empty kernels of several shapes (block dispatch
//                     rate), and chain_sum_one_block (fewblock.cu) at 1..8 warps with the same
//                     1024 loop trips per thread (one SM's DRAM stream with 16 loads a warp)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "event_timer.h"
#include "sparse.cu"
#include "fewblock.cu"

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

// spmv_csr_warp's body between two stamps. rec[w] = {smid, clk0, clk1, gt0, gt1, len}.
extern "C" __global__ void spmv_csr_warp_stamped(const int* row_ptr, const int* cols,
                                                 const float* vals, const float* x, float* y,
                                                 int n, long long* rec) {
  long long c0 = clock64();
  unsigned long long g0 = gtimer();
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= n) return;
  float s = 0.f;
  int b = row_ptr[r], e = row_ptr[r + 1];
  for (int k = b + lane; k < e; k += 32) s += vals[k] * x[cols[k]];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) y[r] = s;
  __syncwarp();
  long long c1 = clock64();
  unsigned long long g1 = gtimer();
  if (lane == 0) {
    long long* o = rec + 6 * (long long)r;
    o[0] = smid();
    o[1] = c0;
    o[2] = c1;
    o[3] = (long long)g0;
    o[4] = (long long)g1;
    o[5] = e - b;
  }
}

extern "C" __global__ void empty_kernel(int* sink) {
  if (threadIdx.x == 1023 && blockIdx.x == 0x7fffffff) sink[0] = 1;
}

int main(int argc, char** argv) {
  std::string out = argc > 1 ? argv[1] : ".";
  const int N = 16384, B = 256;
  int *row_ptr, *sell_ptr, *sell_width, *cols, *coo_rows, *sell_cols, *dist, *sink;
  float *vals, *sell_vals, *x, *y, *flush, *ones, *chain_out;
  long long* rec;
  CK(cudaMalloc(&row_ptr, (N + 1) * 4));
  CK(cudaMalloc(&sell_ptr, (N / 32 + 1) * 4));
  CK(cudaMalloc(&sell_width, (N / 32) * 4));
  CK(cudaMalloc(&cols, 6 * N * 4));
  CK(cudaMalloc(&vals, 6 * N * 4));
  CK(cudaMalloc(&coo_rows, 6 * N * 4));
  CK(cudaMalloc(&sell_cols, 80 * N * 4));
  CK(cudaMalloc(&sell_vals, 80 * N * 4));
  CK(cudaMalloc(&x, N * 4));
  CK(cudaMalloc(&y, N * 4));
  CK(cudaMalloc(&dist, N * 4));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&rec, 6 * N * sizeof(long long)));
  const size_t flush_bytes = 256u << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  const int max_sum = 1024 * 1024;
  CK(cudaMalloc(&ones, max_sum * 4));
  CK(cudaMalloc(&chain_out, 64));
  std::vector<float> h1(max_sum, 1.f);
  CK(cudaMemcpy(ones, h1.data(), max_sum * 4, cudaMemcpyHostToDevice));
  gen_rows<<<1, 32>>>(row_ptr, sell_ptr, sell_width, N);
  gen_fill<<<N / B, B>>>(row_ptr, sell_ptr, sell_width, cols, vals, coo_rows, sell_cols, sell_vals,
                         x, dist, N);
  CK(cudaDeviceSynchronize());
  auto flush_l2 = [&](int) { CK(cudaMemsetAsync(flush, 0, flush_bytes)); };

  // 1. The stamped timeline (L2 cold, as validate measures): the 11th of 21 runs is kept.
  for (int rep = 0; rep < 21; ++rep) {
    flush_l2(0);
    spmv_csr_warp_stamped<<<N * 32 / B, B>>>(row_ptr, cols, vals, x, y, N, rec);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (rep == 10) break;
  }
  std::vector<long long> h(6 * N);
  CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
  FILE* f = fopen((out + "/warps.csv").c_str(), "w");
  fprintf(f, "warp,block,sm,clk0,clk1,gt0_ns,gt1_ns,row_len\n");
  for (int w = 0; w < N; ++w)
    fprintf(f, "%d,%d,%lld,%lld,%lld,%lld,%lld,%lld\n", w, w / 8, h[6 * w], h[6 * w + 1],
            h[6 * w + 2], h[6 * w + 3], h[6 * w + 4], h[6 * w + 5]);
  fclose(f);

  // 2. Event-timed launches.
  f = fopen((out + "/times.csv").c_str(), "w");
  fprintf(f, "kernel,grid,block,l2,median_us,min_us,max_us\n");
  auto row = [&](const char* k, int g, int b, const char* l2, std::vector<float> t) {
    fprintf(f, "%s,%d,%d,%s,%.3f,%.3f,%.3f\n", k, g, b, l2, t[10], t[0], t[19]);
    fflush(f);
  };
  row("spmv_csr_warp", N * 32 / B, B, "cold", time_launches(flush_l2, [&] {
        spmv_csr_warp<<<N * 32 / B, B>>>(row_ptr, cols, vals, x, y, N);
      }));
  row("spmv_csr_warp", N * 32 / B, B, "warm", time_launches(nullptr, [&] {
        spmv_csr_warp<<<N * 32 / B, B>>>(row_ptr, cols, vals, x, y, N);
      }));
  row("spmv_csr_warp_stamped", N * 32 / B, B, "cold", time_launches(flush_l2, [&] {
        spmv_csr_warp_stamped<<<N * 32 / B, B>>>(row_ptr, cols, vals, x, y, N, rec);
      }));
  row("spmv_csr_thread", N / B, B, "cold", time_launches(flush_l2, [&] {
        spmv_csr_thread<<<N / B, B>>>(row_ptr, cols, vals, x, y, N);
      }));
  row("spmv_coo", 6 * N / B, B, "cold", time_launches(flush_l2, [&] {
        CK(cudaMemsetAsync(y, 0, N * 4));
        spmv_coo<<<6 * N / B, B>>>(row_ptr, coo_rows, cols, vals, x, y, N);
      }));
  const int shapes[][2] = {{1, 32}, {1056, 256}, {2048, 256}};
  for (auto& s : shapes)
    row("empty_kernel", s[0], s[1], "warm", time_launches(nullptr, [&] {
          empty_kernel<<<s[0], s[1]>>>(sink);
        }));
  for (int w : {1, 2, 4, 8}) {
    // 1024 loop trips per thread, as gen2's 262144 over 256 threads (red[256] bounds the block
    // at 256 threads; fewer threads run the same loop and a tree over partly unwritten slots)
    int n = 1024 * 32 * w;
    row("chain_sum_one_block_n1024", 1, 32 * w, "cold", time_launches(flush_l2, [&] {
          chain_sum_one_block<<<1, 32 * w>>>(ones, chain_out, n);
        }));
  }
  for (int n : {65536, 262144, 1048576})
    row("chain_sum_one_block_n", 1, 256, "cold", time_launches(flush_l2, [&] {
          chain_sum_one_block<<<1, 256>>>(ones, chain_out, n);
        }));
  row("chain_sum_one_block_n", 1, 256, "warm", time_launches(nullptr, [&] {
        chain_sum_one_block<<<1, 256>>>(ones, chain_out, 262144);
      }));
  fclose(f);
  printf("wrote %s/warps.csv and %s/times.csv\n", out.c_str(), out.c_str());
  return 0;
}
