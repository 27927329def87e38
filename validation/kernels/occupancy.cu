// Validation corpus: streaming kernels whose occupancy is limited by one resource.
//
// many_registers: each thread keeps 64 loaded values live (loads first, then a dependent mixing
//   pass), so ptxas needs well over 64 registers per thread: registers limit the warps per SM.
//   out[i] = sum over k of x[i + k * n/64] * w (w = 1: the sum of the 64 inputs).
// smem_copy: y = x staged through shared memory, with `shared_bytes` of dynamic shared memory per
//   block (the launch's shared_bytes) limiting the blocks per SM.
// capped_copy: y = x with a fixed grid of `blocks` blocks and a grid-stride loop: the block count
//   (not the SM) limits the warps in flight.
#define LIVE 64
extern "C" __global__ void __launch_bounds__(256) many_registers(const float* x, float* out,
                                                                 int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int slice = n / LIVE;
  if (i >= slice) return;
  float v[LIVE];
#pragma unroll
  for (int k = 0; k < LIVE; ++k) v[k] = x[i + k * slice];
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < LIVE; ++k) s = s + v[k] * w;
  out[i] = s;
}

extern "C" __global__ void smem_copy(const float* x, float* y, int n) {
  extern __shared__ float stage[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) stage[threadIdx.x] = x[i];
  __syncthreads();
  if (i < n) y[i] = stage[threadIdx.x];
}

extern "C" __global__ void capped_copy(const float* x, float* y, int n) {
  int threads = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) y[i] = x[i];
}
