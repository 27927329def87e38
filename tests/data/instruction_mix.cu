// A mix of what nvcc emits for ordinary CUDA C++: the float and double math library (with its
// slow paths: double sin/cos reduce large arguments with mad.lo.cc/madc chains), integer
// intrinsics, 64-bit arithmetic, half and bfloat16, warp shuffles, votes, match and redux,
// shared and global atomics of every kind, barriers that count and reduce, and device functions
// that are not inlined (call/ret with parameters). tests/559 checks its results on the CPU;
// scripts/gpu-tests.sh runs it with --backend both, which compares every buffer with the GPU's.
//
// cnt starts at zeros and ones at 0xFFFFFFFF. Every atomic's final value is independent of the order in which threads perform it, so the
// results are deterministic. n must be a multiple of the block size (the warp-level intrinsics
// use a full mask).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __noinline__ float not_inlined(float a, int b) { return a * b + 0.5f; }
__device__ __noinline__ void bump(float* p, int i) { p[i] += 1.0f; }

extern "C" __global__ void instruction_mix(const float* xf, const double* xd, const int* xi,
                                           float* of, double* od, long long* oi, __half* oh,
                                           __nv_bfloat16* ob, unsigned* cnt, unsigned* ones,
                                           float* cntf, double* cntd,
                                           unsigned long long* cnt64) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float tile[1024];
  __shared__ int hist[32];
  if (threadIdx.x < 32) hist[threadIdx.x] = 0;
  __syncthreads();

  const float x = xf[i];
  const double y = xd[i];
  const int a = xi[i];
  const unsigned u = static_cast<unsigned>(a) * 2654435761u;

  // float: IEEE-exact operations, then the library and the fast intrinsics
  float exact = __fmaf_rn(x, x, 1.0f) + sqrtf(fabsf(x)) + x / (x + 3.0f);
  float lib = expf(x) + logf(fabsf(x) + 1.0f) + tanhf(x) + powf(fabsf(x), 1.5f) +
              rsqrtf(fabsf(x) + 1.0f) + erff(x) + atan2f(x, 1.0f) + cbrtf(x) + sinf(x * 40.0f) +
              cosf(x);
  float fast = __expf(x) + __sinf(x) + __cosf(x) + __logf(fabsf(x) + 1.0f) + __fdividef(x, 3.0f);
  lib += not_inlined(x, a & 7);

  // double, with a large argument for sin/cos (the Payne-Hanek slow path)
  const double dd = exp(y) + log(fabs(y) + 1.0) + sqrt(fabs(y)) + y / 3.0 + sin(y * 1e6) +
                    cos(y) + fma(y, y, 1.0) + rint(y) + floor(y);

  // integer intrinsics (exact; tests/559 recomputes them)
  long long s = __popc(u) + __clz(a) + static_cast<int>(__brev(u) >> 16) + __ffs(a) + a / 7 +
                a % 5 + abs(a) + min(a, 5) + max(a, -5) +
                static_cast<int>(__funnelshift_l(u, u + 1u, a & 31) >> 8) +
                static_cast<int>(__byte_perm(u, static_cast<unsigned>(a), 0x5410) >> 4) +
                __mul24(a, 3) + static_cast<int>(__umulhi(u, 17u)) + static_cast<int>(__sad(a, 3, 1u));
  const long long w = static_cast<long long>(a) * 1000003LL;
  s += w * 3 + w / 5 + (w >> 3) + __popcll(static_cast<unsigned long long>(w)) + __clzll(w) +
       static_cast<long long>(__umul64hi(static_cast<unsigned long long>(w), 0x9E3779B97F4A7C15ull) >> 40);

  // half and bfloat16
  __half h = __hmul(__hadd(__float2half(x), __float2half(0.25f)), __float2half(x));
  __half2 h2 = __hfma2(__halves2half2(h, __float2half(1.5f)), __float2half2_rn(x), __float2half2_rn(0.5f));
  __nv_bfloat16 b = __hmul(__float2bfloat16(x), __float2bfloat16(3.0f));

  // warp-level
  const unsigned ballot = __ballot_sync(0xffffffffu, x > 0.0f);
  const int any = __any_sync(0xffffffffu, x > 0.5f), all = __all_sync(0xffffffffu, x > -2.0f);
  const float sh = __shfl_down_sync(0xffffffffu, x, 1) + __shfl_xor_sync(0xffffffffu, x, 2) +
                   __shfl_sync(0xffffffffu, x, 0) + __shfl_up_sync(0xffffffffu, x, 3);
  const unsigned match = __match_any_sync(0xffffffffu, a & 3);
  const int red = __reduce_add_sync(0xffffffffu, a & 7);
  const unsigned active = __activemask();

  // atomics (order-independent final values)
  atomicAdd(&hist[a & 31], 1);
  atomicAdd(&cnt[0], 1u);
  atomicMax(reinterpret_cast<int*>(&cnt[1]), a);
  atomicMin(&ones[0], u);
  atomicCAS(&ones[1], 0xFFFFFFFFu, 7u);
  atomicInc(&cnt[4], 100u);
  atomicDec(&cnt[5], 100u);
  atomicAnd(&ones[2], u | 0x0F0F0F0Fu);
  atomicOr(&cnt[7], u & 0x00010001u);
  atomicXor(&cnt[8], u);
  atomicExch(&cnt[9], 42u);
  atomicAdd(&cntf[0], 1.0f);
  atomicAdd(&cntd[0], 0.5);
  atomicAdd(&cnt64[0], static_cast<unsigned long long>(u));

  // barriers that count and reduce, shared memory through a neighbour
  tile[threadIdx.x] = x;
  const int positives = __syncthreads_count(x > 0.0f);
  const int any_big = __syncthreads_or(x > 0.9f);
  const float neighbour = tile[(threadIdx.x + 1) % blockDim.x];

  bump(of + 4 * blockDim.x * gridDim.x, i);  // of[4n + i] starts at 0 -> 1
  of[4 * i + 0] = exact;
  of[4 * i + 1] = lib;
  of[4 * i + 2] = fast;
  of[4 * i + 3] = sh + neighbour + __half2float(h) + __low2float(h2) + __high2float(h2) +
                  __bfloat162float(b);
  od[i] = dd + static_cast<double>(__float2int_rn(x * 10.0f)) + __double2float_rd(y) +
          static_cast<double>(__float2ll_rz(x * 1e5f)) + static_cast<double>(__uint2float_rd(u));
  oi[3 * i + 0] = s;
  oi[3 * i + 1] = static_cast<long long>(ballot) + any + all + match + red + active;
  oi[3 * i + 2] = positives + 1000 * any_big + 100000LL * hist[a & 31];
  oh[i] = __float2half_rn(x * 3.0f);
  ob[i] = __float2bfloat16_rz(x * 3.0f);
}
