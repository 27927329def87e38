// Whole-kernel tests: lesson 4's divergent and warp-uniform branch kernels.
//
// Both kernels do 64 dependent FMAs per thread, v = v * a + b, on one of two sides. nvcc contracts
// each step into one fma.rn.f32, and std::fmaf rounds the same way (a single rounding of the exact
// a*b+c), so the CPU results below must match the simulator bit for bit. The instruction counts
// show the divergence itself: the divergent kernel issues both sides in every warp.
#include <doctest/doctest.h>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

constexpr char kExperiment[] = "lessons/04-divergence/divergence.toml";

float side_even(float v) {
  for (int k = 0; k < 64; ++k) v = std::fmaf(v, 0.999f, 0.5f);
  return v;
}
float side_odd(float v) {
  for (int k = 0; k < 64; ++k) v = std::fmaf(v, 1.001f, -0.25f);
  return v;
}

void check_divergence(int n, int block) {
  auto run = run_lesson(kExperiment, {"N=" + std::to_string(n), "block=" + std::to_string(block)});
  if (!run) return;
  const std::vector<float> x = as_f32(run->buffer("x"));
  std::vector<float> div(n), uni(n);
  for (int i = 0; i < n; ++i) {
    int tid = i % block;  // threadIdx.x
    div[i] = (tid % 2 == 0) ? side_even(x[i]) : side_odd(x[i]);
    uni[i] = ((tid / 32) % 2 == 0) ? side_even(x[i]) : side_odd(x[i]);
  }
  CHECK_BITS_EQUAL(as_f32(run->buffer("y_divergent")), div);
  CHECK_BITS_EQUAL(as_f32(run->buffer("y_uniform")), uni);

  // Launch 0 is the divergent kernel, launch 1 the uniform one. The FP32 instructions are exactly
  // the 64 FMAs of each side: every warp issues both sides in the divergent kernel, one side in the
  // uniform kernel (each thread still does 64 FMAs in both).
  REQUIRE(run->launches.size() == 2);
  const auto& d = run->launches[0];
  const auto& u = run->launches[1];
  const int fp32 = static_cast<int>(warplab::ptx::InstClass::Fp32);
  const uint64_t warps = (uint64_t(n) + 31) / 32;  // n and block are multiples of 64 here
  CHECK(u.warp_by_class[fp32] == 64 * warps);
  CHECK(d.warp_by_class[fp32] == 2 * 64 * warps);
  CHECK(d.thread_by_class[fp32] == u.thread_by_class[fp32]);
  CHECK(u.thread_by_class[fp32] == 64 * uint64_t(n));
}

}  // namespace

TEST_CASE("558 divergence: divergent and uniform branch kernels match the CPU, block 256") {
  check_divergence(8192, 256);
}

TEST_CASE("558 divergence: block 64 (two warps per block, one per side when uniform)") {
  check_divergence(4096, 64);
}
