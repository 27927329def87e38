// Validation corpus, second generalization set (issue 25; written 2026-11-26 before any model change
// was made for it): warp shuffles, votes and matches.
// warp_softmax_rows: a warp per row of 1024 (8 rows per block, 256 blocks by default): each lane
//   holds 32 values, max and sum by 5 xor-shuffle rounds each (x constant: every output 1/1024).
// block_sum_tree / block_sum_shuffle: a block of 512 threads sums 8192 values (16 per thread),
//   then either a shared-memory tree of 9 levels with a barrier each, or 5 shuffle rounds per
//   warp, one barrier and 4 more rounds in warp 0.
// butterfly_allreduce: `rounds` dependent all-reduces of a warp (5 xor shuffles each, u32 sums);
//   each round feeds v = (s ^ (s >> 7)) + lane * (round + 1) into the next.
// match_scatter: a block sorts its 256 keys stably into 16 buckets (bucket = mix32(key) >> 28):
//   __match_any_sync gives each lane its peers and its rank among them, then four barriers:
//   counts zeroed, per-warp bucket counts, per-bucket prefix over warps, bucket starts; each
//   thread writes its key's index to its place.
// ballot_compact: a block keeps the values whose mix32 has its two low bits clear (a quarter),
//   in order: a ballot per warp, warp offsets by shuffles in warp 0, counts per block.
#include "mix.h"

extern "C" __global__ void warp_softmax_rows(const float* x, float* y, int rows) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* p = x + (size_t)row * 1024;
  float v[32];
  float m = -3.0e38f;
#pragma unroll
  for (int c = 0; c < 32; ++c) {
    v[c] = p[c * 32 + lane];
    m = fmaxf(m, v[c]);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < 32; ++c) {
    v[c] = __expf(v[c] - m);
    s += v[c];
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  float inv = 1.f / s;
#pragma unroll
  for (int c = 0; c < 32; ++c) y[(size_t)row * 1024 + c * 32 + lane] = v[c] * inv;
}

extern "C" __global__ void block_sum_tree(const float* x, float* out) {
  __shared__ float red[512];
  int t = threadIdx.x;
  const float* p = x + (size_t)blockIdx.x * 8192;
  float s = 0.f;
  for (int i = t; i < 8192; i += 512) s += p[i];
  red[t] = s;
  __syncthreads();
  for (int w = 256; w > 0; w >>= 1) {
    if (t < w) red[t] += red[t + w];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = red[0];
}

extern "C" __global__ void block_sum_shuffle(const float* x, float* out) {
  __shared__ float warp_sums[16];
  int t = threadIdx.x;
  const float* p = x + (size_t)blockIdx.x * 8192;
  float s = 0.f;
  for (int i = t; i < 8192; i += 512) s += p[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (t % 32 == 0) warp_sums[t / 32] = s;
  __syncthreads();
  if (t < 32) {
    s = t < 16 ? warp_sums[t] : 0.f;
    for (int o = 8; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (t == 0) out[blockIdx.x] = s;
  }
}

extern "C" __global__ void butterfly_allreduce(const unsigned* x, unsigned* out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32;
  unsigned v = i < n ? x[i] : 0u;
  for (int r = 0; r < rounds; ++r) {
    unsigned s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    v = (s ^ (s >> 7)) + lane * (unsigned)(r + 1);
  }
  if (i < n) out[i] = v;
}

extern "C" __global__ void match_scatter(const int* keys, int* out) {
  __shared__ int counts[8][16];
  __shared__ int bucket_start[16];
  int t = threadIdx.x, w = t / 32, lane = t % 32;
  int i = blockIdx.x * 256 + t;
  int bucket = (int)(mix32((unsigned)keys[i]) >> 28);
  unsigned peers = __match_any_sync(0xffffffffu, bucket);
  int rank = __popc(peers & ((1u << lane) - 1u));
  if (t < 128) counts[t / 16][t % 16] = 0;
  __syncthreads();
  if (rank == 0) counts[w][bucket] = __popc(peers);
  __syncthreads();
  if (t < 16) {
    int run = 0;
    for (int k = 0; k < 8; ++k) {
      int c = counts[k][t];
      counts[k][t] = run;
      run += c;
    }
    bucket_start[t] = run;
  }
  __syncthreads();
  if (t == 0) {
    int run = 0;
    for (int b = 0; b < 16; ++b) {
      int c = bucket_start[b];
      bucket_start[b] = run;
      run += c;
    }
  }
  __syncthreads();
  out[blockIdx.x * 256 + bucket_start[bucket] + counts[w][bucket] + rank] = i;
}

extern "C" __global__ void ballot_compact(const unsigned* x, unsigned* out, int* counts) {
  __shared__ int warp_offsets[8];
  int t = threadIdx.x, w = t / 32, lane = t % 32;
  unsigned v = x[blockIdx.x * 256 + t];
  bool keep = (mix32(v) & 3u) == 0u;
  unsigned ballot = __ballot_sync(0xffffffffu, keep);
  if (lane == 0) warp_offsets[w] = __popc(ballot);
  __syncthreads();
  if (t < 32) {
    int c = t < 8 ? warp_offsets[t] : 0, incl = c;
    for (int o = 1; o < 8; o <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += up;
    }
    if (t < 8) warp_offsets[t] = incl - c;
    if (t == 7) counts[blockIdx.x] = incl;
  }
  __syncthreads();
  if (keep) out[blockIdx.x * 256 + warp_offsets[w] + __popc(ballot & ((1u << lane) - 1u))] = v;
}
