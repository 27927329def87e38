// WarpLab microbenchmark (issue 25, acc6c): the L2's atomic throughput against how many slices a
// stream of REDs hits, and spmv_coo's contention.
//
//   nvcc -O3 -arch=sm_90 -o atomic_rate atomic_rate.cu && ./atomic_rate > rate.tsv
//
// chunks: every warp of `warps` (8 per block) runs `iters` atomics on chunk (w % chunks) of a
//   region of consecutive 512-byte chunks (`chunks` = 1 .. 4096: 1 .. all slices, interleaved so
//   that any window of resident warps covers all of them). In the chunk, lane l adds to word
//   (l / lanes) * spacing: lanes = 32 is one word (31 repeats on one address), lanes = 1 with
//   spacing 1 is 32 words of one line, lanes = 4 spacing 1: 8 words of one sector, lanes = 8
//   spacing 8: one word in each of the line's 4 sectors, lanes = 8 spacing 32: 4 lines.
//   u32 adds lane + 1 (not warp-uniform: no aggregation by the compiler), f32 adds 1.0. red: the
//   result is unused (REDG); atom: the result feeds a never-taken store (ATOMG).
//   If atomic units are per slice and independent, time falls with `chunks` until every slice is
//   busy (96 ways); if units are shared or the GPU caps atomic work, it levels off earlier.
// rowlen: the corpus's spmv_coo shape with uniform rows: entry k (of 98304) adds to y[k / len]
//   (y: 16384 floats), f32 RED: 32 / len rows a warp for len <= 32, one row over len / 32 warps
//   above.
// spmv: sparse.cu's spmv_coo rows (gen_rows: power-law row lengths, 96744 entries), adding 1.0f
//   (f32 red), lane + 1 (u32 red) or the f32 result used (atom); y L2-resident (warm).
// Prints: kernel, params, median / min / max microseconds (20 launches after 3 warm-ups, warm:
// the target words stay in the L2), and atomic lanes per microsecond.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.h"
#include "event_timer.h"

template <class T, bool Atom>
__global__ void chunks_k(T* a, T* sink, int chunks, int lanes, int spacing, int iters) {
  const int lane = threadIdx.x & 31;
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  T* p = a + (size_t)(w % chunks) * 128 + (lane / lanes) * spacing;
  T v;
  if constexpr (T(0.5) != T(0)) v = T(1); else v = T(lane + 1);
  T acc = T(0);
  for (int i = 0; i < iters; ++i) {
    if constexpr (Atom) acc += atomicAdd(p, v); else atomicAdd(p, v);
  }
  if constexpr (Atom) if (acc == T(-7)) sink[0] = acc;
}

__global__ void rowlen_k(float* y, int n, int len) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) atomicAdd(&y[k / len], 1.0f);
}

template <class T, bool Atom>
__global__ void spmv_k(const int* rows, T* y, T* sink, int nnz) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  T v;
  if constexpr (T(0.5) != T(0)) v = T(1); else v = T((threadIdx.x & 31) + 1);
  if constexpr (Atom) {
    T old = atomicAdd(&y[rows[k]], v);
    if (old == T(-7)) sink[0] = old;
  } else {
    atomicAdd(&y[rows[k]], v);
  }
}

static void row(const char* name, const char* prm, double lanes, const std::vector<float>& t) {
  printf("%s\t%s\t%.2f\t%.2f\t%.2f\t%.1f\n", name, prm, t[10], t[0], t[19], lanes / t[10]);
}


static unsigned mix32(unsigned x) {
  x *= 2654435761u;
  x ^= x >> 16;
  x *= 2246822519u;
  x ^= x >> 13;
  return x;
}

__global__ void empty_k() {}

// `./atomic_rate once`: one launch of each of the shapes ncu reads (no timing loop).
static int once() {
  void *buf, *sink;
  CK(cudaMalloc(&buf, 4096 * 512));
  CK(cudaMalloc(&sink, 256));
  CK(cudaMemset(buf, 0, 4096 * 512));
  const int warps = 32768, iters = 4;
  chunks_k<unsigned, false><<<warps / 8, 256>>>((unsigned*)buf, (unsigned*)sink, 1, 32, 0, iters);
  chunks_k<unsigned, false><<<warps / 8, 256>>>((unsigned*)buf, (unsigned*)sink, 4096, 32, 0, iters);
  chunks_k<float, false><<<warps / 8, 256>>>((float*)buf, (float*)sink, 4096, 32, 0, iters);
  chunks_k<unsigned, false><<<warps / 8, 256>>>((unsigned*)buf, (unsigned*)sink, 4096, 1, 1, iters);
  chunks_k<unsigned, true><<<warps / 8, 256>>>((unsigned*)buf, (unsigned*)sink, 4096, 32, 0, iters);
  std::vector<int> rows;
  for (int r = 0; r < 16384; ++r) {
    int len = 256 / (1 + (int)(mix32((unsigned)r) % 256u));
    rows.insert(rows.end(), len < 1 ? 1 : len, r);
  }
  const int nnz = (int)rows.size();
  int* drows;
  CK(cudaMalloc(&drows, nnz * sizeof(int)));
  CK(cudaMemcpy(drows, rows.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  spmv_k<float, false><<<384, 256>>>(drows, (float*)buf, (float*)sink, nnz);
  spmv_k<unsigned, false><<<384, 256>>>(drows, (unsigned*)buf, (unsigned*)sink, nnz);
  CK(cudaDeviceSynchronize());
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1) return once();
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0;
  CK(cudaDriverGetVersion(&drv));
  printf("# %s\tSMs %d\tdriver-api %d\n", prop.name, prop.multiProcessorCount, drv);
  printf("# kernel\tparams\tmedian_us\tmin_us\tmax_us\tlanes_per_us\n");
  void *buf, *sink;
  CK(cudaMalloc(&buf, 4096 * 512));
  CK(cudaMalloc(&sink, 256));
  CK(cudaMemset(buf, 0, 4096 * 512));
  char prm[160];
  row("empty", "blocks=4096", 0, time_launches(nullptr, [&] { empty_k<<<4096, 256>>>(); }));
  row("empty", "blocks=384", 0, time_launches(nullptr, [&] { empty_k<<<384, 256>>>(); }));
  const int warps = 32768, iters = 4;
  struct Shape { int lanes, spacing; const char* what; };
  const Shape shapes[] = {{32, 0, "one-word"}, {1, 1, "line-32-words"}, {4, 1, "sector-8-words"},
                          {8, 8, "4-sectors-1-word-each"}, {8, 32, "4-lines-1-word-each"}};
  const int chunk_list[] = {1, 2, 4, 8, 16, 32, 64, 96, 128, 256, 1024, 4096};
  for (const Shape& s : shapes)
    for (int c : chunk_list) {
      if (s.lanes != 32 && s.lanes != 1 && c != 1 && c != 8 && c != 64 && c != 4096) continue;
      const double lanes = double(warps) * 32 * iters;
      snprintf(prm, sizeof prm, "u32 red %s lanes=%d spacing=%d chunks=%d warps=%d iters=%d", s.what,
               s.lanes, s.spacing, c, warps, iters);
      row("chunks", prm, lanes, time_launches(nullptr, [&] {
            chunks_k<unsigned, false><<<warps / 8, 256>>>((unsigned*)buf, (unsigned*)sink, c,
                                                          s.lanes, s.spacing, iters);
          }));
      if (s.lanes == 32 || s.lanes == 1) {
        snprintf(prm, sizeof prm, "f32 red %s lanes=%d spacing=%d chunks=%d warps=%d iters=%d",
                 s.what, s.lanes, s.spacing, c, warps, iters);
        row("chunks", prm, lanes, time_launches(nullptr, [&] {
              chunks_k<float, false><<<warps / 8, 256>>>((float*)buf, (float*)sink, c, s.lanes,
                                                         s.spacing, iters);
            }));
        snprintf(prm, sizeof prm, "u32 atom %s lanes=%d spacing=%d chunks=%d warps=%d iters=%d",
                 s.what, s.lanes, s.spacing, c, warps, iters);
        row("chunks", prm, lanes, time_launches(nullptr, [&] {
              chunks_k<unsigned, true><<<warps / 8, 256>>>((unsigned*)buf, (unsigned*)sink, c,
                                                           s.lanes, s.spacing, iters);
            }));
      }
    }
  // Uniform row lengths, the corpus's spmv_coo size (6 x 16384 entries, 384 blocks of 256).
  const int n = 6 * 16384;
  for (int len : {1, 2, 4, 8, 16, 32, 64, 256}) {
    snprintf(prm, sizeof prm, "f32 red len=%d entries=%d", len, n);
    row("rowlen", prm, n, time_launches(nullptr, [&] {
          rowlen_k<<<(n + 255) / 256, 256>>>((float*)buf, n, len);
        }));
  }
  // sparse.cu's rows.
  std::vector<int> rows;
  for (int r = 0; r < 16384; ++r) {
    int len = 256 / (1 + (int)(mix32((unsigned)r) % 256u));
    if (len < 1) len = 1;
    rows.insert(rows.end(), len, r);
  }
  const int nnz = (int)rows.size();
  int* drows;
  CK(cudaMalloc(&drows, nnz * sizeof(int)));
  CK(cudaMemcpy(drows, rows.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  const int blocks = (6 * 16384 + 255) / 256;
  snprintf(prm, sizeof prm, "f32 red nnz=%d blocks=%d", nnz, blocks);
  row("spmv", prm, nnz, time_launches(nullptr, [&] {
        spmv_k<float, false><<<blocks, 256>>>(drows, (float*)buf, (float*)sink, nnz);
      }));
  snprintf(prm, sizeof prm, "u32 red nnz=%d blocks=%d", nnz, blocks);
  row("spmv", prm, nnz, time_launches(nullptr, [&] {
        spmv_k<unsigned, false><<<blocks, 256>>>(drows, (unsigned*)buf, (unsigned*)sink, nnz);
      }));
  snprintf(prm, sizeof prm, "f32 atom nnz=%d blocks=%d", nnz, blocks);
  row("spmv", prm, nnz, time_launches(nullptr, [&] {
        spmv_k<float, true><<<blocks, 256>>>(drows, (float*)buf, (float*)sink, nnz);
      }));
  return 0;
}
