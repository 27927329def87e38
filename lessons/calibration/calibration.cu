// Calibration microbenchmarks for the timing model (sim/timing), compared with validation/data/h100.json.
//
// chase_global / chase_shared: one thread follows a chain of indices, so each load depends on the
// previous one and the time per step is the load latency (plus a few cycles of loop overhead, as
// on the real GPU). `warm` steps run first (to bring the footprint into the caches), then `steps`
// timed steps. stream_add: z = x + y, the streaming-bandwidth kernel (vec_add).
extern "C" __global__ void chase_global(const unsigned* next, unsigned warm, unsigned steps,
                                        unsigned* out) {
  unsigned j = 0;
  for (unsigned i = 0; i < warm; ++i) j = next[j];   // the timed steps continue the chain
  for (unsigned i = 0; i < steps; ++i) j = next[j];
  out[0] = j;
}

extern "C" __global__ void chase_shared(const unsigned* next, unsigned count, unsigned steps,
                                        unsigned* out) {
  __shared__ unsigned s[1024];
  for (unsigned i = 0; i < count; ++i) s[i] = next[i];
  __syncthreads();
  unsigned j = 0;
  for (unsigned i = 0; i < steps; ++i) j = s[j];
  out[0] = j;
}

extern "C" __global__ void stream_add(const float* x, const float* y, float* z, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}
