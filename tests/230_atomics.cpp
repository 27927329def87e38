// Atomics: contended atomicAdd on global and shared memory, min/max, a CAS loop, a module
// __device__ variable. Expected values computed in plain C++.
#include "21x_sim.h"
#include "23x_ops_ptx.h"

using namespace warplab;
using warplab::test::Sim;

TEST_CASE("atomics: shared and global histograms, min/max, CAS loop, __device__ counter") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const int blocks = 3, threads = 96, n = blocks * threads;
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = (i * 7919) % 1000 - 300;
  const uint64_t H = s.zeros<int>("hist", 32), K = s.buffer("keys", keys);
  const uint64_t G = s.buffer("gsum", std::vector<int>{0, -1000000, 1000000});
  const uint64_t C = s.buffer("cas", std::vector<unsigned>{5});
  auto r = s.run("_Z7atomicsPiPKiS_Pj", {blocks, 1, 1}, {threads, 1, 1}, {H, K, G, C});
  REQUIRE(!r.fault);
  auto h = s.read<int>(H, 32);
  auto g = s.read<int>(G, 3);
  std::vector<int> want_hist(16, 0), want_sh(8, 0);
  long long sum = 0;
  int mx = -1000000, mn = 1000000;
  for (int k : keys) {
    want_hist[k & 15]++;
    want_sh[k & 7]++;
    sum += k;
    mx = std::max(mx, k);
    mn = std::min(mn, k);
  }
  for (int i = 0; i < 16; ++i) CHECK(h[i] == want_hist[i]);
  for (int i = 0; i < 8; ++i) CHECK(h[16 + i] == want_sh[i]);  // summed over the blocks
  CHECK(g[0] == static_cast<int>(sum));
  CHECK(g[1] == mx);
  CHECK(g[2] == mn);
  unsigned x = 5;
  for (int i = 0; i < n; ++i) x = x * 3u + 1u;
  CHECK(s.read<unsigned>(C, 1)[0] == x);
  // __device__ int counter: after the last block it holds n; each block's thread 0 read it after
  // its own barrier, so block b saw (b + 1) * threads.
  CHECK(h[24] == n);
  // The counter lives in a module buffer and persists across launches, as in CUDA.
  const func::BufferInfo* counter = nullptr;
  for (const auto& b : s.mem.buffers())
    if (b.name == "counter") counter = &b;
  REQUIRE(counter != nullptr);
  CHECK(!counter->symbol_key.empty());
  CHECK(s.read<int>(counter->address, 1)[0] == n);
  auto r2 = s.run("_Z7atomicsPiPKiS_Pj", {1, 1, 1}, {32, 1, 1}, {H, K, G, C});
  REQUIRE(!r2.fault);
  CHECK(s.read<int>(counter->address, 1)[0] == n + 32);
  CHECK(r.stats.warp_by_class[static_cast<int>(ptx::InstClass::Atomic)] > 0);
}
