// Whole-kernel test: lesson 20's grouped GEMM of mixture-of-experts (moe.toml), run in functional
// mode and checked against products summed on the CPU.
//
// The CPU reads A and B in the packed tile order the lesson describes (grouped_gemm.cu's comment:
// row tiles of 64 tokens per expert, chunks of 64 K, 8-row x 16-byte core matrices), sums each
// output in double, and compares. The tensor cores add exact products and truncate the aligned sum
// of each group of 16 a fixed number of bits below its largest exponent (lesson 17), so against
// the double sums the results agree to a relative 1e-5 with K = 128 and inputs in [0.25, 1); the
// grouped launch and the per-expert launches run the same tile code and must agree bit for bit.
// Token counts that are not multiples of 64 (5, 42, 79, ...), a GROUP_M that does not divide the
// row tiles and a persistent grid of 7 CTAs (each walks many tiles; the copy ring runs across
// them) are the cases where a wrong index would show.
#include <doctest/doctest.h>

#include <cstring>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab;
using namespace warplab::test;

// byte offset of element (r, k) of a chunk of `rows` x 64 (the lesson's pack_off, written anew)
size_t packed(int rows, int r, int k) {
  const int slice = k / 16, half = (k % 16) / 8;
  return size_t(slice) * rows * 16 * 2 + size_t(r / 8) * 256 + half * 128 + (r % 8) * 16 +
         (k % 8) * 2;
}

double bf16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  const uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::vector<double> cpu_moe(const lab::HostBuffer& A, const lab::HostBuffer& B,
                            const std::vector<int32_t>& counts, int N, int K) {
  const int KB = K / 64, NT = N / 128;
  long tokens = 0;
  for (int m : counts) tokens += m;
  std::vector<double> C(size_t(tokens) * N);
  long row0 = 0, rt0 = 0;
  for (size_t e = 0; e < counts.size(); ++e) {
    for (int m = 0; m < counts[e]; ++m) {
      const long rt = rt0 + m / 64;
      for (int n = 0; n < N; ++n) {
        double sum = 0;
        for (int k = 0; k < K; ++k) {
          const size_t a = (size_t(rt) * KB + k / 64) * 64 * 64 * 2 + packed(64, m % 64, k % 64);
          const size_t b =
              ((e * NT + n / 128) * KB + k / 64) * 128 * 64 * 2 + packed(128, n % 128, k % 64);
          sum += bf16(&A.bytes[a]) * bf16(&B.bytes[b]);
        }
        C[size_t(row0 + m) * N + n] = sum;
      }
    }
    row0 += counts[e];
    rt0 += (counts[e] + 63) / 64;
  }
  return C;
}

}  // namespace

TEST_CASE("563 grouped GEMM: unequal experts, grouped and per-expert launches against the CPU") {
  const int N = 256, K = 128;
  auto run = run_lesson("lessons/20-grouped-gemm/moe.toml",
                        {"E=8", "M0=5", "DM=37", "N=256", "K=128", "GROUP_M=3", "ctas=7"});
  if (!run) return;
  const auto counts = as_i32(run->buffer("counts"));
  REQUIRE(counts.size() == 8);
  for (int e = 0; e < 8; ++e) CHECK(counts[e] == 5 + 37 * e);
  const auto want = cpu_moe(run->buffer("A"), run->buffer("B"), counts, N, K);
  const auto grouped = as_f32(run->buffer("C_grouped"));
  CHECK(close_mismatch(grouped, want, 0.0, 1e-5) == "");
  CHECK(bits_mismatch(as_f32(run->buffer("C_expert")), grouped) == "");
  CHECK(close_mismatch(as_f32(run->buffer("C_ref")), want, 0.0, 1e-5) == "");
  CHECK(run->checks_passed);
}
