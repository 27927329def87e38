// Lesson 10b: vectorised loads. A copy of n floats, one float per thread (4-byte loads and
// stores) or one float4 per thread (16-byte loads and stores, `ld.global.v4.f32`).
//
// A warp's float loads are 32 x 4 = 128 bytes: 4 sectors per request. Its float4 loads are
// 32 x 16 = 512 bytes: 16 sectors per request, so the same bytes need a quarter of the requests,
// a quarter of the threads and about a quarter of the instructions. A float4 must be 16-byte
// aligned: cudaMalloc'd buffers are (256 bytes), a pointer into the middle of one may not be.

extern "C" __global__ void copy_f32(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

// n4 = n / 4 float4s (n must be a multiple of 4 here).
extern "C" __global__ void copy_f32x4(const float4* x, float4* y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) y[i] = x[i];
}
