// Calibration kernels for the asynchronous-copy timing ([async] in configs/h100-sxm.toml): the
// kernels of scripts/microbench/tensor_async.cu whose H100 figures are in
// scripts/microbench/h100-async-timing-2026-11-26.tsv, one thread each, timed with clock64.
// PTX: nvcc -ptx -arch=compute_90 -lineinfo async_timing.cu (checked in as async_timing.ptx);
// tests/341_async_calibration.cpp runs them on the timing model.
#define ITER 64

// cp.async chase: chain[i] holds the index of the next 16-byte element.
extern "C" __global__ void k_cpasync_chase(const uint4* chain, int steps, long long* cycles,
                                           unsigned* sink) {
  __shared__ __align__(16) uint4 s[1];
  unsigned idx = 0;
  unsigned saddr = (unsigned)__cvta_generic_to_shared(s);
  long long t0 = clock64();
  for (int it = 0; it < steps; ++it) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(chain + idx)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(idx) : "r"(saddr) : "memory");
  }
  long long t1 = clock64();
  *sink = idx;
  *cycles = t1 - t0;
}

extern "C" __global__ void k_ldg_chase(const uint4* chain, int steps, long long* cycles,
                                       unsigned* sink) {
  unsigned idx = 0;
  long long t0 = clock64();
  for (int it = 0; it < steps; ++it) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(chain + idx) : "memory");
    idx = v;
  }
  long long t1 = clock64();
  *sink = idx;
  *cycles = t1 - t0;
}

// mbarrier: arrive + try_wait.parity round trips (count arrivals per phase).
extern "C" __global__ void k_mbarrier(int count, long long* cycles, unsigned* sink) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(count));
  __syncthreads();
  unsigned phase = 0;
  long long t0 = clock64();
  for (int it = 0; it < ITER; ++it) {
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(b) : "memory");
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
          "0, p; }"
          : "=r"(done)
          : "r"(b), "r"(phase)
          : "memory");
    }
    phase ^= 1;
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    *cycles = t1 - t0;
    *sink = phase;
  }
}

// 1D bulk copy global -> shared of `bytes`, completing on an mbarrier (complete_tx), `reps` times
// after one untimed copy.
extern "C" __global__ void k_bulk(const char* src, int bytes, int reps, long long* cycles,
                                  unsigned* sink) {
  extern __shared__ __align__(128) char sbuf[];
  __shared__ __align__(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned s = (unsigned)__cvta_generic_to_shared(sbuf);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned phase = 0;
  long long t0 = 0;
  for (int it = 0; it < reps + 1; ++it) {
    if (it == 1) t0 = clock64();
    unsigned long long st;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(st)
                 : "r"(b), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(s),
        "l"(src), "r"(bytes), "r"(b)
        : "memory");
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
          "0, p; }"
          : "=r"(done)
          : "r"(b), "r"(phase)
          : "memory");
    }
    phase ^= 1;
  }
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = sbuf[bytes - 1];
}
