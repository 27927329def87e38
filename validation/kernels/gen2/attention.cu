// Validation corpus, second generalization set (issue 25; written 2026-11-26 before any model change
// was made for it): attention with online softmax, the way flash-attention kernels loop.
// Each block (24 of them by default: fewer blocks than SMs) takes 64 queries of head size 32, a
// thread per query holding its query and its 32 output accumulators in registers. It loops over
// the keys in tiles of 64: the block copies the K and V tiles into shared memory, a barrier, then
// every thread runs through the 64 keys: a 32-long dot product from shared memory (all lanes read
// the same key: broadcasts), the running max and sum of the online softmax (two exponentials per
// key) and 32 rescaled accumulations. V = 0.75 everywhere, so every output is 0.75 whatever the
// weights (rounding aside).
#define HEAD 32
#define TILE 64

extern "C" __global__ void attention_online(const float* q, const float* k, const float* v,
                                            float* o, int keys, float scale) {
  __shared__ float ks[TILE][HEAD];
  __shared__ float vs[TILE][HEAD];
  int row = blockIdx.x * TILE + threadIdx.x;
  float qr[HEAD], acc[HEAD];
#pragma unroll
  for (int d = 0; d < HEAD; ++d) {
    qr[d] = q[row * HEAD + d] * scale;
    acc[d] = 0.f;
  }
  float m = -3.0e38f, l = 0.f;
  for (int base = 0; base < keys; base += TILE) {
    for (int e = threadIdx.x; e < TILE * HEAD; e += blockDim.x) {
      ks[e / HEAD][e % HEAD] = k[base * HEAD + e];
      vs[e / HEAD][e % HEAD] = v[base * HEAD + e];
    }
    __syncthreads();
    for (int j = 0; j < TILE; ++j) {
      float s = 0.f;
#pragma unroll
      for (int d = 0; d < HEAD; ++d) s += qr[d] * ks[j][d];
      float m_new = fmaxf(m, s);
      float corr = __expf(m - m_new), p = __expf(s - m_new);
      l = l * corr + p;
#pragma unroll
      for (int d = 0; d < HEAD; ++d) acc[d] = acc[d] * corr + p * vs[j][d];
      m = m_new;
    }
    __syncthreads();
  }
  float inv = 1.f / l;
#pragma unroll
  for (int d = 0; d < HEAD; ++d) o[row * HEAD + d] = acc[d] * inv;
}
