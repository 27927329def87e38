// Calibration (issue 25, acc6c): scripts/microbench/atomic_rate.cu's kernels for the simulator
// (extern "C" copies of its templates; atomic_rate.toml launches them). Warp w adds to chunk
// (w % chunks) of consecutive 512-byte chunks, lane l to word (l / lanes) * spacing of it; u32
// adds lane + 1, f32 1.0; spmv_rows_*: entry k adds to y[rows[k]] with sparse.cu's spmv_coo rows.
#define CHUNKS_BODY(T, V)                                                   \
  const int lane = threadIdx.x & 31;                                        \
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;               \
  T* p = a + (size_t)(w % chunks) * 128 + (lane / lanes) * spacing;

extern "C" __global__ void rate_u32_red(unsigned* a, int chunks, int lanes, int spacing,
                                        int iters) {
  CHUNKS_BODY(unsigned, 0)
  for (int i = 0; i < iters; ++i) atomicAdd(p, (unsigned)(lane + 1));
}
extern "C" __global__ void rate_f32_red(float* a, int chunks, int lanes, int spacing, int iters) {
  CHUNKS_BODY(float, 0)
  for (int i = 0; i < iters; ++i) atomicAdd(p, 1.0f);
}
extern "C" __global__ void rate_u32_atom(unsigned* a, unsigned* sink, int chunks, int lanes,
                                         int spacing, int iters) {
  CHUNKS_BODY(unsigned, 0)
  unsigned acc = 0;
  for (int i = 0; i < iters; ++i) acc += atomicAdd(p, (unsigned)(lane + 1));
  if (acc == 0xfffffff9u) sink[0] = acc;
}
__device__ unsigned mix32(unsigned x) {
  x *= 2654435761u;
  x ^= x >> 16;
  x *= 2246822519u;
  x ^= x >> 13;
  return x;
}
// sparse.cu's row lengths, one thread: rows[k] = the row of entry k.
extern "C" __global__ void gen_coo(int* rows, int n) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int k = 0;
  for (int r = 0; r < n; ++r) {
    int len = max(1, 256 / (1 + (int)(mix32((unsigned)r) % 256u)));
    for (int j = 0; j < len; ++j) rows[k++] = r;
  }
}
extern "C" __global__ void spmv_rows_f32(const int* rows, float* y, int nnz) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(&y[rows[k]], 1.0f);
}
extern "C" __global__ void spmv_rows_u32(const int* rows, unsigned* y, int nnz) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(&y[rows[k]], (unsigned)((threadIdx.x & 31) + 1));
}
