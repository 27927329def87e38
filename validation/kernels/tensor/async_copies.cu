// Validation corpus: asynchronous copies. Each block sums its contiguous share of x (float4 per
// thread per tile of 256 x 16 bytes); out[block * 256 + thread] is that thread's sum.
//
// sync_sum:          ld.global.v4 then add, one tile at a time (the baseline);
// cpasync_sum_sS:    cp.async.cg 16 B into a per-thread slot of an S-stage ring in shared memory,
//                    commit_group per tile, wait_group S-1 before reading the oldest stage: S
//                    tiles in flight per thread (S = 1 waits for every copy);
// bulk_sum_sS:       one thread copies each 4 KiB tile with cp.async.bulk (the copy engine),
//                    completing on an mbarrier of its stage (expect_tx); every thread waits on
//                    the stage's phase, reads its float4, then all meet at a barrier before the
//                    stage is refilled. S stages in flight.
#define TILE_FLOATS 1024  // 256 threads x 4

extern "C" __global__ void sync_sum(const float4* x, float* out, int tiles_per_block) {
  const float4* p = x + (size_t)blockIdx.x * tiles_per_block * 256 + threadIdx.x;
  float s = 0.f;
#pragma unroll 1
  for (int t = 0; t < tiles_per_block; ++t) {
    float4 v = p[(size_t)t * 256];
    s += (v.x + v.y) + (v.z + v.w);
  }
  out[blockIdx.x * 256 + threadIdx.x] = s;
}

template <int S>
__device__ void cpasync_sum(const float4* x, float* out, int tiles_per_block) {
  __shared__ __align__(16) float4 ring[S][256];
  const float4* p = x + (size_t)blockIdx.x * tiles_per_block * 256 + threadIdx.x;
  float s = 0.f;
  for (int t = 0; t < S - 1; ++t) {  // prologue: S-1 tiles in flight
    if (t < tiles_per_block) {
      unsigned dst = (unsigned)__cvta_generic_to_shared(&ring[t % S][threadIdx.x]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(p + (size_t)t * 256) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
#pragma unroll 1
  for (int t = 0; t < tiles_per_block; ++t) {
    int f = t + S - 1;  // the tile fetched now
    if (f < tiles_per_block) {
      unsigned dst = (unsigned)__cvta_generic_to_shared(&ring[f % S][threadIdx.x]);
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(p + (size_t)f * 256) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group %0;" ::"n"(S - 1) : "memory");  // tile t has landed
    float4 v = ring[t % S][threadIdx.x];
    s += (v.x + v.y) + (v.z + v.w);
  }
  out[blockIdx.x * 256 + threadIdx.x] = s;
}
extern "C" __global__ void cpasync_sum_s1(const float4* x, float* out, int n) { cpasync_sum<1>(x, out, n); }
extern "C" __global__ void cpasync_sum_s2(const float4* x, float* out, int n) { cpasync_sum<2>(x, out, n); }
extern "C" __global__ void cpasync_sum_s4(const float4* x, float* out, int n) { cpasync_sum<4>(x, out, n); }
extern "C" __global__ void cpasync_sum_s8(const float4* x, float* out, int n) { cpasync_sum<8>(x, out, n); }

template <int S>
__device__ void bulk_sum(const float4* x, float* out, int tiles_per_block) {
  __shared__ __align__(128) float4 ring[S][256];
  __shared__ __align__(8) unsigned long long bar[S];
  const float4* p = x + (size_t)blockIdx.x * tiles_per_block * 256;
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      unsigned b = (unsigned)__cvta_generic_to_shared(&bar[i]);
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int t) {  // thread 0: arm the stage's barrier with 4096 bytes, start the copy
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar[t % S]);
    unsigned dst = (unsigned)__cvta_generic_to_shared(&ring[t % S][0]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(b) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];" ::"r"(dst),
                 "l"(p + (size_t)t * 256), "r"(b)
                 : "memory");
  };
  if (threadIdx.x == 0)
    for (int t = 0; t < S && t < tiles_per_block; ++t) issue(t);
  float s = 0.f;
#pragma unroll 1
  for (int t = 0; t < tiles_per_block; ++t) {
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar[t % S]);
    unsigned parity = (t / S) & 1, done = 0;
    while (!done)
      asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                   : "=r"(done)
                   : "r"(b), "r"(parity)
                   : "memory");
    float4 v = ring[t % S][threadIdx.x];
    s += (v.x + v.y) + (v.z + v.w);
    __syncthreads();  // everyone has read stage t % S: it may be refilled
    if (threadIdx.x == 0 && t + S < tiles_per_block) issue(t + S);
  }
  out[blockIdx.x * 256 + threadIdx.x] = s;
}
extern "C" __global__ void bulk_sum_s1(const float4* x, float* out, int n) { bulk_sum<1>(x, out, n); }
extern "C" __global__ void bulk_sum_s2(const float4* x, float* out, int n) { bulk_sum<2>(x, out, n); }
extern "C" __global__ void bulk_sum_s4(const float4* x, float* out, int n) { bulk_sum<4>(x, out, n); }
