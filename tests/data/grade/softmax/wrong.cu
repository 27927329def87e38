// Wrong (on rows longer than 256): the normaliser only sums the first 256 columns. Otherwise the reference: one block of 256 threads per row; the row's maximum and the sum of
// exponentials by shared-memory trees; y = exp(x - max) / sum.
extern "C" __global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  const float* in = x + (long)blockIdx.x * cols;
  float* out = y + (long)blockIdx.x * cols;
  float m = -3.0e38f;
  for (int c = t; c < cols; c += 256) m = fmaxf(m, in[c]);
  s[t] = m;
  __syncthreads();
  for (int h = 128; h > 0; h >>= 1) {
    if (t < h) s[t] = fmaxf(s[t], s[t + h]);
    __syncthreads();
  }
  m = s[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = t; c < cols && c < 256; c += 256) sum += expf(in[c] - m);  // wrong: the sum only covers the first 256 columns
  s[t] = sum;
  __syncthreads();
  for (int h = 128; h > 0; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  const float inv = 1.f / s[0];
  for (int c = t; c < cols; c += 256) out[c] = expf(in[c] - m) * inv;
}
