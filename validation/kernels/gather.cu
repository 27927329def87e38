// Validation corpus, generalization set (written 2026-11-25 and measured before any model change
// was made for it): indirect and stencil access.
// gather: y[i] = x[idx[i] & (n - 1)] (n a power of two) with random indices: each lane of a
//   warp reads its own sector.
// stencil5: 2D five-point sum with wrap-around edges on a w x h grid (w, h powers of two); each
//   input element is read by five threads of neighbouring rows and columns (L1 and L2 reuse).
// conv1d_shared: 17-tap sum over a 1D signal with wrap-around, through a shared-memory tile with
//   a halo of 8 on each side (blockDim.x == 256).
extern "C" __global__ void gather(const float* x, const int* idx, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[idx[i] & (n - 1)];
}

extern "C" __global__ void stencil5(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int l = (x - 1) & (w - 1), r = (x + 1) & (w - 1);
  int u = (y - 1) & (h - 1), d = (y + 1) & (h - 1);
  out[y * w + x] = in[y * w + x] + in[y * w + l] + in[y * w + r] + in[u * w + x] + in[d * w + x];
}

extern "C" __global__ void conv1d_shared(const float* in, float* out, int n) {
  __shared__ float tile[256 + 16];
  int base = blockIdx.x * 256;
  int i = base + threadIdx.x;
  tile[threadIdx.x + 8] = in[i & (n - 1)];
  if (threadIdx.x < 8) {
    tile[threadIdx.x] = in[(base - 8 + threadIdx.x) & (n - 1)];
    tile[256 + 8 + threadIdx.x] = in[(base + 256 + threadIdx.x) & (n - 1)];
  }
  __syncthreads();
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 17; ++k) s += tile[threadIdx.x + k];
  if (i < n) out[i] = s;
}
