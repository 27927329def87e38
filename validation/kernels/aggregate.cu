// Validation corpus, generalization set (written 2026-11-25, measured before any model change was
// made for it): atomics after a reduction.
// compact: keeps the elements with x[i] % 4 == 0 (x = iota); each warp counts its kept lanes with
//   a ballot, lane 0 reserves space with one atomicAdd on a global counter, the offset is shuffled
//   to the warp and the kept elements are written (order between warps is arbitrary, so the check
//   is on the count).
// block_sum_atomic: each block of 256 sums its values with shuffles and shared memory, then one
//   thread adds the block's sum to a single global float (every block on one address).
extern "C" __global__ void compact(const int* x, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool keep = i < n && x[i] % 4 == 0;
  unsigned ballot = __ballot_sync(0xffffffffu, keep);
  int lane = threadIdx.x % 32;
  int base = 0;
  if (lane == 0 && ballot) base = atomicAdd(count, __popc(ballot));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep) out[base + __popc(ballot & ((1u << lane) - 1))] = x[i];
}

extern "C" __global__ void block_sum_atomic(const float* x, float* total, int n) {
  __shared__ float warp_sums[8];
  int i = blockIdx.x * 256 + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int w = 0; w < 8; ++w) s += warp_sums[w];
    atomicAdd(total, s);
  }
}
