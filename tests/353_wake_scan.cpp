// The SM's wake-cycle scan (sim/timing/wake_scan.h): the due slots and the earliest later wake,
// against a direct loop, for every slot count 0-64 and wake cycles around `now` (equal, one
// either side, 0, the top bit set, kNever), on the host's own path (AVX2 where it has it).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/timing/wake_scan.h"

using namespace warplab::timing;

TEST_CASE("scan_wakes: due slots and the earliest later wake, as a direct loop gives") {
  std::mt19937_64 rng(352);
  const uint64_t now = 1000;
  const uint64_t picks[] = {0, now - 1, now, now + 1, now + 7, 1ull << 63, (1ull << 63) + 5, ~0ull};
  std::vector<uint64_t> wake(64);
  int checked = 0;
  for (int round = 0; round < 2000; ++round)
    for (int n = 0; n <= 64; n += (round % 7) + 1) {
      for (uint64_t& w : wake) {
        if (round % 3 == 0)
          w = picks[rng() % 8];  // the edges
        else if (rng() % 9 == 0)
          w = rng();  // anywhere
        else
          w = now - 50 + rng() % 100;  // near now
      }
      uint64_t due = 0, later = ~0ull;
      for (int i = 0; i < n; ++i) {
        if (wake[i] <= now)
          due |= 1ull << i;
        else if (wake[i] < later)
          later = wake[i];
      }
      const WakeScan s = scan_wakes(wake.data(), n, now);
      REQUIRE(s.due == due);
      REQUIRE(s.later == later);
      ++checked;
    }
  CHECK(checked > 10000);
}
