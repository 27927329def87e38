// Whole-kernel tests: lesson 5b's matrix transpose, naive and through a padded shared-memory tile.
// A transpose only moves values, so the comparison is exact.
#include <doctest/doctest.h>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

void check_transpose(int rows, int cols, bool random_input, int pad = 1) {
  CAPTURE(rows);
  CAPTURE(cols);
  auto run = run_lesson("lessons/05-shared-memory-tiling/transpose.toml",
                        {"rows=" + std::to_string(rows), "cols=" + std::to_string(cols),
                         "pad=" + std::to_string(pad)},
                        [&](warplab::lab::Experiment& exp) {
                          if (random_input) set_uniform(exp, "input", -1.0, 1.0, 5);
                        });
  if (!run) return;
  const auto in = as_f32(run->buffer("input"));
  std::vector<float> out(in.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[size_t(c) * rows + r] = in[size_t(r) * cols + c];
  CHECK_BITS_EQUAL(as_f32(run->buffer("out_naive")), out);
  CHECK_BITS_EQUAL(as_f32(run->buffer("out_tiled")), out);
  CHECK(run->checks_passed);
}

}  // namespace

TEST_CASE("557 transpose: square, whole tiles") { check_transpose(128, 128, false); }

TEST_CASE("557 transpose: rectangular, partial tiles at both edges, random values") {
  check_transpose(100, 70, true);
  check_transpose(33, 200, true);
}

TEST_CASE("557 transpose: unpadded tile (pad = 0, compiled with -DPAD=0) gives the same result") {
  check_transpose(96, 64, true, 0);
}
