// Validation corpus: shared-memory bank conflicts of a chosen degree.
// Lane l of a warp reads word (l * stride + k) % 1024 of a 1024-word tile in iteration k; for a
// power-of-two stride d <= 32 that is a d-way conflict (lanes l and l + 32/d share a bank).
// With pad = 1 word w lives at w + w / 32 (one spare word per 32), which spreads the lanes over
// all banks: no conflict. The tile holds ones, so every thread's sum is reps.
extern "C" __global__ void bank_conflict(float* out, int stride, int pad, int reps) {
  __shared__ float s[1024 + 32];
  for (int w = threadIdx.x; w < 1024 + 32; w += blockDim.x) s[w] = 1.0f;
  __syncthreads();
  int lane = threadIdx.x % 32;
  float sum = 0.f;
  for (int k = 0; k < reps; ++k) {
    int w = (lane * stride + k) & 1023;
    sum += s[w + pad * (w >> 5)];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
