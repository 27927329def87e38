// Barriers: bar.sync with exited threads, a shared-memory tree reduction.
// The kernels and their CUDA source are in 21x_div_ptx.h.
#include "21x_div_ptx.h"
#include "21x_sim.h"

using namespace warplab;
using warplab::test::kDiv;
using warplab::test::Sim;

TEST_CASE("bar.sync waits only for threads that have not exited") {
  Sim s(kDiv, "div.ptx");
  const uint64_t O = s.buffer("out", std::vector<int>(64, -5));
  // 64 threads: threads 40..63 return before the barrier (warp 1 is partly exited).
  auto r = s.run("_Z8bar_exitPi", {1, 1, 1}, {64, 1, 1}, {O});
  REQUIRE(!r.fault);
  auto out = s.read<int>(O, 64);
  for (int t = 0; t < 64; ++t) REQUIRE(out[t] == (t < 40 ? ((t + 1) % 40) * 3 : -5));
}

TEST_CASE("bar.sync: shared-memory tree reduction over 8 blocks") {
  Sim s(kDiv, "div.ptx");
  std::vector<float> in(256 * 8);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 13) % 17) - 8.0f;
  const uint64_t I = s.buffer("in", in), O = s.zeros<float>("out", 8);
  auto r = s.run("_Z6reducePKfPf", {8, 1, 1}, {256, 1, 1}, {I, O});
  REQUIRE(!r.fault);
  auto out = s.read<float>(O, 8);
  for (int b = 0; b < 8; ++b) {
    // Same tree order as the kernel (integers, so exact anyway).
    std::vector<float> v(in.begin() + b * 256, in.begin() + (b + 1) * 256);
    for (int k = 128; k > 0; k >>= 1)
      for (int t = 0; t < k; ++t) v[t] += v[t + k];
    REQUIRE(out[b] == v[0]);
  }
  CHECK(r.stats.warp_by_class[static_cast<int>(ptx::InstClass::Barrier)] == 8 * 8 * 9);
}
