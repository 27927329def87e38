// A 3-point stencil, out[i] = in[i-1] + in[i] + in[i+1] (zero outside the array), two ways:
//   stencil_sync      every thread loads its three inputs from global memory;
//   stencil_cp_async  each block walks its tiles with a double-buffered shared-memory pipeline:
//                     while it computes tile t from one buffer, cp.async (LDGSTS: global ->
//                     shared, no registers) fills the other with tile t + gridDim.x. The halo
//                     elements past the array's ends are zero-filled by cp.async's src-size 0.
// The sums are taken in the same order in both kernels, so their results agree bit for bit.
#define TILE 256

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// A 4-byte cp.async; `valid` false copies nothing and writes zeros (src-size 0).
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(smem_addr(dst)), "l"(src),
               "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void wait_all_but_newest() {
  asm volatile("cp.async.wait_group 1;" ::: "memory");
}

extern "C" __global__ void stencil_sync(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float left = i > 0 ? in[i - 1] : 0.0f;
  const float right = i + 1 < n ? in[i + 1] : 0.0f;
  out[i] = left + in[i] + right;
}

// Tile `tile` (and its two halo elements) into buf: one group per thread.
__device__ void load_tile(float (*buf)[TILE + 2], int s, const float* in, int n, int tile) {
  const int i = tile * TILE + threadIdx.x;
  cp_async4(&buf[s][threadIdx.x + 1], in + min(i, n - 1), i < n);
  if (threadIdx.x == 0) {
    const int l = tile * TILE - 1;
    cp_async4(&buf[s][0], in + max(l, 0), l >= 0);
  }
  if (threadIdx.x == 1) {
    const int r = tile * TILE + TILE;
    cp_async4(&buf[s][TILE + 1], in + min(r, n - 1), r < n);
  }
  commit();
}

// blockDim.x == TILE.
extern "C" __global__ void stencil_cp_async(const float* in, float* out, int n) {
  __shared__ __align__(16) float buf[2][TILE + 2];
  const int tiles = (n + TILE - 1) / TILE;
  int s = 0;
  if (blockIdx.x < tiles) load_tile(buf, 0, in, n, blockIdx.x);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x, s ^= 1) {
    const int next = tile + gridDim.x;
    if (next < tiles)
      load_tile(buf, s ^ 1, in, n, next);
    else
      commit();  // an empty group keeps wait_group 1's count right
    wait_all_but_newest();  // this thread's copies of `tile` have landed
    __syncthreads();        // ... and everyone else's
    const int i = tile * TILE + threadIdx.x;
    if (i < n) out[i] = buf[s][threadIdx.x] + buf[s][threadIdx.x + 1] + buf[s][threadIdx.x + 2];
    __syncthreads();  // everyone has read buf[s] before it is refilled
  }
}
