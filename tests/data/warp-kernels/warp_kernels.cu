// Warp-level and cooperative-groups kernels written the way real CUDA code writes them, each paired
// with a plain reference kernel (no warp intrinsics, one thread doing a group's work with loops) so
// that the experiment file can check them; tests/561_warp_kernels.cpp checks every buffer against
// results computed on the CPU. All kernels assume blockDim.x == 256 except bitonic_sort (512).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// ---- 1. warp-synchronous block reduction, written with warpSize ---------------------------------
extern "C" __global__ void warp_reduce(const int* x, int* partial, int n) {
  __shared__ int warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + warpSize - 1) / warpSize;
    v = lane < warps ? warp_sums[lane] : 0;
    for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) partial[blockIdx.x] = v;
  }
}

extern "C" __global__ void ref_block_sum(const int* x, int* partial, int n) {
  if (threadIdx.x != 0) return;
  int s = 0;
  for (int k = 0; k < blockDim.x; ++k) {
    const int i = blockIdx.x * blockDim.x + k;
    if (i < n) s += x[i];
  }
  partial[blockIdx.x] = s;
}

// ---- 2. cooperative-groups tiles of 4..128 threads ----------------------------------------------
// out[i*4 + k]. Tiles of up to a warp: k=0 sum, 1 the tile's last value (shfl), 2 any(v > 500) |
// all(v > -900) << 1, 3 ballot(v > 0) in tile lane bits. Tiles of 64 and 128 (several warps, the
// barriers in the driver-reserved shared memory): 0 sum, 1 max, 2 the next thread's value in the
// tile (through shared memory and tile.sync()), 3 meta_group_rank.
template <int T>
__device__ void small_tile(const int* x, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<T> tile = cg::tiled_partition<T>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  out[i * 4 + 0] = cg::reduce(tile, v, cg::plus<int>());
  out[i * 4 + 1] = tile.shfl(v, T - 1);
  out[i * 4 + 2] = int(tile.any(v > 500)) | int(tile.all(v > -900)) << 1;
  out[i * 4 + 3] = int(tile.ballot(v > 0));
}

template <int T>
__device__ void big_tile(const int* x, int* out) {
  __shared__ cg::block_tile_memory<256> scratch;
  __shared__ int s[256];
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<T> tile = cg::tiled_partition<T>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  out[i * 4 + 0] = cg::reduce(tile, v, cg::plus<int>());
  out[i * 4 + 1] = cg::reduce(tile, v, cg::greater<int>());
  s[threadIdx.x] = v;
  tile.sync();
  const int base = threadIdx.x - tile.thread_rank();
  out[i * 4 + 2] = s[base + (tile.thread_rank() + 1) % T];
  out[i * 4 + 3] = tile.meta_group_rank();
}

extern "C" __global__ void tiles4(const int* x, int* out) { small_tile<4>(x, out); }
extern "C" __global__ void tiles8(const int* x, int* out) { small_tile<8>(x, out); }
extern "C" __global__ void tiles16(const int* x, int* out) { small_tile<16>(x, out); }
extern "C" __global__ void tiles32(const int* x, int* out) { small_tile<32>(x, out); }
extern "C" __global__ void tiles64(const int* x, int* out) { big_tile<64>(x, out); }
extern "C" __global__ void tiles128(const int* x, int* out) { big_tile<128>(x, out); }

extern "C" __global__ void ref_tiles(const int* x, int* out, int t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = i - threadIdx.x % t;
  int sum = 0, mx = x[first], ballot = 0;
  bool any = false, all = true;
  for (int k = 0; k < t; ++k) {
    const int w = x[first + k];
    sum += w;
    mx = w > mx ? w : mx;
    any = any || w > 500;
    all = all && w > -900;
    if (w > 0 && k < 32) ballot |= 1 << k;
  }
  out[i * 4 + 0] = sum;
  if (t <= 32) {
    out[i * 4 + 1] = x[first + t - 1];
    out[i * 4 + 2] = int(any) | int(all) << 1;
    out[i * 4 + 3] = ballot;
  } else {
    out[i * 4 + 1] = mx;
    out[i * 4 + 2] = x[first + (threadIdx.x % t + 1) % t];
    out[i * 4 + 3] = threadIdx.x / t;
  }
}

// ---- 3. labeled partitions: groups of a warp by label ------------------------------------------
// out[i*3 + k]: 0 the group's size, 1 the thread's rank in it, 2 the group's sum.
__device__ int label_of(int v) { return ((v % 3) + 3) % 3; }

extern "C" __global__ void labeled(const int* x, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  cg::coalesced_group g = cg::labeled_partition(warp, label_of(v));
  out[i * 3 + 0] = g.size();
  out[i * 3 + 1] = g.thread_rank();
  out[i * 3 + 2] = cg::reduce(g, v, cg::plus<int>());
}

extern "C" __global__ void ref_labeled(const int* x, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = i - threadIdx.x % 32, me = label_of(x[i]);
  int size = 0, rank = 0, sum = 0;
  for (int k = 0; k < 32; ++k) {
    const int w = x[first + k];
    if (label_of(w) != me) continue;
    ++size;
    sum += w;
    if (first + k < i) ++rank;
  }
  out[i * 3 + 0] = size;
  out[i * 3 + 1] = rank;
  out[i * 3 + 2] = sum;
}

// ---- 4. warp-aggregated atomics
// ------------------------------------------------------------------ Threads with x >= 0 add to
// hist[x & 15] and to *count; one leader per group of equal bins
// (__match_any_sync) and one leader per warp (__activemask) do the atomics. rank[i]: the thread's
// position among the warp's threads that took part (-1 for the others).
extern "C" __global__ void aggregated(const int* x, int* hist, int* count, int* rank) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  const int lane = threadIdx.x % warpSize;
  rank[i] = -1;
  if (v >= 0) {
    const unsigned active = __activemask();
    const int bin = v & 15;
    const unsigned peers = __match_any_sync(active, bin);
    if (lane == __ffs(peers) - 1) atomicAdd(&hist[bin], __popc(peers));
    const int leader = __ffs(active) - 1;
    int total = 0;
    if (lane == leader) total = __popc(active);
    total = __shfl_sync(active, total, leader);
    if (lane == leader) atomicAdd(count, total);
    rank[i] = __popc(active & ((1u << lane) - 1));
  }
}

extern "C" __global__ void ref_aggregated(const int* x, int* hist, int* count, int* rank, int n) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int i = 0; i < n; ++i) {
    rank[i] = -1;
    if (x[i] < 0) continue;
    hist[x[i] & 15] += 1;
    *count += 1;
    int r = 0;
    for (int k = i - i % 32; k < i; ++k) r += x[k] >= 0;
    rank[i] = r;
  }
}

// ---- 5. inclusive warp scan with __shfl_up_sync
// --------------------------------------------------
extern "C" __global__ void warp_scan(const int* x, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize;
  int v = x[i];
  for (int off = 1; off < warpSize; off *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += up;
  }
  out[i] = v;
}

extern "C" __global__ void ref_scan(const int* x, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int k = i - threadIdx.x % 32; k <= i; ++k) s += x[k];
  out[i] = s;
}

// ---- 6. bitonic sort of 1024 keys per block in shared memory (512 threads)
// -----------------------
extern "C" __global__ void bitonic_sort(const int* x, int* out) {
  __shared__ int s[1024];
  const int base = blockIdx.x * 1024, t = threadIdx.x;
  s[t] = x[base + t];
  s[t + 512] = x[base + t + 512];
  __syncthreads();
  for (int size = 2; size <= 1024; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      const int i = 2 * t - (t & (stride - 1));  // the lower index of this thread's pair
      const int j = i + stride;
      const bool up = (i & size) == 0;
      const int a = s[i], b = s[j];
      if ((a > b) == up) {
        s[i] = b;
        s[j] = a;
      }
      __syncthreads();
    }
  }
  out[base + t] = s[t];
  out[base + t + 512] = s[t + 512];
}

// Rank sort: key i goes to the number of keys before it in sorted order.
extern "C" __global__ void ref_sort(const int* x, int* out) {
  const int base = blockIdx.x * 1024;
  for (int t = threadIdx.x; t < 1024; t += blockDim.x) {
    const int key = x[base + t];
    int r = 0;
    for (int k = 0; k < 1024; ++k) {
      const int o = x[base + k];
      r += o < key || (o == key && k < t);
    }
    out[base + r] = key;
  }
}

// ---- 7. double-precision math
// -------------------------------------------------------------------- a = (i - n/2) * 0.37: y =
// sqrt(|a|) * exp(-|a| / 100) + sin(a) / (1 + a*a) + fma(a, a, -a) / 3
extern "C" __global__ void double_math(double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double a = (i - n / 2) * 0.37;
  y[i] = sqrt(fabs(a)) * exp(-fabs(a) / 100.0) + sin(a) / (1.0 + a * a) + fma(a, a, -a) / 3.0;
}
