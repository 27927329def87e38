// WarpLab microbenchmark (issue 25, acc6c): why a sequential stream of one-word REDs (the corpus's
// v.atomic_global_red.l32: warp w's 32 lanes all add to word w) runs at ~29 slices' rate while
// the same REDs interleaved over many chunks run at ~50 (atomic_rate.cu).
//
//   nvcc -O3 -arch=sm_90 -o atomic_window atomic_window.cu && ./atomic_window > window.tsv
//   ./atomic_window once   (one launch of each, for ncu)
//
// seq: warp w adds to word (w * stride) % words (stride 1: the corpus's pattern, 32 warps a
//   line); block size and warps vary. inter: warp w adds to word 0 of chunk (w % chunks).
// Prints kernel, params, median / min / max microseconds (20 launches after 3 warm-ups, warm L2).
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"
#include "event_timer.h"

__global__ void seq_k(unsigned* a, int stride, int words, int iters) {
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned* p = a + (size_t)((long)w * stride % words);
  for (int i = 0; i < iters; ++i) atomicAdd(p, (unsigned)(threadIdx.x & 31) + 1u);
}
__global__ void inter_k(unsigned* a, int chunks, int iters) {
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned* p = a + (size_t)(w % chunks) * 128;
  for (int i = 0; i < iters; ++i) atomicAdd(p, (unsigned)(threadIdx.x & 31) + 1u);
}
__global__ void empty_k() {}

static void row(const char* name, const char* prm, const std::vector<float>& t) {
  printf("%s\t%s\t%.2f\t%.2f\t%.2f\n", name, prm, t[10], t[0], t[19]);
}

int main(int argc, char** argv) {
  unsigned* a;
  CK(cudaMalloc(&a, 64 << 20));
  CK(cudaMemset(a, 0, 64 << 20));
  if (argc > 1) {
    seq_k<<<32768 / 8, 256>>>(a, 1, 1 << 24, 1);
    inter_k<<<32768 / 8, 256>>>(a, 256, 1);
    inter_k<<<32768 / 8, 256>>>(a, 4096, 1);
    seq_k<<<32768 / 8, 256>>>(a, 32, 1 << 24, 1);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s\tSMs %d\n# kernel\tparams\tmedian_us\tmin_us\tmax_us\n", prop.name,
         prop.multiProcessorCount);
  char prm[128];
  row("empty", "blocks=4096 threads=256", time_launches(nullptr, [&] { empty_k<<<4096, 256>>>(); }));
  for (int warps : {32768, 131072})
    for (int bs : {64, 256, 1024})
      for (int stride : {1, 32, 128}) {
        snprintf(prm, sizeof prm, "warps=%d block=%d stride_words=%d iters=1", warps, bs, stride);
        row("seq", prm, time_launches(nullptr, [&] {
              seq_k<<<warps * 32 / bs, bs>>>(a, stride, 1 << 24, 1);
            }));
      }
  for (int chunks : {64, 256, 1024, 4096}) {
    snprintf(prm, sizeof prm, "warps=32768 block=256 chunks=%d iters=1", chunks);
    row("inter", prm, time_launches(nullptr, [&] { inter_k<<<4096, 256>>>(a, chunks, 1); }));
  }
  snprintf(prm, sizeof prm, "warps=32768 block=256 stride_words=1 iters=4");
  row("seq", prm, time_launches(nullptr, [&] { seq_k<<<4096, 256>>>(a, 1, 1 << 24, 4); }));
  return 0;
}
