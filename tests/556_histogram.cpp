// Whole-kernel tests: lesson 8's histogram with global atomics and with a shared-memory private
// histogram per block. Counts are integers: exact, whatever order the atomics ran in.
#include <doctest/doctest.h>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

void check_histogram(int n, int block, int bins) {
  CAPTURE(n);
  CAPTURE(block);
  CAPTURE(bins);
  auto run = run_lesson(
      "lessons/08-atomics-histogram/histogram.toml",
      {"N=" + std::to_string(n), "block=" + std::to_string(block), "bins=" + std::to_string(bins)});
  if (!run) return;
  const warplab::lab::HostBuffer& data = run->buffer("data");
  REQUIRE(data.bytes.size() == size_t(n));
  std::vector<uint32_t> expect(bins, 0);
  for (uint8_t b : data.bytes) ++expect[b * bins / 256];
  CHECK(as_u32(run->buffer("hist_global")) == expect);
  CHECK(as_u32(run->buffer("hist_shared")) == expect);
  CHECK(run->checks_passed);
}

}  // namespace

TEST_CASE("556 histogram: 256 bins, global and shared-memory atomics") {
  check_histogram(65536, 256, 256);
}

TEST_CASE("556 histogram: few bins (heavy contention), partial last block, small blocks") {
  check_histogram(10000, 128, 16);
  check_histogram(10000, 64, 1);  // every thread adds to the same counter
}
