// Whole-kernel tests: lesson 6's GELU, as nine elementwise kernels and as one fused kernel.
//
// Eight of the nine kernels are one IEEE operation each (mul, add, scale, add-scalar), which the
// simulator does bit-exactly, so each intermediate buffer is recomputed on the CPU from the buffer
// before it and compared bit for bit. tanhf is not exact: CUDA implements it with ex2.approx and
// rcp.approx and documents a maximum error of 2 ulp, so t6 = tanh(t5) is compared with std::tanh
// in double within 4 float ulps of 1 (|tanh| <= 1): 4 * 2^-23 ~ 4.8e-7.
//
// Both final outputs are compared with GELU evaluated in double. The float kernels lose a few
// roundings (~1e-7 relative each) in the argument of tanh, which tanh passes on with slope <= 1,
// plus tanh's own error; 0.5 * x * (1 + tanh) then scales that absolute error by at most
// |x| / 2 <= 2 for x in [-4, 4). 1e-5 absolute + 1e-5 relative leaves a margin of about 10x over
// that bound. (The same kernels on an H100, against this same reference: worst error 0.7% of the
// tolerance; tanhf worst 1.7 ulp.)
#include <doctest/doctest.h>

#include <cmath>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

double gelu_exact(double x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

}  // namespace

TEST_CASE("551 GELU: nine elementwise kernels, each checked against the CPU") {
  const int n = 5000;
  auto run = run_lesson("lessons/06-operator-fusion/gelu.toml", {"N=" + std::to_string(n)});
  if (!run) return;
  const auto x = as_f32(run->buffer("x"));
  const auto t1 = as_f32(run->buffer("t1")), t2 = as_f32(run->buffer("t2"));
  const auto t3 = as_f32(run->buffer("t3")), t4 = as_f32(run->buffer("t4"));
  const auto t5 = as_f32(run->buffer("t5")), t6 = as_f32(run->buffer("t6"));
  const auto t7 = as_f32(run->buffer("t7")), t8 = as_f32(run->buffer("t8"));
  const auto y = as_f32(run->buffer("y_nine"));

  // The scalar arguments reach the kernel as floats, rounded from the file's decimals.
  const float c3 = static_cast<float>(0.044715), c5 = static_cast<float>(0.7978845608);
  std::vector<float> e1(n), e2(n), e3(n), e4(n), e5(n), e7(n), e8(n), e9(n);
  for (int i = 0; i < n; ++i) {
    e1[i] = x[i] * x[i];
    e2[i] = t1[i] * x[i];
    e3[i] = c3 * t2[i];
    e4[i] = x[i] + t3[i];
    e5[i] = c5 * t4[i];
    e7[i] = t6[i] + 1.0f;
    e8[i] = x[i] * t7[i];
    e9[i] = 0.5f * t8[i];
  }
  CHECK_BITS_EQUAL(t1, e1);
  CHECK_BITS_EQUAL(t2, e2);
  CHECK_BITS_EQUAL(t3, e3);
  CHECK_BITS_EQUAL(t4, e4);
  CHECK_BITS_EQUAL(t5, e5);
  std::vector<double> tanh_exact(n);
  for (int i = 0; i < n; ++i) tanh_exact[i] = std::tanh(static_cast<double>(t5[i]));
  CHECK_CLOSE(t6, tanh_exact, 4.8e-7, 0.0);
  CHECK_BITS_EQUAL(t7, e7);
  CHECK_BITS_EQUAL(t8, e8);
  CHECK_BITS_EQUAL(y, e9);

  std::vector<double> g(n);
  for (int i = 0; i < n; ++i) g[i] = gelu_exact(x[i]);
  CHECK_CLOSE(y, g, 1e-5, 1e-5);
}

TEST_CASE("551 GELU: the fused kernel against GELU in double, and the file's own check") {
  for (int n : {4096, 4097}) {
    CAPTURE(n);
    auto run = run_lesson("lessons/06-operator-fusion/gelu.toml", {"N=" + std::to_string(n)});
    if (!run) return;
    CHECK(run->checks_passed);  // y_fused vs y_nine within 1e-5
    const auto x = as_f32(run->buffer("x"));
    std::vector<double> g(n);
    for (int i = 0; i < n; ++i) g[i] = gelu_exact(x[i]);
    CHECK_CLOSE(as_f32(run->buffer("y_fused")), g, 1e-5, 1e-5);
    REQUIRE(run->launches.size() == 10);  // nine + one
  }
}
