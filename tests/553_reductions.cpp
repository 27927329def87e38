// Whole-kernel tests: lesson 7's sum reductions (shared-memory tree and warp shuffles).
//
// Float addition is not associative, so the CPU repeats each kernel's exact order of additions
// (the same tree, in plain C++) and the partial sums and totals must then match bit for bit. The
// totals are also compared with the sum in double: each of the ~log2(n) tree levels adds at most
// one rounding of 2^-24 relative, so 1e-5 relative is a wide bound.
#include <doctest/doctest.h>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

// reduce_shared: block-wide tree with sequential addressing, s = block/2, block/4, ..., 1.
std::vector<float> cpu_reduce_shared(const std::vector<float>& in, int block) {
  const int n = static_cast<int>(in.size());
  const int blocks = (n + block - 1) / block;
  std::vector<float> out(blocks);
  std::vector<float> buf(block);
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < block; ++t) buf[t] = (b * block + t < n) ? in[b * block + t] : 0.0f;
    for (int s = block / 2; s > 0; s >>= 1)
      for (int t = 0; t < s; ++t) buf[t] += buf[t + s];
    out[b] = buf[0];
  }
  return out;
}

// One warp's __shfl_down_sync tree: lane l adds lane l + offset's value (its own when l + offset is
// past lane 31, as the hardware returns). Returns lane 0's value.
float cpu_warp_sum(std::vector<float> v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    std::vector<float> next(32);
    for (int l = 0; l < 32; ++l) next[l] = v[l] + (l + offset < 32 ? v[l + offset] : v[l]);
    v = next;
  }
  return v[0];
}

// reduce_warp_shuffle: warp sums, then warp 0 sums the per-warp results.
std::vector<float> cpu_reduce_shuffle(const std::vector<float>& in, int block) {
  const int n = static_cast<int>(in.size());
  const int blocks = (n + block - 1) / block, warps = block / 32;
  std::vector<float> out(blocks);
  for (int b = 0; b < blocks; ++b) {
    std::vector<float> warp_sums(32, 0.0f);
    for (int w = 0; w < warps; ++w) {
      std::vector<float> v(32);
      for (int l = 0; l < 32; ++l) {
        int i = b * block + w * 32 + l;
        v[l] = i < n ? in[i] : 0.0f;
      }
      warp_sums[w] = cpu_warp_sum(v);
    }
    std::vector<float> v(32);
    for (int l = 0; l < 32; ++l) v[l] = l < warps ? warp_sums[l] : 0.0f;
    out[b] = cpu_warp_sum(v);
  }
  return out;
}

void check_reduce(int n, int block) {
  CAPTURE(n);
  CAPTURE(block);
  auto run = run_lesson("lessons/07-reductions/reduce.toml",
                        {"N=" + std::to_string(n), "block=" + std::to_string(block)});
  if (!run) return;
  const auto x = as_f32(run->buffer("x"));
  const auto ps = cpu_reduce_shared(x, block);
  const auto pw = cpu_reduce_shuffle(x, block);
  CHECK_BITS_EQUAL(as_f32(run->buffer("partial_shared")), ps);
  CHECK_BITS_EQUAL(as_f32(run->buffer("partial_shuffle")), pw);
  CHECK_BITS_EQUAL(as_f32(run->buffer("total_shared")), cpu_reduce_shared(ps, block));
  CHECK_BITS_EQUAL(as_f32(run->buffer("total_shuffle")), cpu_reduce_shuffle(pw, block));
  CHECK(run->checks_passed);

  double exact = 0.0;
  for (float v : x) exact += v;
  CHECK_CLOSE(as_f32(run->buffer("total_shared")), std::vector<double>{exact}, 0.0, 1e-5);
  CHECK_CLOSE(as_f32(run->buffer("total_shuffle")), std::vector<double>{exact}, 0.0, 1e-5);
}

}  // namespace

TEST_CASE("553 reductions: shared-memory tree and warp shuffle, n = 65536, block 256") {
  check_reduce(65536, 256);
}

TEST_CASE("553 reductions: partial last block, other block sizes") {
  check_reduce(50000, 512);
  check_reduce(4000, 64);  // 63 partial sums: the second pass has a partial block too
}
