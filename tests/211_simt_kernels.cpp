// Divergence and reconvergence through whole nvcc-generated kernels: nested ifs, loops with break
// and continue, early return, partial warps, exited threads at a barrier.
// The kernels and their CUDA source are in 21x_div_ptx.h. Expected values are computed here in
// plain C++.
#include "21x_div_ptx.h"
#include "21x_sim.h"

using namespace warplab;
using warplab::test::kDiv;
using warplab::test::Sim;

TEST_CASE("nested ifs: four paths per warp reconverge before the store") {
  Sim s(kDiv, "div.ptx");
  const int n = 96;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * 7 + 1;
  const uint64_t I = s.buffer("in", in), O = s.zeros<int>("out", n);
  auto r = s.run("_Z6nestedPKiPi", {1, 1, 1}, {n, 1, 1}, {I, O});
  REQUIRE(!r.fault);
  auto out = s.read<int>(O, n);
  for (int i = 0; i < n; ++i) {
    const int v = in[i];
    const int want = v % 2 == 0 ? (v % 3 == 0 ? 6 : 2) : (v % 5 == 0 ? 5 : 1);
    REQUIRE(out[i] == want);
  }
}

TEST_CASE("loop with break and continue") {
  Sim s(kDiv, "div.ptx");
  const int n = 64;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 120;  // some never break (>= 100)
  const uint64_t I = s.buffer("in", in), O = s.zeros<int>("out", n);
  auto r = s.run("_Z5loopsPKiPi", {1, 1, 1}, {n, 1, 1}, {I, O});
  REQUIRE(!r.fault);
  auto out = s.read<int>(O, n);
  for (int t = 0; t < n; ++t) {
    int acc = 0;
    for (int i = 0; i < 100; ++i) {
      if (i == in[t]) break;
      if ((i & 3) == (t & 3)) continue;
      acc += i * (t + 1);
    }
    REQUIRE(out[t] == acc);
  }
}

TEST_CASE("early return and a data-dependent while loop, partial warps (block 48)") {
  Sim s(kDiv, "div.ptx");
  const int n = 130;  // 3 blocks of 48 = 144 threads; the last 14 return at once
  std::vector<int> in(144);
  for (int i = 0; i < 144; ++i) in[i] = (i % 9 == 4) ? -i : i * 3 + 1;
  const uint64_t I = s.buffer("in", in), O = s.buffer("out", std::vector<int>(144, 77));
  auto r = s.run("_Z5earlyPKiPii", {3, 1, 1}, {48, 1, 1}, {I, O, uint64_t(n)});
  REQUIRE(!r.fault);
  auto out = s.read<int>(O, 144);
  for (int t = 0; t < 144; ++t) {
    int want;
    if (t >= n) {
      want = 77;
    } else if (in[t] < 0) {
      want = -1;
    } else {
      int v = in[t], steps = 0;
      while (v > 1) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        ++steps;
      }
      want = steps;
    }
    REQUIRE(out[t] == want);
  }
  CHECK(r.stats.warps == 3 * 2);
  CHECK(r.stats.threads == 144);
}

TEST_CASE("deterministic: two runs give identical results and counts") {
  auto once = [] {
    Sim s(kDiv, "div.ptx");
    std::vector<int> in(144);
    for (int i = 0; i < 144; ++i) in[i] = i * 5 + 3;
    const uint64_t I = s.buffer("in", in), O = s.zeros<int>("out", 144);
    auto r = s.run("_Z5earlyPKiPii", {3, 1, 1}, {48, 1, 1}, {I, O, uint64_t(140)});
    return std::make_pair(r.stats, s.read<int>(O, 144));
  };
  auto [a, oa] = once();
  auto [b, ob] = once();
  CHECK(oa == ob);
  CHECK(a.warp_instructions == b.warp_instructions);
  CHECK(a.thread_instructions == b.thread_instructions);
  CHECK(a.warp_by_class == b.warp_by_class);
  CHECK(a.by_ptx_line.size() == b.by_ptx_line.size());
  for (const auto& [line, c] : a.by_ptx_line) {
    CHECK(b.by_ptx_line.at(line).warp_instructions == c.warp_instructions);
    CHECK(b.by_ptx_line.at(line).thread_instructions == c.thread_instructions);
  }
}
