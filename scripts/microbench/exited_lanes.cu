// What the H100 and compute-sanitizer's synccheck do with warp-level .sync operations whose full
// member mask names lanes that have already returned (issue 11; WarpLab's own synccheck reports
// a shuffle that reads such a lane and a __syncwarp that names one, not a reduction or vote).
//
//   nvcc -O3 -arch=sm_90 -o exited scripts/microbench/exited_lanes.cu
//   ./exited; compute-sanitizer --tool synccheck ./exited
//
// Each kernel: one warp; lanes 16-31 return first, lanes 0-15 then run the operation with the
// full mask 0xffffffff. Printed: the value each of lanes 0-15 got.
#include <cstdio>

extern "C" __global__ void k_syncwarp(int* out) {
  int lane = threadIdx.x;
  if (lane >= 16) return;
  __syncwarp();
  out[lane] = lane;
}
extern "C" __global__ void k_shfl_live(int* out) {  // reads live lanes only (lane ^ 1)
  int lane = threadIdx.x;
  if (lane >= 16) return;
  out[lane] = __shfl_sync(0xffffffffu, lane * 10, lane ^ 1);
}
extern "C" __global__ void k_shfl_exited(int* out) {  // reads an exited lane (lane + 16)
  int lane = threadIdx.x;
  if (lane >= 16) return;
  out[lane] = __shfl_sync(0xffffffffu, lane * 10, lane + 16);
}
extern "C" __global__ void k_reduce(int* out) {
  int lane = threadIdx.x;
  if (lane >= 16) return;
  out[lane] = __reduce_add_sync(0xffffffffu, lane + 1);
}
extern "C" __global__ void k_ballot(int* out) {
  int lane = threadIdx.x;
  if (lane >= 16) return;
  out[lane] = (int)__ballot_sync(0xffffffffu, lane & 1);
}

int main() {
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  int h[32];
  void (*ks[])(int*) = {k_syncwarp, k_shfl_live, k_shfl_exited, k_reduce, k_ballot};
  const char* names[] = {"syncwarp", "shfl_live", "shfl_exited", "reduce_add", "ballot"};
  for (int k = 0; k < 5; ++k) {
    cudaMemset(d, 0xff, 32 * sizeof(int));
    ks[k]<<<1, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s\t%s\t", names[k], cudaGetErrorString(e));
    for (int l = 0; l < 16; ++l) printf("%d ", h[l]);
    printf("\n");
  }
  return 0;
}
