// Shared memory banks: wavefronts and bank conflicts (sim/timing/shared_banks.h).
#include <doctest/doctest.h>

#include <string>

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

TEST_CASE("402 one lane off a broadcast or off consecutive words: the conflict still counts") {
  // shared_access_cost finds one-wavefront accesses whose words lie within 32 consecutive words
  // by a shortcut; one lane off such a pattern must still cost the second pass of its bank.
  std::array<uint64_t, 32> rows{};  // two rows' broadcasts 31 words apart: banks 16 and 15
  for (int l = 0; l < 32; ++l) rows[l] = l < 16 ? 16 * 4 : 47 * 4;
  CHECK(shared_access_cost(rows, 0xffffffffu, 4, 32, 4).wavefronts == 1);
  rows[31] = 48 * 4;  // 32 words apart: lane 31 shares bank 16 with the first row's word
  CHECK(shared_access_cost(rows, 0xffffffffu, 4, 32, 4).wavefronts == 2);
  std::array<uint64_t, 32> a{};
  a.fill(64);          // word 16 (bank 16) from every lane ...
  a[5] = 64 + 32 * 4;  // ... but lane 5 reads word 48, also bank 16
  CHECK(shared_access_cost(a, 0xffffffffu, 4, 32, 4).wavefronts == 2);
  auto b = words(1);
  b[7] = (8 + 32) * 4;  // word 40: bank 8, beside lane 8's word 8
  CHECK(shared_access_cost(b, 0xffffffffu, 4, 32, 4).wavefronts == 2);
  // 16 banks: consecutive words put two words in every bank.
  CHECK(shared_access_cost(words(1), 0xffffffffu, 4, 16, 4).wavefronts == 2);
  // 2-byte lanes, two to a word: 16 words in 16 banks.
  std::array<uint64_t, 32> h{};
  for (int l = 0; l < 32; ++l) h[l] = 2 * l;
  CHECK(shared_access_cost(h, 0xffffffffu, 2, 32, 4).wavefronts == 1);
}

namespace {
// Element index (of `bytes` bytes) that lane l reads, for the patterns of
// scripts/microbench/shared_wide.cu.
int64_t pattern_element(const std::string& name, int l, int w) {
  if (name == "all_one_word") return 0;
  if (name == "halves_adjacent") return l / 16;
  if (name == "halves_64B_apart") return (l / 16) * (64 / w);
  if (name == "halves_128B_apart") return (l / 16) * (128 / w);
  if (name == "quarters_adjacent") return l / 8;
  if (name == "quarters_128B_apart") return (l / 8) * (128 / w);
  if (name == "alternate_2") return l % 2;
  if (name == "alternate_2_128B_apart") return (l % 2) * (128 / w);
  if (name == "quarters_alternate") return (l / 8) % 2;
  if (name == "pairs_16") return l / 2;
  if (name == "fours_8") return l / 4;
  if (name == "mod_8") return l % 8;
  if (name == "mod_16") return l % 16;
  if (name == "first_half_distinct") return l < 16 ? l : 0;
  if (name == "distinct") return l;
  if (name == "distinct_reversed") return 31 - l;
  if (name == "distinct_stride_2") return 2 * l;
  // Part of the warp: -1 for a lane that sits the load out.
  if (name == "distinct_lanes_0_3") return l < 4 ? l : -1;
  if (name == "distinct_lanes_0_7") return l < 8 ? l : -1;
  if (name == "distinct_lanes_0_15") return l < 16 ? l : -1;
  if (name == "distinct_lanes_16_31") return l >= 16 ? l : -1;
  if (name == "one_word_lanes_0_15") return l < 16 ? 0 : -1;
  FAIL("unknown pattern " << name);
  return 0;
}
}  // namespace

TEST_CASE(
    "402 4-, 8- and 16-byte loads take the H100's shared-pipe cycles and conflicts, every "
    "pattern") {
  // The H100 (scripts/microbench/h100-shared-wide-2026-11-25.tsv): bytes per lane, pattern, the
  // shared pipe's cycles per warp load (= ncu's wavefronts for a whole warp) and ncu's bank
  // conflicts per warp load.
  struct Measured {
    uint32_t bytes;
    const char* pattern;
    int wavefronts, conflicts;
  };
  const Measured measured[] = {
      {4, "all_one_word", 1, 0},
      {4, "halves_adjacent", 1, 0},
      {4, "halves_64B_apart", 1, 0},
      {4, "halves_128B_apart", 2, 1},
      {4, "quarters_adjacent", 1, 0},
      {4, "quarters_128B_apart", 4, 3},
      {4, "alternate_2", 1, 0},
      {4, "alternate_2_128B_apart", 2, 1},
      {4, "quarters_alternate", 1, 0},
      {4, "pairs_16", 1, 0},
      {4, "fours_8", 1, 0},
      {4, "mod_8", 1, 0},
      {4, "mod_16", 1, 0},
      {4, "first_half_distinct", 1, 0},
      {4, "distinct", 1, 0},
      {4, "distinct_reversed", 1, 0},
      {4, "distinct_stride_2", 2, 1},
      {4, "distinct_lanes_0_3", 1, 0},
      {4, "distinct_lanes_0_7", 1, 0},
      {4, "distinct_lanes_0_15", 1, 0},
      {4, "distinct_lanes_16_31", 1, 0},
      {4, "one_word_lanes_0_15", 1, 0},
      {8, "all_one_word", 1, 0},
      {8, "halves_adjacent", 1, 0},
      {8, "halves_64B_apart", 1, 0},
      {8, "halves_128B_apart", 2, 1},
      {8, "quarters_adjacent", 1, 0},
      {8, "quarters_128B_apart", 4, 3},
      {8, "alternate_2", 1, 0},
      {8, "alternate_2_128B_apart", 2, 1},
      {8, "quarters_alternate", 1, 0},
      {8, "pairs_16", 1, 0},
      {8, "fours_8", 1, 0},
      {8, "mod_8", 2, 0},
      {8, "mod_16", 2, 0},
      {8, "first_half_distinct", 2, 0},
      {8, "distinct", 2, 0},
      {8, "distinct_reversed", 2, 0},
      {8, "distinct_stride_2", 4, 2},
      {8, "distinct_lanes_0_3", 2, 0},
      {8, "distinct_lanes_0_7", 2, 0},
      {8, "distinct_lanes_0_15", 2, 0},
      {8, "distinct_lanes_16_31", 2, 0},
      {8, "one_word_lanes_0_15", 1, 0},
      {16, "all_one_word", 2, 0},
      {16, "halves_adjacent", 2, 0},
      {16, "halves_64B_apart", 2, 0},
      {16, "halves_128B_apart", 2, 0},
      {16, "quarters_adjacent", 2, 0},
      {16, "quarters_128B_apart", 4, 2},
      {16, "alternate_2", 2, 0},
      {16, "alternate_2_128B_apart", 4, 2},
      {16, "quarters_alternate", 2, 0},
      {16, "pairs_16", 2, 0},
      {16, "fours_8", 2, 0},
      {16, "mod_8", 4, 0},
      {16, "mod_16", 4, 0},
      {16, "first_half_distinct", 4, 0},
      {16, "distinct", 4, 0},
      {16, "distinct_reversed", 4, 0},
      {16, "distinct_stride_2", 8, 4},
      {16, "distinct_lanes_0_3", 4, 0},
      {16, "distinct_lanes_0_7", 4, 0},
      {16, "distinct_lanes_0_15", 4, 0},
      {16, "distinct_lanes_16_31", 4, 0},
      {16, "one_word_lanes_0_15", 2, 0},
  };
  for (const Measured& m : measured) {
    CAPTURE(m.bytes);
    CAPTURE(m.pattern);
    std::array<uint64_t, 32> a{};
    uint32_t mask = 0;
    for (int l = 0; l < 32; ++l) {
      const int64_t e = pattern_element(m.pattern, l, static_cast<int>(m.bytes));
      if (e < 0) continue;
      mask |= 1u << l;
      a[l] = 4096 + static_cast<uint64_t>(e) * m.bytes;
    }
    const auto c = shared_access_cost(a, mask, m.bytes, 32, 4);
    CHECK(c.wavefronts == m.wavefronts);
    CHECK(c.bank_conflicts() == m.conflicts);
  }
}

TEST_CASE("402 atomics serialize lanes on one word: k lanes per counter cost k wavefronts") {
  for (int k : {1, 2, 4, 8, 16, 32}) {
    std::array<uint64_t, 32> a{};
    for (int l = 0; l < 32; ++l) a[l] = 4u * static_cast<uint64_t>(l / k);
    CHECK(shared_access_cost(a, 0xffffffffu, 4, 32, 4, true).wavefronts == k);
    CHECK(shared_access_cost(a, 0xffffffffu, 4, 32, 4, false).wavefronts == 1);
  }
}
