// WarpLab microbenchmark: atomics that every warp sends to one address (a grand total).
//
//   nvcc -O3 -arch=sm_90 -o atomic_one_address atomic_one_address.cu && ./atomic_one_address
//
// `warps` warps (8 per block); in each, `lanes` lanes add 1 to the same word, int or float, the
// result unused (RED). Prints microseconds (median of 20 launches after 3 warm-ups, L2 warm: the
// word stays in L2) and nanoseconds per warp instruction, per lane.
#include <cuda_runtime.h>

#include <cstdio>

#include "event_timer.h"

template <class T>
__global__ void one_address(T* a, int lanes) {
  if ((threadIdx.x & 31) < lanes) atomicAdd(a, (T)1);
}

template <class T>
void run(const char* type, T* a, int warps, int lanes) {
  auto t = time_launches(nullptr, [&] { one_address<T><<<warps / 8, 256>>>(a, lanes); });
  const double us = t[10];
  printf("%s\t%d\t%d\t%.2f\t%.3f\t%.3f\n", type, warps, lanes, us, us * 1e3 / warps,
         us * 1e3 / (double(warps) * lanes));
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\n", prop.name);
  printf("type\twarps\tlanes\tus\tns_per_warp_op\tns_per_lane\n");
  void* p;
  CK(cudaMalloc(&p, 256));
  CK(cudaMemset(p, 0, 256));
  for (int lanes : {1, 2, 8, 32})
    for (int warps : {16384, 65536}) {
      run<unsigned>("u32", (unsigned*)p, warps, lanes);
      run<float>("f32", (float*)p, warps, lanes);
    }
  return 0;
}
