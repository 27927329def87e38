// One module, four kernels: `good` and `recursive` run in the simulator. The others must not stop
// them from loading, and are refused with their CUDA line when an experiment launches them
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

// A recursive function that takes the address of a local (so it lives in .local memory, one
// frame per activation on the GPU): WarpLab refuses it, naming its line (22).
__device__ __noinline__ void put(int* p, int v) { *p = v; }
__device__ __noinline__ int digits(int n) {
  int d;
  put(&d, n % 10);
  return n < 10 ? d : d + digits(n / 10);
}

extern "C" __global__ void recursive_local(int* out) {
  out[threadIdx.x] = digits(threadIdx.x * 37);
}
