// Whole-kernel tests: lesson 1 (vec_add, whoami) and lesson 3 (the block-size sweep's vec_add).
//
// IEEE float addition is correctly rounded, and the simulator's add.f32 is bit-exact with it, so
// z = x + y computed on the CPU must match bit for bit.
#include <doctest/doctest.h>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

std::vector<float> cpu_vec_add(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> z(x.size());
  for (size_t i = 0; i < x.size(); ++i) z[i] = x[i] + y[i];
  return z;
}

}  // namespace

TEST_CASE("550 vector add: lesson 1's vec_add, N not a multiple of the block") {
  auto run = run_lesson("lessons/01-threads-and-warps/vec_add.toml", {"N=5000", "block=128"});
  if (!run) return;
  CHECK(run->checks_passed);  // the file's own check: z == 0, 3, 6, ...
  CHECK_BITS_EQUAL(as_f32(run->buffer("z")),
                   cpu_vec_add(as_f32(run->buffer("x")), as_f32(run->buffer("y"))));
}

TEST_CASE("550 vector add: random inputs (every rounding case of add.f32)") {
  // Replace the file's iota inputs with random floats of mixed magnitudes.
  auto run = run_lesson("lessons/01-threads-and-warps/vec_add.toml", {"N=4099", "block=256"},
                        [](warplab::lab::Experiment& exp) {
                          exp.checks.clear();  // the file's check expects its iota inputs
                          set_uniform(exp, "x", -1000.0, 1000.0, 11);
                          set_uniform(exp, "y", -1.0, 1.0, 12);
                        });
  if (!run) return;
  CHECK_BITS_EQUAL(as_f32(run->buffer("z")),
                   cpu_vec_add(as_f32(run->buffer("x")), as_f32(run->buffer("y"))));
}

TEST_CASE("550 vector add: lesson 3's block-size sweep, every block size") {
  Lesson lesson("lessons/03-block-size/block-size-sweep.toml");  // compiled once
  for (int block : {32, 64, 128, 256, 512, 1024}) {
    CAPTURE(block);
    auto run = lesson.run({"N=3000", "block=" + std::to_string(block)});
    if (!run) return;
    CHECK(run->checks_passed);
    CHECK_BITS_EQUAL(as_f32(run->buffer("z")),
                     cpu_vec_add(as_f32(run->buffer("x")), as_f32(run->buffer("y"))));
    // One thread per element; only the last block's out-of-range threads skip the body.
    REQUIRE(run->launches.size() == 1);
    CHECK(run->launches[0].threads == uint64_t((3000 + block - 1) / block) * block);
  }
}

TEST_CASE("550 whoami: global index, block, warp and lane of every thread") {
  const int n = 1000, block = 96;  // 3 warps per block; the last block is partial
  auto run = run_lesson("lessons/01-threads-and-warps/whoami.toml",
                        {"N=" + std::to_string(n), "block=" + std::to_string(block)});
  if (!run) return;
  CHECK(run->checks_passed);
  std::vector<int32_t> gid(n), bid(n), wid(n), lid(n);
  for (int i = 0; i < n; ++i) {
    gid[i] = i;
    bid[i] = i / block;
    wid[i] = (i % block) / 32;
    lid[i] = (i % block) % 32;
  }
  CHECK(as_i32(run->buffer("global_id")) == gid);
  CHECK(as_i32(run->buffer("block_id")) == bid);
  CHECK(as_i32(run->buffer("warp_id")) == wid);
  CHECK(as_i32(run->buffer("lane_id")) == lid);
}
