// Wake-cycle scan: see wake_scan.h.
#include "sim/timing/wake_scan.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace warplab::timing {
namespace {

WakeScan scan_portable(const uint64_t* wake, int n, uint64_t now) {
  WakeScan s;
  for (int i = 0; i < n; ++i) {
    const uint64_t w = wake[i];
    if (w <= now)
      s.due |= 1ull << i;
    else if (w < s.later)
      s.later = w;
  }
  return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
// Four slots at a time: unsigned order through signed compares of the values with the top bit
// flipped.
__attribute__((target("avx2"))) WakeScan scan_avx2(const uint64_t* wake, int n, uint64_t now) {
  const __m256i flip = _mm256_set1_epi64x(static_cast<int64_t>(1ull << 63));
  const __m256i now4 = _mm256_set1_epi64x(static_cast<int64_t>(now ^ (1ull << 63)));
  __m256i least = _mm256_set1_epi64x(static_cast<int64_t>(~0ull ^ (1ull << 63)));
  uint64_t later_bits = 0;  // bit i: wake[i] > now
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256i v =
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wake + i)), flip);
    const __m256i after = _mm256_cmpgt_epi64(v, now4);  // wake > now
    later_bits |= static_cast<uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(after))) << i;
    // least = min(least, v) over the lanes after now
    const __m256i lower = _mm256_and_si256(after, _mm256_cmpgt_epi64(least, v));
    least = _mm256_blendv_epi8(least, v, lower);
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), least);
  WakeScan s;
  for (uint64_t x : lanes) {
    x ^= 1ull << 63;
    if (x < s.later) s.later = x;
  }
  const uint64_t done = i == 64 ? ~0ull : (1ull << i) - 1;
  s.due = ~later_bits & done;
  if (i < n) {
    const WakeScan tail = scan_portable(wake + i, n - i, now);
    s.due |= tail.due << i;
    if (tail.later < s.later) s.later = tail.later;
  }
  return s;
}
#endif

}  // namespace

WakeScan scan_wakes(const uint64_t* wake, int n, uint64_t now) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2")) return scan_avx2(wake, n, now);
#endif
  return scan_portable(wake, n, now);
}

}  // namespace warplab::timing
