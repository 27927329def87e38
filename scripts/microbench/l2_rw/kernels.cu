// Kernels of scripts/microbench/l2_rw.cu (the GPU timing) and l2_rw.toml (the simulator's side).
// Grid-stride loops: element j = (i * stride) & mask of i = thread, thread + threads, ... < n, so
// a mask below the buffer keeps the accesses in a region that stays in the L2. The read kernels
// store only if the data holds a value it never holds (the buffers are zero), so nothing is
// written and the loads stay.
extern "C" __global__ void l2rw_copy4(const float4* x, float4* y, unsigned n, unsigned mask) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned j = i & mask;
    y[j] = x[j];
  }
}
extern "C" __global__ void l2rw_read4(const float4* x, float4* y, unsigned n, unsigned mask) {
  float acc = 0.f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float4 v = x[i & mask];
    acc += (v.x + v.y) + (v.z + v.w);
  }
  if (acc == -1.f) y[blockIdx.x * blockDim.x + threadIdx.x] = make_float4(acc, acc, acc, acc);
}
extern "C" __global__ void l2rw_write4(const float4* x, float4* y, unsigned n, unsigned mask) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i & mask] = make_float4(float(i), 1.f, 2.f, 3.f);
}
// 4-byte accesses: stride 1 covers whole sectors, 8 four bytes of each sector (partial stores),
// 32 one sector of each line.
extern "C" __global__ void l2rw_copy1(const float* x, float* y, unsigned n, unsigned stride,
                                      unsigned mask) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned j = (i * stride) & mask;
    y[j] = x[j];
  }
}
extern "C" __global__ void l2rw_read1(const float* x, float* y, unsigned n, unsigned stride,
                                      unsigned mask) {
  float acc = 0.f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += x[(i * stride) & mask];
  if (acc == -1.f) y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void l2rw_write1(const float* x, float* y, unsigned n, unsigned stride,
                                       unsigned mask) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[(i * stride) & mask] = float(i);
}
// One float a thread (the shape of the coldstart microbenchmark's copy).
extern "C" __global__ void l2rw_copy1flat(const float* x, float* y, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
// Fills the L2 with the first `n` float4 of x (read) and y (written) before a warm ncu launch.
extern "C" __global__ void l2rw_touch(const float4* x, float4* y, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[i];
}
// The L2 flush of WarpLab's GPU backend: reads a buffer twice the L2's size, writes nothing.
extern "C" __global__ void l2rw_flush(const int4* x, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = x[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9) sink[blockIdx.x & 1023] = acc;
}
