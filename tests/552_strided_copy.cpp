// Whole-kernel tests: lesson 2's strided copy, y[(i*s) % n] = x[(i*s) % n], at every stride of the
// sweep. A copy moves bits unchanged, so the comparison is exact; elements of y that no thread
// writes must keep their initial zeros.
#include <doctest/doctest.h>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

std::vector<float> cpu_strided_copy(const std::vector<float>& x, int stride) {
  const int n = static_cast<int>(x.size());
  std::vector<float> y(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    int j = static_cast<int>((int64_t(i) * stride) % n);
    y[j] = x[j];
  }
  return y;
}

constexpr char kSweep[] = "lessons/02-coalescing/stride-sweep.toml";

void check_stride(Lesson& lesson, int n, int block, int stride) {
  CAPTURE(n);
  CAPTURE(stride);
  auto run = lesson.run({"N=" + std::to_string(n), "block=" + std::to_string(block),
                         "stride=" + std::to_string(stride)});
  if (!run) return;
  const std::vector<float> x = as_f32(run->buffer("x"));
  CHECK_BITS_EQUAL(as_f32(run->buffer("y")), cpu_strided_copy(x, stride));
}

}  // namespace

TEST_CASE("552 strided copy: every stride of the lesson's sweep, n = 4096") {
  Lesson lesson(kSweep);  // compiled once for all strides
  for (int stride : {1, 2, 4, 8, 16, 32, 64}) check_stride(lesson, 4096, 256, stride);
}

TEST_CASE("552 strided copy: n not a multiple of the block or the stride") {
  Lesson lesson(kSweep);
  check_stride(lesson, 5000, 128, 3);   // gcd(3, 5000) = 1: every element is written once
  check_stride(lesson, 5000, 128, 64);  // gcd = 8: every 8th element
}

TEST_CASE("552 copy: the checked stride-1 copy experiment") {
  auto run = run_lesson("lessons/02-coalescing/copy.toml", {"N=4097", "block=64"});
  if (!run) return;
  CHECK(run->checks_passed);
  CHECK_BITS_EQUAL(as_f32(run->buffer("y")), as_f32(run->buffer("x")));
}
