// Warp-level instructions through a whole kernel: shfl.sync up/down/bfly/idx (with a width),
// vote.sync ballot/all/any (also on a diverged path with a member mask), redux.sync, match.sync.
#include "21x_sim.h"
#include "23x_ops_ptx.h"

using namespace warplab;
using warplab::test::Sim;

TEST_CASE("shuffles, votes, redux and match against a plain C++ model of a warp") {
  Sim s(test::kOpsPtx, "ops.ptx");
  const int n = 64;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 101;
  const uint64_t I = s.buffer("in", in), O = s.zeros<int>("out", n * 8);
  auto r = s.run("_Z7warpopsPKiPi", {1, 1, 1}, {n, 1, 1}, {I, O});
  REQUIRE(!r.fault);
  auto out = s.read<int>(O, n * 8);
  for (int w = 0; w < n / 32; ++w) {
    const int* v = &in[w * 32];
    unsigned ballot50 = 0, ballot40_odd = 0;
    bool all_nonneg = true, any90 = false;
    int sum = 0;
    for (int l = 0; l < 32; ++l) {
      ballot50 |= unsigned(v[l] > 50) << l;
      if (l & 1) ballot40_odd |= unsigned(v[l] > 40) << l;
      all_nonneg = all_nonneg && v[l] >= 0;
      any90 = any90 || v[l] > 90;
      sum += v[l];
    }
    for (int l = 0; l < 32; ++l) {
      const int* o = &out[(w * 32 + l) * 8];
      INFO("warp " << w << " lane " << l);
      CHECK(o[0] == (l + 3 <= 31 ? v[l + 3] : v[l]));
      CHECK(o[1] == (l - 5 >= 0 ? v[l - 5] : v[l]));
      CHECK(o[2] == v[l ^ 6]);
      CHECK(o[3] == v[(l & 16) | (((l * 7) & 31) % 16)]);
      CHECK(unsigned(o[4]) == ballot50);
      CHECK(o[5] == int(all_nonneg) + 2 * int(any90));
      CHECK(unsigned(o[6]) == ((l & 1) ? ballot40_odd : 0u));
      unsigned match = 0;
      for (int k = 0; k < 32; ++k) match |= unsigned((v[k] & 3) == (v[l] & 3)) << k;
      CHECK(o[7] == sum + int(match));
    }
  }
}
