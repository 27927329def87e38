// Validation corpus: atomics with a chosen number of lanes per address.
// `lanes` consecutive lanes of a warp (1, 2, 4, ..., 32) share one counter; each lane adds
// 32 / lanes, so every counter ends at 32 whatever `lanes` is (the experiment checks that).
//
// atomic_global_red: the result is unused. NVRTC's PTX still says atom.global.add (with a dead
//                    destination); ptxas turns it into RED (fire and forget, no reply).
// atomic_global_atom: the old value feeds a store that never happens, so ptxas must keep ATOM
//                     and the warp waits for the value to come back.
// atomic_shared_*:    the same on a per-block array in shared memory, `reps` times per thread, then
//                     one plain store per counter to global memory (the _atom variant also
//                     depends on the returned values; `cuobjdump -sass` shows the forms ptxas
//                     picked).

extern "C" __global__ void atomic_global_red(unsigned* counters, int n, int lanes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&counters[i / lanes], 32u / lanes);
}

extern "C" __global__ void atomic_global_atom(unsigned* counters, unsigned* sink, int n, int lanes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned old = atomicAdd(&counters[i / lanes], 32u / lanes);
  if (old == 0xffffffffu) sink[0] = i;  // never true: keeps the returned value live
}

// blockDim.x <= 1024; counters per block: blockDim.x / lanes.
extern "C" __global__ void atomic_shared_red(unsigned* counters, int lanes, int reps) {
  __shared__ unsigned s[1024];
  unsigned per_block = blockDim.x / lanes;
  if (threadIdx.x < per_block) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned add = 32u / lanes;
  for (int r = 0; r < reps; ++r) atomicAdd(&s[threadIdx.x / lanes], add);
  __syncthreads();
  if (threadIdx.x < per_block) counters[blockIdx.x * per_block + threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void atomic_shared_atom(unsigned* counters, unsigned* sink, int lanes,
                                              int reps) {
  __shared__ unsigned s[1024];
  unsigned per_block = blockDim.x / lanes;
  if (threadIdx.x < per_block) s[threadIdx.x] = 0;
  __syncthreads();
  unsigned add = 32u / lanes, acc = 0;
  for (int r = 0; r < reps; ++r) acc ^= atomicAdd(&s[threadIdx.x / lanes], add);
  __syncthreads();
  if (threadIdx.x < per_block) counters[blockIdx.x * per_block + threadIdx.x] = s[threadIdx.x];
  if (acc == 0xffffffffu) sink[0] = acc;  // never true: keeps the returned values live
}
