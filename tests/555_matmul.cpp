// Whole-kernel tests: lesson 5's matrix multiply, naive and 16 x 16 shared-memory tiles.
//
// nvcc contracts `sum += a * b` into fma.rn.f32, and both kernels accumulate k = 0, 1, 2, ... in
// order (the tiled one pads past the edge with zeros, and fma(0, 0, sum) == sum exactly). The CPU
// does the same with std::fmaf, which rounds exactly like fma.rn.f32, so results must be
// bit-identical.
#include <doctest/doctest.h>

#include <cmath>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

std::vector<float> cpu_matmul(const std::vector<float>& A, const std::vector<float>& B, int M,
                              int N, int K) {
  std::vector<float> C(size_t(M) * N);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum = std::fmaf(A[size_t(r) * K + k], B[size_t(k) * N + c], sum);
      C[size_t(r) * N + c] = sum;
    }
  return C;
}

void check_matmul(int M, int N, int K) {
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  auto run =
      run_lesson("lessons/05-shared-memory-tiling/matmul.toml",
                 {"M=" + std::to_string(M), "N=" + std::to_string(N), "K=" + std::to_string(K)});
  if (!run) return;
  const auto C = cpu_matmul(as_f32(run->buffer("A")), as_f32(run->buffer("B")), M, N, K);
  CHECK_BITS_EQUAL(as_f32(run->buffer("C_naive")), C);
  CHECK_BITS_EQUAL(as_f32(run->buffer("C_tiled")), C);
  CHECK(run->checks_passed);
}

}  // namespace

TEST_CASE("555 matmul: naive and tiled, 64 x 64 x 64") { check_matmul(64, 64, 64); }

TEST_CASE("555 matmul: naive and tiled, 128 x 96 x 80") { check_matmul(128, 96, 80); }

TEST_CASE("555 matmul: sizes that are not multiples of the 16 x 16 tile") {
  check_matmul(50, 37, 70);
}
