// Validation corpus, second generalization set (issue 25; written 2026-11-26 before any model change
// was made for it): classic kernels the corpus lacks.
// histogram_skewed: 1024 bins in shared memory per block; bin = (h * h) >> 10 with h the top 10
//   bits of mix32(x) (skewed to low bins: more same-bin lanes), then one global add per non-empty bin.
// scan_lookback: single-pass inclusive scan (decoupled look-back): a block takes the next tile of
//   1024 ints from a counter, scans it (4 per thread, shuffles, a shared scan of warp totals),
//   publishes its total, then thread 0 walks back over earlier tiles' published totals / prefixes
//   (spinning on those not yet published) and publishes its inclusive prefix.
// transpose_tile / transpose_tile_pad: 32 x 32 tiles through shared memory (blocks of 32 x 8),
//   unpadded (32-way bank conflicts on the column reads) and padded to 33; sizes need not be
//   multiples of 32.
// stencil_halo: 2D five-point sum, zero outside the grid, through a 16 x 16 shared tile with a
//   one-element halo (the edge threads load it).
// hash_build / hash_probe: open addressing with linear probing in a table of 2^k slots (empty =
//   0xffffffff); build inserts key mix32(2 i) -> i with atomicCAS, probe looks up mix32(j) and
//   writes its value or -1 (found exactly for even j).
#include "mix.h"

extern "C" __global__ void histogram_skewed(const unsigned* x, unsigned* hist, int n) {
  __shared__ unsigned bins[1024];
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) bins[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = mix32(x[i]) >> 22;
    atomicAdd(&bins[(h * h) >> 10], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 1024; b += blockDim.x) {
    if (bins[b] != 0u) atomicAdd(&hist[b], bins[b]);
  }
}

extern "C" __global__ void scan_lookback(const int* x, int* y, unsigned long long* state,
                                         int* tile_counter, int n) {
  __shared__ int warp_totals[8];
  __shared__ int tile_shared;
  __shared__ int exclusive_shared;
  int t = threadIdx.x, lane = t % 32, w = t / 32;
  if (t == 0) tile_shared = atomicAdd(tile_counter, 1);
  __syncthreads();
  int tile = tile_shared;
  int base = tile * 1024 + t * 4;
  int v[4];
  int run = 0;
  for (int k = 0; k < 4; ++k) {
    v[k] = base + k < n ? x[base + k] : 0;
    run += v[k];
    v[k] = run;
  }
  int incl = run;
  for (int o = 1; o < 32; o <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += up;
  }
  if (lane == 31) warp_totals[w] = incl;
  __syncthreads();
  if (t < 32) {
    int c = t < 8 ? warp_totals[t] : 0, s = c;
    for (int o = 1; o < 8; o <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += up;
    }
    if (t < 8) warp_totals[t] = s - c;
    if (t == 7) {
      int total = s;
      volatile unsigned long long* st = state;
      if (tile == 0) {
        st[0] = (2ull << 32) | (unsigned)total;
        exclusive_shared = 0;
      } else {
        st[tile] = (1ull << 32) | (unsigned)total;
        int excl = 0;
        for (int j = tile - 1; j >= 0;) {
          unsigned long long s_j = st[j];
          unsigned flag = (unsigned)(s_j >> 32);
          if (flag == 0u) continue;
          excl += (int)(unsigned)s_j;
          if (flag == 2u) break;
          --j;
        }
        __threadfence();
        st[tile] = (2ull << 32) | (unsigned)(excl + total);
        exclusive_shared = excl;
      }
    }
  }
  __syncthreads();
  int offset = exclusive_shared + warp_totals[w] + incl - run;
  for (int k = 0; k < 4; ++k) {
    if (base + k < n) y[base + k] = v[k] + offset;
  }
}

extern "C" __global__ void transpose_tile(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  for (int k = threadIdx.y; k < 32; k += 8) {
    int y = blockIdx.y * 32 + k;
    if (x < cols && y < rows) tile[k][threadIdx.x] = in[(size_t)y * cols + x];
  }
  __syncthreads();
  int ox = blockIdx.y * 32 + threadIdx.x;
  for (int k = threadIdx.y; k < 32; k += 8) {
    int oy = blockIdx.x * 32 + k;
    if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][k];
  }
}

extern "C" __global__ void transpose_tile_pad(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  for (int k = threadIdx.y; k < 32; k += 8) {
    int y = blockIdx.y * 32 + k;
    if (x < cols && y < rows) tile[k][threadIdx.x] = in[(size_t)y * cols + x];
  }
  __syncthreads();
  int ox = blockIdx.y * 32 + threadIdx.x;
  for (int k = threadIdx.y; k < 32; k += 8) {
    int oy = blockIdx.x * 32 + k;
    if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][k];
  }
}

extern "C" __global__ void stencil_halo(const float* in, float* out, int w, int h) {
  __shared__ float tile[18][18];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
  auto at = [&](int xx, int yy) {
    return xx >= 0 && xx < w && yy >= 0 && yy < h ? in[(size_t)yy * w + xx] : 0.f;
  };
  tile[ty + 1][tx + 1] = at(x, y);
  if (tx == 0) tile[ty + 1][0] = at(x - 1, y);
  if (tx == 15) tile[ty + 1][17] = at(x + 1, y);
  if (ty == 0) tile[0][tx + 1] = at(x, y - 1);
  if (ty == 15) tile[17][tx + 1] = at(x, y + 1);
  __syncthreads();
  if (x < w && y < h) {
    out[(size_t)y * w + x] = tile[ty + 1][tx + 1] + tile[ty + 1][tx] + tile[ty + 1][tx + 2] +
                             tile[ty][tx + 1] + tile[ty + 2][tx + 1];
  }
}

extern "C" __global__ void hash_build(unsigned* table_keys, int* table_values, int n, int log2_slots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned key = mix32(2u * (unsigned)i), mask = (1u << log2_slots) - 1u;
  unsigned slot = (key * 2654435769u) >> (32 - log2_slots);
  while (true) {
    unsigned prev = atomicCAS(&table_keys[slot], 0xffffffffu, key);
    if (prev == 0xffffffffu || prev == key) {
      table_values[slot] = i;
      return;
    }
    slot = (slot + 1u) & mask;
  }
}

extern "C" __global__ void hash_probe(const unsigned* table_keys, const int* table_values, int* out,
                                      int m, int log2_slots) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  unsigned key = mix32((unsigned)j), mask = (1u << log2_slots) - 1u;
  unsigned slot = (key * 2654435769u) >> (32 - log2_slots);
  int found = -1;
  while (true) {
    unsigned k = table_keys[slot];
    if (k == key) {
      found = table_values[slot];
      break;
    }
    if (k == 0xffffffffu) break;
    slot = (slot + 1u) & mask;
  }
  out[j] = found;
}
