// Validation corpus: block reductions of 256 values, one per thread, into one value per block.
// tree_reduce_shared: 8 rounds of ld.shared / add / st.shared / bar.sync.
// shuffle_reduce: 5 shuffle rounds per warp, one shared store per warp, one barrier, 3 more
//   shuffle rounds in the first warp.
// Both need blockDim.x == 256.
extern "C" __global__ void tree_reduce_shared(const float* x, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void shuffle_reduce(const float* x, float* out, int n) {
  __shared__ float warp_sums[8];
  int i = blockIdx.x * 256 + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? warp_sums[threadIdx.x] : 0.f;
    for (int o = 4; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
