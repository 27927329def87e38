// The warp scheduling policies (sim/timing/warp_scheduler.h) on sets of ready slots: each pick
// against the policy's definition written out on the ready warps listed in slot order (lrr: the
// first after the last issued slot, else the first; gto: the last issued slot if ready, else the
// first of the oldest), over sequences of cycles (the policy's memory of who issued), with one
// and two 64-slot words, ages with ties, and the edges (slot 0, slot 63/64, the last slot).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/timing/warp_scheduler.h"

using namespace warplab::timing;

namespace {

// The definitions, on the ready slots in slot order.
int lrr_reference(const std::vector<int>& ready, int last) {
  for (int s : ready)
    if (s > last) return s;
  return ready.front();
}

int gto_reference(const std::vector<int>& ready, const std::vector<uint64_t>& age, int last) {
  int best = ready.front();
  for (int s : ready) {
    if (s == last) return s;
    if (age[s] < age[best]) best = s;
  }
  return best;
}

void check_policy(const std::string& name, size_t words, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int slots = static_cast<int>(64 * words);
  std::vector<uint64_t> age(slots);
  for (int s = 0; s < slots; ++s) age[s] = rng() % 24;  // ties on purpose
  auto policy = make_warp_scheduler(name);
  REQUIRE(policy);
  int last = -1;
  std::vector<uint64_t> bits(words);
  for (int cycle = 0; cycle < 20000; ++cycle) {
    std::vector<int> ready;
    const int density = 1 + static_cast<int>(rng() % 8);  // from a few ready warps to most
    for (size_t wd = 0; wd < words; ++wd) bits[wd] = 0;
    for (int s = 0; s < slots; ++s)
      if (rng() % 8 < static_cast<uint64_t>(density)) bits[s / 64] |= 1ull << (s % 64);
    if (cycle % 5 == 0) bits[0] |= 1;                                  // slot 0
    if (cycle % 7 == 0) bits[words - 1] |= 1ull << 63;                  // the last slot
    if (cycle % 11 == 0 && last >= 0) bits[last / 64] |= 1ull << (last % 64);  // last issued
    if (cycle % 13 == 0) {  // a single ready warp
      std::fill(bits.begin(), bits.end(), 0);
      const int s = static_cast<int>(rng() % slots);
      bits[s / 64] |= 1ull << (s % 64);
    }
    for (int s = 0; s < slots; ++s)
      if ((bits[s / 64] >> (s % 64)) & 1) ready.push_back(s);
    if (ready.empty()) continue;
    const int want = name == "lrr" ? lrr_reference(ready, last) : gto_reference(ready, age, last);
    const int got = policy->pick({bits, age.data()});
    REQUIRE(got == want);
    // The scheduler issues the warp it picked, except now and then (a busy issue port).
    if (cycle % 17 != 0) policy->on_issue(got), last = got;
  }
}

}  // namespace

TEST_CASE("warp schedulers: lrr picks the first ready slot after the last issued, else the first") {
  check_policy("lrr", 1, 313);
  check_policy("lrr", 2, 314);
}

TEST_CASE("warp schedulers: gto picks the last issued if ready, else the oldest (first by slot)") {
  check_policy("gto", 1, 315);
  check_policy("gto", 2, 316);
}

TEST_CASE("warp schedulers: an unknown name gives none") {
  CHECK(make_warp_scheduler("lrr"));
  CHECK(make_warp_scheduler("gto"));
  CHECK_FALSE(make_warp_scheduler("fifo"));
}
