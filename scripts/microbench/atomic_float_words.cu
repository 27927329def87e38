// WarpLab microbenchmark (issue 25): is the L2 atomic unit's float adder pipelined over words?
//
//   nvcc -O3 -arch=sm_90 -o atomic_float_words atomic_float_words.cu && ./atomic_float_words
//
// Every lane of `warps` warps (8 per block) adds to one of `words` words of one 512-byte chunk
// (one L2 slice, one atomic unit), the result unused (RED): lane l adds to word
// (l % words) * (128 / words), so each warp puts 32 / words lanes on each word. f32 adds 1.0;
// u32 adds the lane number + 1 (not warp-uniform, so ptxas cannot aggregate it). If the adder
// holds the unit for a word's 3.5 cycles per lane, f32 time per lane stays the same for every
// `words`; if it is pipelined over words, time per lane falls as `words` grows, down to the
// integer rate. `chunks` > 1 spreads the warps over that many chunks 4 KiB apart (other
// slices/units) as a check that one unit is what limits. Prints microseconds (median of 20
// launches after 3 warm-ups; the chunk stays in the L2), ns per warp instruction and per lane.
#include <cuda_runtime.h>

#include <cstdio>

#include "event_timer.h"

template <class T>
__global__ void words_red(T* a, int words, int chunks) {
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  T* chunk = a + (warp % chunks) * 1024;  // 4 KiB apart
  const int w = (lane % words) * (128 / words);
  if constexpr (sizeof(T) == 4 && T(0.5) != T(0))
    atomicAdd(chunk + w, T(1));
  else
    atomicAdd(chunk + w, T(lane + 1));
}

template <class T>
void run(const char* type, T* a, int warps, int words, int chunks) {
  auto t = time_launches(nullptr, [&] { words_red<T><<<warps / 8, 256>>>(a, words, chunks); });
  const double us = t[10];
  printf("%s\t%d\t%d\t%d\t%.2f\t%.3f\t%.3f\n", type, warps, words, chunks, us, us * 1e3 / warps,
         us * 1e3 / (double(warps) * 32));
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\n", prop.name);
  printf("type\twarps\twords\tchunks\tus\tns_per_warp_op\tns_per_lane\n");
  void* p;
  CK(cudaMalloc(&p, 1 << 20));
  CK(cudaMemset(p, 0, 1 << 20));
  for (int chunks : {1, 8})
    for (int words : {1, 2, 4, 8, 16, 32})
      for (int warps : {16384, 65536}) {
        run<unsigned>("u32", (unsigned*)p, warps, words, chunks);
        run<float>("f32", (float*)p, warps, words, chunks);
      }
  CK(cudaFree(p));
  return 0;
}
