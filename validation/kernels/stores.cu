// Validation corpus: store patterns.
//
// scatter_store: thread i writes element perm(i) = (i % (n/32)) * 32 + i / (n/32) (n a multiple of
//   1024): a bijection, so every element of y is written once, but the 32 lanes of a warp write
//   32 different 128-byte lines (4 bytes each). The load of x is coalesced.
// partial_store: thread i writes y[i * stride]: with stride 2 each 32-byte sector is half written,
//   with stride 8 one word in eight.
// byte_store: thread i writes one byte: a warp covers one 32-byte sector with byte-sized writes.
extern "C" __global__ void scatter_store(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int rows = n / 32;
  y[(i % rows) * 32 + i / rows] = x[i];
}

extern "C" __global__ void partial_store(const float* x, float* y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[(long long)i * stride] = x[i];
}

extern "C" __global__ void byte_store(unsigned char* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = 1;
}
