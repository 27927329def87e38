// One module, three kernels: only `good` can run in the simulator. The others must not stop it
// from loading, and are refused with their CUDA line when an experiment launches them
// (tests/511_generated_ptx_errors.cpp).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void good(int* out) { out[threadIdx.x] = threadIdx.x % warpSize + warpSize; }

extern "C" __global__ void recursive(int* out) { out[threadIdx.x] = fib(threadIdx.x % 8); }

extern "C" __global__ void grid_sync(int* out) {
  out[threadIdx.x] = 1;
  cg::this_grid().sync();
  out[threadIdx.x] += 1;
}
