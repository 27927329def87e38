// Shared memory banks: wavefronts and bank conflicts (sim/timing/shared_banks.h).
#include <doctest/doctest.h>

#include "sim/timing/shared_banks.h"

using namespace warplab::timing;

namespace {
std::array<uint64_t, 32> words(uint64_t stride_words) {
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = l * stride_words * 4;
  return a;
}
}  // namespace

TEST_CASE("402 consecutive words: one wavefront, no conflict") {
  const auto c = shared_access_cost(words(1), 0xffffffffu, 4, 32, 4);
  CHECK(c.wavefronts == 1);
  CHECK(c.bank_conflicts() == 0);
}

TEST_CASE("402 a 2-way bank conflict costs exactly one more wavefront") {
  const auto ok = shared_access_cost(words(1), 0xffffffffu, 4, 32, 4);
  const auto two = shared_access_cost(words(2), 0xffffffffu, 4, 32, 4);
  CHECK(two.wavefronts == ok.wavefronts + 1);
  CHECK(two.bank_conflicts() == 1);
}

TEST_CASE("402 stride 32 words is a 32-way conflict; odd strides are conflict-free") {
  CHECK(shared_access_cost(words(32), 0xffffffffu, 4, 32, 4).wavefronts == 32);
  CHECK(shared_access_cost(words(33), 0xffffffffu, 4, 32, 4).wavefronts == 1);
  CHECK(shared_access_cost(words(4), 0xffffffffu, 4, 32, 4).wavefronts == 4);
}

TEST_CASE("402 same word from every lane is a broadcast") {
  std::array<uint64_t, 32> a{};
  a.fill(64);
  CHECK(shared_access_cost(a, 0xffffffffu, 4, 32, 4).wavefronts == 1);
}

TEST_CASE("402 64-bit and 128-bit accesses need 2 and 4 wavefronts without conflicts") {
  std::array<uint64_t, 32> a8{}, a16{};
  for (int l = 0; l < 32; ++l) {
    a8[l] = l * 8;
    a16[l] = l * 16;
  }
  const auto c8 = shared_access_cost(a8, 0xffffffffu, 8, 32, 4);
  const auto c16 = shared_access_cost(a16, 0xffffffffu, 16, 32, 4);
  CHECK(c8.wavefronts == 2);
  CHECK(c8.bank_conflicts() == 0);
  CHECK(c16.wavefronts == 4);
  CHECK(c16.bank_conflicts() == 0);
}

TEST_CASE("402 atomics serialize lanes on one word: k lanes per counter cost k wavefronts") {
  for (int k : {1, 2, 4, 8, 16, 32}) {
    std::array<uint64_t, 32> a{};
    for (int l = 0; l < 32; ++l) a[l] = 4u * static_cast<uint64_t>(l / k);
    CHECK(shared_access_cost(a, 0xffffffffu, 4, 32, 4, true).wavefronts == k);
    CHECK(shared_access_cost(a, 0xffffffffu, 4, 32, 4, false).wavefronts == 1);
  }
}
