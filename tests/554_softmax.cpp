// Whole-kernel tests: lesson 7b's row softmax.
//
// The kernel uses expf, which CUDA computes with ex2.approx (max error 2 ulp, CUDA's documented
// bound), then sums up to cols terms in a tree of depth ~log2(block) + cols/block, and multiplies
// by a correctly rounded reciprocal. Every output is positive, so a relative bound fits: ~2 ulp
// (expf)
// + ~20 roundings (sum) + 2 (reciprocal, multiply) is ~2.5e-6 relative; 1e-5 leaves a 4x margin.
// The reference is computed in double from the same float inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

void check_softmax(int rows, int cols, int block) {
  CAPTURE(rows);
  CAPTURE(cols);
  CAPTURE(block);
  auto run = run_lesson("lessons/07-reductions/softmax.toml",
                        {"rows=" + std::to_string(rows), "cols=" + std::to_string(cols),
                         "block=" + std::to_string(block)});
  if (!run) return;
  const auto x = as_f32(run->buffer("x"));
  const auto y = as_f32(run->buffer("y"));
  std::vector<double> expect(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const float* in = &x[size_t(r) * cols];
    double m = *std::max_element(in, in + cols), sum = 0.0;
    for (int c = 0; c < cols; ++c) sum += std::exp(double(in[c]) - m);
    for (int c = 0; c < cols; ++c) expect[size_t(r) * cols + c] = std::exp(double(in[c]) - m) / sum;
  }
  CHECK_CLOSE(y, expect, 0.0, 1e-5);
  // Every row adds up to 1 (within the same per-element bound, summed).
  for (int r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += y[size_t(r) * cols + c];
    CHECK(std::abs(s - 1.0) < 1e-5);
  }
}

}  // namespace

TEST_CASE("554 softmax: more columns than threads (each thread loops over its columns)") {
  check_softmax(16, 1000, 128);
}

TEST_CASE("554 softmax: fewer columns than threads (idle threads feed -inf and 0 to the trees)") {
  check_softmax(8, 100, 256);
}
