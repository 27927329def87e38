// Lesson 9: shared-memory bank conflicts.
//
// Shared memory is split into 32 banks, each 4 bytes wide: 4-byte word w lives in bank w % 32.
// In one pass (a "wavefront") every bank can deliver one word, so a warp whose 32 lanes read 32
// different banks is served in one wavefront. Lanes that read the same word share it (a
// broadcast), but lanes that read different words of the same bank are served one after
// another: if the busiest bank must deliver N different words, the load takes N wavefronts
// (an N-way bank conflict).
//
// In `shared_stride`, lane l reads word l * stride. Words l * stride and m * stride are in the
// same bank when (l - m) * stride is a multiple of 32, so the busiest bank serves gcd(stride, 32)
// different words: stride 1 (or any odd stride) is conflict-free, stride 2 is a 2-way conflict,
// stride 8 an 8-way one, stride 32 puts all 32 lanes in bank 0.

#define WORDS 1024  // 4 KiB of shared memory per block; lane * stride < WORDS for stride <= 33

// Launch with blockDim.x a multiple of 32. Every warp does `iters` x 8 shared loads at the same
// addresses; out[] receives each thread's sum so that the compiler cannot drop the loads.
extern "C" __global__ void shared_stride(float* out, int stride, int iters) {
  __shared__ float s[WORDS];
  // 1. Fill the array: consecutive threads write consecutive words (one wavefront per store).
  for (int i = threadIdx.x; i < WORDS; i += blockDim.x) s[i] = float(i & 7);
  __syncthreads();

  // 2. Read word lane * stride again and again. `volatile` makes every read a real shared load
  //    (otherwise the compiler would load once and reuse the register).
  const volatile float* vs = s;
  const int lane = threadIdx.x % 32;
  const int w = (lane * stride) % WORDS;
  float a0 = 0.f, a1 = 0.f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      a0 += vs[w];
      a1 += vs[w];
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1;
}
