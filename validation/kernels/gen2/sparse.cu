// Validation corpus, second generalization set (issue 25; written 2026-11-26 before any model change
// was made for it): one sparse matrix (n x n) in four formats, and two graph steps on it as an
// adjacency list. Row r has max(1, 256 / (1 + mix(r) % 256)) entries: a power law (half the rows
// have 1 or 2 entries, one in 256 has 256). Columns and values come from mix32 (mix.h), values are
// 1..4 and x is -3..3, so every sum is an exact integer in fp32 and any summation order gives the
// same bits.
// gen_rows (one thread): CSR row pointers and the SELL-32 slice pointers (a slice of 32 rows is
//   stored column-major, as wide as its longest row).
// gen_fill (a thread per row): columns, values, COO row indices, the SELL arrays and BFS distances.
// spmv_csr_thread: a thread walks its row (latency of a per-thread walk; warps wait for their
//   longest row). spmv_csr_warp: a warp per row, lanes stride the row, shuffle reduction (mostly
//   idle lanes: the mean row has 6 entries). spmv_sell: a thread per row over the padded slice
//   (coalesced, 10x the entries). spmv_coo: a thread per entry, one float atomic each.
// bfs_step: a thread per frontier vertex; unvisited neighbours are claimed with atomicCAS and
//   appended to the next frontier. pagerank_pull: a thread per vertex pulls rank / out-degree
//   (an IEEE division per edge) from its neighbours.
#include "mix.h"

__device__ __forceinline__ int row_len(int r) { return max(1, 256 / (1 + (int)(mix32(r) % 256u))); }

extern "C" __global__ void gen_rows(int* row_ptr, int* sell_ptr, int* sell_width, int n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int total = 0, sell_total = 0;
  for (int s = 0; s < n / 32; ++s) {
    int width = 0;
    for (int r = s * 32; r < s * 32 + 32; ++r) {
      row_ptr[r] = total;
      total += row_len(r);
      width = max(width, row_len(r));
    }
    sell_ptr[s] = sell_total;
    sell_width[s] = width;
    sell_total += 32 * width;
  }
  row_ptr[n] = total;
  sell_ptr[n / 32] = sell_total;
}

extern "C" __global__ void gen_fill(const int* row_ptr, const int* sell_ptr, const int* sell_width,
                                    int* cols, float* vals, int* coo_rows, int* sell_cols,
                                    float* sell_vals, float* x, int* dist, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int start = row_ptr[r], len = row_ptr[r + 1] - start;
  int s = r / 32, lane = r % 32;
  for (int j = 0; j < sell_width[s]; ++j) {
    int e = sell_ptr[s] + j * 32 + lane;
    if (j < len) {
      int c = (int)(mix32((unsigned)(r * 1024 + j)) % (unsigned)n);
      float v = (float)(1 + (mix32((unsigned)(start + j) ^ 0x9e3779b9u) & 3u));
      cols[start + j] = c;
      vals[start + j] = v;
      coo_rows[start + j] = r;
      sell_cols[e] = c;
      sell_vals[e] = v;
    } else {
      sell_cols[e] = 0;
      sell_vals[e] = 0.f;
    }
  }
  x[r] = (float)((int)(mix32((unsigned)r + 7u) % 7u) - 3);
  dist[r] = r % 16 == 0 ? 0 : -1;
}

extern "C" __global__ void spmv_csr_thread(const int* row_ptr, const int* cols, const float* vals,
                                           const float* x, float* y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float s = 0.f;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) s += vals[k] * x[cols[k]];
  y[r] = s;
}

extern "C" __global__ void spmv_csr_warp(const int* row_ptr, const int* cols, const float* vals,
                                         const float* x, float* y, int n) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (r >= n) return;
  float s = 0.f;
  for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32) s += vals[k] * x[cols[k]];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) y[r] = s;
}

extern "C" __global__ void spmv_sell(const int* sell_ptr, const int* sell_width, const int* sell_cols,
                                     const float* sell_vals, const float* x, float* y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int s = r / 32, base = sell_ptr[s] + r % 32, width = sell_width[s];
  float acc = 0.f;
  for (int j = 0; j < width; ++j) acc += sell_vals[base + j * 32] * x[sell_cols[base + j * 32]];
  y[r] = acc;
}

extern "C" __global__ void spmv_coo(const int* row_ptr, const int* coo_rows, const int* cols,
                                    const float* vals, const float* x, float* y, int n) {
  int nnz = row_ptr[n];
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x) {
    atomicAdd(&y[coo_rows[k]], vals[k] * x[cols[k]]);
  }
}

extern "C" __global__ void bfs_step(const int* row_ptr, const int* cols, const int* frontier,
                                    int frontier_size, int* dist, int* next, int* next_size,
                                    int level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frontier_size) return;
  int v = frontier[i];
  for (int k = row_ptr[v]; k < row_ptr[v + 1]; ++k) {
    int u = cols[k];
    if (dist[u] == -1 && atomicCAS(&dist[u], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = u;
  }
}

extern "C" __global__ void pagerank_pull(const int* row_ptr, const int* cols, const float* rank,
                                         float* next_rank, int n, float damping) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float s = 0.f;
  for (int k = row_ptr[v]; k < row_ptr[v + 1]; ++k) {
    int u = cols[k];
    s += rank[u] / (float)(row_ptr[u + 1] - row_ptr[u]);
  }
  next_rank[v] = (1.f - damping) / (float)n + damping * s;
}
