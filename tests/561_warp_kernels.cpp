// Whole kernels with warp-level intrinsics and cooperative groups (tests/data/warp-kernels): a
// warpSize reduction, tiles of 4..128 threads, labeled partitions, warp-aggregated atomics, a
// shuffle scan, a bitonic sort and double-precision math. Every buffer is checked against C++
// computed here from the input, independently of the simulator (the experiment's own checks
// compare with reference kernels and run too).
#include <algorithm>
#include <cmath>

#include "55x_whole_kernel.h"

using namespace warplab;
using namespace warplab::test;

namespace {

constexpr int kN = 4096;

int label_of(int v) { return ((v % 3) + 3) % 3; }

// The tile outputs of warp_kernels.cu for tile width t (see its comment).
std::vector<int32_t> tiles_model(const std::vector<int32_t>& x, int t) {
  std::vector<int32_t> out(x.size() * 4);
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t first = i - (i % 256) % t;
    int32_t sum = 0, mx = x[first], ballot = 0;
    bool any = false, all = true;
    for (int k = 0; k < t; ++k) {
      const int32_t w = x[first + k];
      sum += w;
      mx = std::max(mx, w);
      any = any || w > 500;
      all = all && w > -900;
      if (w > 0 && k < 32) ballot |= 1 << k;
    }
    out[i * 4] = sum;
    if (t <= 32) {
      out[i * 4 + 1] = x[first + t - 1];
      out[i * 4 + 2] = int(any) | int(all) << 1;
      out[i * 4 + 3] = ballot;
    } else {
      out[i * 4 + 1] = mx;
      out[i * 4 + 2] = x[first + ((i % 256) % t + 1) % t];
      out[i * 4 + 3] = static_cast<int32_t>((i % 256) / t);
    }
  }
  return out;
}

template <class T>
size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return i;
  return a.size();
}

#define CHECK_SAME(got, want)                                                                  \
  do {                                                                                         \
    const auto g_ = (got);                                                                     \
    const auto w_ = (want);                                                                    \
    const size_t at_ = first_difference(g_, w_);                                               \
    CHECK_MESSAGE(at_ == w_.size(), #got " differs first at ["                                 \
                                        << at_ << "]: got " << (at_ < g_.size() ? g_[at_] : 0) \
                                        << ", expected " << (at_ < w_.size() ? w_[at_] : 0));  \
  } while (0)

}  // namespace

TEST_CASE("561 warp intrinsics and cooperative groups: every buffer against the CPU") {
  auto run = run_lesson("tests/data/warp-kernels/warp_kernels.toml", {});
  if (!run) return;
  CHECK(run->checks_passed);  // the experiment's own checks (reference kernels, .npy)
  const std::vector<int32_t> x = as_i32(run->buffer("x"));
  REQUIRE(x.size() == kN);

  // warpSize reduction: one sum per block of 256.
  std::vector<int32_t> partial(kN / 256, 0);
  for (int i = 0; i < kN; ++i) partial[i / 256] += x[i];
  CHECK_SAME(as_i32(run->buffer("partial")), partial);

  // Tiles of 4..128.
  for (int t : {4, 8, 16, 32, 64, 128}) {
    INFO("tile " << t);
    CHECK_SAME(as_i32(run->buffer("t" + std::to_string(t))), tiles_model(x, t));
  }

  // Labeled partitions of each warp by x mod 3.
  std::vector<int32_t> lab(kN * 3);
  for (int i = 0; i < kN; ++i) {
    const int first = i - i % 32, me = label_of(x[i]);
    int size = 0, rank = 0, sum = 0;
    for (int k = first; k < first + 32; ++k)
      if (label_of(x[k]) == me) size++, sum += x[k], rank += k < i;
    lab[i * 3] = size, lab[i * 3 + 1] = rank, lab[i * 3 + 2] = sum;
  }
  CHECK_SAME(as_i32(run->buffer("lab")), lab);

  // Warp-aggregated atomics.
  std::vector<int32_t> hist(16, 0), count(1, 0), rank(kN, -1);
  for (int i = 0; i < kN; ++i) {
    if (x[i] < 0) continue;
    hist[x[i] & 15]++;
    count[0]++;
    rank[i] = 0;
    for (int k = i - i % 32; k < i; ++k) rank[i] += x[k] >= 0;
  }
  CHECK_SAME(as_i32(run->buffer("hist")), hist);
  CHECK_SAME(as_i32(run->buffer("count")), count);
  CHECK_SAME(as_i32(run->buffer("rank")), rank);

  // Inclusive scan per warp.
  std::vector<int32_t> scan(kN);
  for (int i = 0; i < kN; ++i) scan[i] = (i % 32 ? scan[i - 1] : 0) + x[i];
  CHECK_SAME(as_i32(run->buffer("scan")), scan);

  // Bitonic sort of each 1024 keys.
  std::vector<int32_t> sorted = x;
  for (int b = 0; b < kN; b += 1024) std::sort(sorted.begin() + b, sorted.begin() + b + 1024);
  CHECK_SAME(as_i32(run->buffer("sorted")), sorted);

  // Double precision: libdevice's exp/sin against the C library's, a few ulp apart at most.
  const std::vector<double> y = as_vector<double>(run->buffer("y"));
  REQUIRE(y.size() == kN);
  size_t bad = 0;
  for (int i = 0; i < kN; ++i) {
    const double a = (i - kN / 2) * 0.37;
    const double want = std::sqrt(std::fabs(a)) * std::exp(-std::fabs(a) / 100.0) +
                        std::sin(a) / (1.0 + a * a) + std::fma(a, a, -a) / 3.0;
    if (!(std::fabs(y[i] - want) <= 1e-15 + 1e-14 * std::fabs(want)) && bad++ < 3)
      MESSAGE("y[" << i << "] = " << y[i] << ", expected " << want);
  }
  CHECK(bad == 0);
}
