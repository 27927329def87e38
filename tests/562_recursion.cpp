// Recursive device functions compiled from CUDA (tests/data/warp-kernels/recursion.cu): fib,
// mutual recursion, a struct returned through a recursion and threads exiting deep inside one,
// every buffer checked against the same recursions computed here in C++ (sim/func/call_frames.h).
#include "55x_whole_kernel.h"

using namespace warplab;
using namespace warplab::test;

namespace {

struct P {
  int a;
  float b;
};
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int od(int n);
int ev(int n) { return n == 0 ? 0 : od(n - 1) + (n > 3 ? 100 : 1); }
int od(int n) { return n == 0 ? 0 : ev(n - 1) + 1000 * n; }
P walk(int n, float x) {
  if (n == 0) return {0, x};
  const P p = walk(n - 1, x * 0.5f);
  return {p.a + n, p.b + x};
}

}  // namespace

TEST_CASE("562 recursion compiled from CUDA: every buffer against the CPU") {
  auto run = run_lesson("tests/data/warp-kernels/recursion.toml", {"N=512"});
  if (!run) return;
  const std::vector<int32_t> out = as_i32(run->buffer("out"));
  const std::vector<float> f = as_f32(run->buffer("f"));
  const std::vector<int32_t> e = as_i32(run->buffer("e"));
  REQUIRE(out.size() == 512);
  for (int t = 0; t < 512; ++t) {
    CAPTURE(t);
    const P p = walk(t % 13, 1.0f + t);
    CHECK(out[t] == fib(t % 17) + ev(t % 23) + p.a);
    CHECK(f[t] == p.b);
    const int stop = t % 3 == 0 ? t % 11 : -1;
    CHECK(e[t] == (stop >= 0 ? -stop : 78));  // 12 + 11 + ... + 0 = 78
  }
}
