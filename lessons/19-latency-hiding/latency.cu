// Lesson 19: hiding latency with warps (TLP) or with independent instructions in each warp (ILP).
// CHAINS is a compile-time constant (the experiments pass it with `defines`), so that each chain
// lives in a register of its own.
#ifndef CHAINS
#define CHAINS 1
#endif

// `iters` rounds of one FMA on each of CHAINS independent accumulators. Within a chain every FMA
// needs the result of the one before (a dependent FMA waits the FP32 pipe's latency); the chains
// do not depend on each other, so a warp can issue one FMA of each chain back to back.
extern "C" __global__ void fma_chains(float* out, int iters) {
  float a[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) a[c] = threadIdx.x * 1e-3f + c;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) a[c] = a[c] * 0.999f + 0.001f;
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += a[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// `steps` rounds of one load on each of CHAINS chains per warp. A warp's 32 lanes read one
// 128-byte line (one request), at a pseudo-random line of `data`; the next line of a chain is
// computed from the value loaded (data holds zeros, which the compiler cannot know), so a chain's
// loads go one after another, each waiting the full memory latency. The chains are independent:
// CHAINS loads in flight per warp. out gets the sum of the values loaded (0).
extern "C" __global__ void chase(const float* data, unsigned* out, unsigned lines_mask, int steps) {
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  unsigned line[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) line[c] = (warp * CHAINS + c + 1) * 2654435761u;
  unsigned acc = 0;
  for (int s = 0; s < steps; ++s) {
    // Every chain's load first, then the uses. The GPU's compiler (ptxas) schedules the loads
    // early by itself; the simulator runs the PTX in the order written, and NVVM would put each
    // use right after its load, so the loads and the first use are asm volatile (kept in order).
    float v[CHAINS];
    unsigned u[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
      asm volatile("ld.global.f32 %0, [%1];"
                   : "=f"(v[c])
                   : "l"(data + (line[c] & lines_mask) * 32 + lane));
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) asm volatile("cvt.rzi.u32.f32 %0, %1;" : "=r"(u[c]) : "f"(v[c]));
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
      line[c] = line[c] * 1664525u + 1013904223u + u[c];
      acc += u[c];
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
