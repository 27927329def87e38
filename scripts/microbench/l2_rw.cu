// L2 read/write sharing and DRAM write-back on the H100 (issue 25, helper acc6a): a copy against
// its loads alone and its stores alone,
//   A. cold (L2 flushed by reading a buffer twice its size, as WarpLab's GPU backend does, so the
//      L2 holds no modified line): float4 a thread in a grid-stride loop over 4..64 MiB per
//      buffer (inside and beyond the 50 MiB L2), and the corpus's shapes (one float4 a thread,
//      v.copy_float4; one float a thread);
//   B. warm (no flush, an 8 MiB region per buffer that stays in the L2): float4 loops, and 4-byte
//      accesses at stride 1 (whole sectors), 8 (4 bytes of each sector: partial stores) and 32
//      (one sector a line).
// Each row: kernel, parameters, mode, median / min / max us of 20 launches after 3 warm-ups
// (event_timer.h). `l2_rw.bin ncu-cold` / `l2_rw.bin ncu-warm` launch each kernel once for Nsight
// Compute (l2_rw.sh). The simulator's side: l2_rw/l2_rw.toml (the same kernels).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "cuda_check.h"
#include "event_timer.h"
#include "l2_rw/kernels.cu"

static int4* g_flush = nullptr;
static size_t g_flush_n = 0;
static int* g_sink = nullptr;
static void flush() { l2rw_flush<<<132 * 4, 1024>>>(g_flush, g_flush_n, g_sink); }

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "time";
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  g_flush_n = size_t(p.l2CacheSize) * 2 / 16;
  CK(cudaMalloc(&g_flush, g_flush_n * 16));
  CK(cudaMemset(g_flush, 0, g_flush_n * 16));
  CK(cudaMalloc(&g_sink, 4096));
  const size_t max_bytes = size_t(64) << 20;
  float *x, *y;
  CK(cudaMalloc(&x, max_bytes));
  CK(cudaMalloc(&y, max_bytes));
  CK(cudaMemset(x, 0, max_bytes));  // no NaN: the read kernels never store
  CK(cudaMemset(y, 0, max_bytes));
  const int grid = p.multiProcessorCount * 8;  // 8 blocks of 256 an SM: full occupancy
  const bool ncu_cold = strcmp(what, "ncu-cold") == 0, ncu_warm = strcmp(what, "ncu-warm") == 0;
  if (!ncu_cold && !ncu_warm) {
    int drv = 0;
    cudaDriverGetVersion(&drv);
    printf("# device\t%s\tSMs %d\tL2 %d\tdriver-api %d\n", p.name, p.multiProcessorCount,
           p.l2CacheSize, drv);
    printf("# kernel\tparams\tmode\tmedian_us\tmin_us\tmax_us\n");
  }
  auto run = [&](const char* name, const char* prm, bool cold, const std::function<void()>& k) {
    if (ncu_cold || ncu_warm) {  // once (the warm ones after one untimed launch to fill the L2)
      if (ncu_cold != cold) return;
      if (!cold) { l2rw_touch<<<grid, 256>>>((const float4*)x, (float4*)y, (size_t(8) << 20) / 16); }
      k();
      CK(cudaDeviceSynchronize());
      return;
    }
    const std::vector<float> t = time_launches(cold ? std::function<void(int)>([](int) { flush(); })
                                                    : nullptr,
                                               k);
    printf("%s\t%s\t%s\t%.2f\t%.2f\t%.2f\n", name, prm, cold ? "cold" : "warm", t[10], t[0], t[19]);
    fflush(stdout);
  };
  char prm[128];
  const float4* x4 = (const float4*)x;
  float4* y4 = (float4*)y;
  // A. Cold, float4 grid-stride, 4..64 MiB a buffer.
  for (long mib : {4L, 8L, 16L, 24L, 32L, 48L, 64L}) {
    if ((ncu_cold || ncu_warm) && (mib == 4 || mib == 24 || mib == 48)) continue;  // ncu: fewer
    const unsigned n = unsigned((size_t(mib) << 20) / 16), mask = ~0u;
    snprintf(prm, sizeof prm, "MiB=%ld grid=%d", mib, grid);
    run("copy4", prm, true, [&] { l2rw_copy4<<<grid, 256>>>(x4, y4, n, mask); });
    run("read4", prm, true, [&] { l2rw_read4<<<grid, 256>>>(x4, y4, n, mask); });
    run("write4", prm, true, [&] { l2rw_write4<<<grid, 256>>>(x4, y4, n, mask); });
  }
  // The corpus's shapes: one float4 a thread (v.copy_float4), one float a thread.
  for (long mib : {16L, 32L}) {
    const unsigned n = unsigned((size_t(mib) << 20) / 16);
    snprintf(prm, sizeof prm, "MiB=%ld grid=%u", mib, n / 256);
    run("copy4", prm, true, [&] { l2rw_copy4<<<n / 256, 256>>>(x4, y4, n, ~0u); });
    snprintf(prm, sizeof prm, "MiB=%ld grid=%u", mib, n * 4 / 256);
    run("copy1flat", prm, true, [&] { l2rw_copy1flat<<<n * 4 / 256, 256>>>(x, y, n * 4); });
  }
  // B. Warm: an 8 MiB region of each buffer, 64 MiB of accesses (float4) or 4M accesses (4 bytes).
  {
    const unsigned n = 4u << 20, mask = (8u << 20) / 16 - 1;
    snprintf(prm, sizeof prm, "region=8MiB n=%u grid=%d", n, grid);
    run("copy4", prm, false, [&] { l2rw_copy4<<<grid, 256>>>(x4, y4, n, mask); });
    run("read4", prm, false, [&] { l2rw_read4<<<grid, 256>>>(x4, y4, n, mask); });
    run("write4", prm, false, [&] { l2rw_write4<<<grid, 256>>>(x4, y4, n, mask); });
  }
  for (int stride : {1, 8, 32}) {
    const unsigned n = 4u << 20, mask = (8u << 20) / 4 - 1;
    snprintf(prm, sizeof prm, "region=8MiB stride=%d n=%u grid=%d", stride, n, grid);
    run("copy1", prm, false, [&] { l2rw_copy1<<<grid, 256>>>(x, y, n, stride, mask); });
    run("read1", prm, false, [&] { l2rw_read1<<<grid, 256>>>(x, y, n, stride, mask); });
    run("write1", prm, false, [&] { l2rw_write1<<<grid, 256>>>(x, y, n, stride, mask); });
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
