// Validation corpus, generalization set (written 2026-11-25, measured before any model change was
// made for it): barrier-bound scans and a sorting network.
// block_scan: inclusive Hillis-Steele scan of 1024 values per block in shared memory (10 rounds,
//   two barriers each, double-buffered), plus the block's offset; with every input 1 the offset
//   of block b is 1024 b, so out[i] = i + 1.
// bitonic_step: one compare-exchange step (distance j, sequence length k) of a bitonic sort over
//   n elements: each thread with partner i ^ j > i writes the min and the max.
extern "C" __global__ void block_scan(const float* in, float* out) {
  __shared__ float buf[2][1024];
  int t = threadIdx.x, i = blockIdx.x * 1024 + t;
  int cur = 0;
  buf[0][t] = in[i];
  __syncthreads();
  for (int d = 1; d < 1024; d <<= 1) {
    float v = buf[cur][t];
    if (t >= d) v += buf[cur][t - d];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  out[i] = buf[cur][t] + 1024.f * blockIdx.x;
}

extern "C" __global__ void bitonic_step(float* a, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = i ^ j;
  if (p <= i) return;
  float x = a[i], y = a[p];
  bool up = (i & k) == 0;
  float lo = fminf(x, y), hi = fmaxf(x, y);
  a[i] = up ? lo : hi;
  a[p] = up ? hi : lo;
}
