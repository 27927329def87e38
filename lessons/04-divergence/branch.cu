// Lesson 4: warp divergence.
//
// A warp issues one instruction for all 32 lanes. When lanes of one warp take different sides of a
// branch, the warp runs both sides one after the other, with the lanes of the other side switched
// off. Both kernels below do exactly the same arithmetic per thread (64 FMAs); only which threads
// take which side differs.

#define FMAS 64

// Even and odd lanes take different sides: every warp runs both sides.
extern "C" __global__ void branch_divergent(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if (threadIdx.x % 2 == 0) {
#pragma unroll
      for (int k = 0; k < FMAS; ++k) v = v * 0.999f + 0.5f;
    } else {
#pragma unroll
      for (int k = 0; k < FMAS; ++k) v = v * 1.001f - 0.25f;
    }
    y[i] = v;
  }
}

// Whole warps take the same side (warp 0 one way, warp 1 the other...): no warp runs both sides.
extern "C" __global__ void branch_uniform(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    if ((threadIdx.x / 32) % 2 == 0) {
#pragma unroll
      for (int k = 0; k < FMAS; ++k) v = v * 0.999f + 0.5f;
    } else {
#pragma unroll
      for (int k = 0; k < FMAS; ++k) v = v * 1.001f - 0.25f;
    }
    y[i] = v;
  }
}
