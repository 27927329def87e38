// Block launches run on the SM's own thread in the parallel loop's cycles (sim/timing/
// sm_launch.cpp): which kernels may defer them (and their first blocks' Cta::create), and
// multi-wave launches on 1, 2 and 5 threads whose blocks are launched that way (one whose
// first instruction loads device memory, whose launches stay on the loop's thread, and one
// that reads a module variable later, whose first wave creates its Ctas on the loop's thread),
// each giving the one-thread JSON and memory, with the outputs checked against values computed
// here.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "31x_timing.h"
#include "35x_parallel.h"
#include "sim/timing/sm.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

// out[i] = seed * 3 + i, from a kernel `name` whose first instruction loads the module variable
// `seed` (device memory), or, with `param_first`, reads a parameter (its launches may be deferred)
// and loads the variable second: a slot's first block then still creates its Cta on the loop's
// thread (Cta::create binds the variable).
std::string seeded_ptx(const std::string& name, bool param_first) {
  const std::string load_seed = "  ld.global.u32 %r1, [seed];\n";
  const std::string load_out = "  ld.param.u64 %rd1, [out];\n";
  return R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .u32 seed = 7;
.visible .entry )" + name + R"((.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
)" + (param_first ? load_out + load_seed : load_seed + load_out) +
         R"(  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mad.lo.s32 %r6, %r1, 3, %r5;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}
)";
}
const std::string kSeeded = seeded_ptx("seeded", false);
const std::string kSeededLater = seeded_ptx("seeded_later", true);

struct Outcome {
  std::string json;
  std::vector<std::vector<uint8_t>> memory;
  TimingResult result;
};

// `kernel` of `ptx` with the buffers (`init` bytes each) as its pointer arguments and then
// `scalars`, on `threads` host threads of the H100 preset, every cycle with enough SMs due on
// the threads.
Outcome run(const std::string& ptx, const std::string& kernel, func::Dim3 grid, func::Dim3 block,
            const std::vector<std::vector<uint8_t>>& init, const std::vector<uint32_t>& scalars,
            int threads) {
  auto prog = load(ptx);
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  func::LaunchConfig launch{kernel, grid, block, 0, {}};
  std::vector<uint64_t> addr;
  for (const auto& bytes : init) {
    addr.push_back(mem.allocate("b" + std::to_string(addr.size()), bytes.size()));
    REQUIRE(mem.write(addr.back(), bytes.data(), bytes.size()));
  }
  for (uint64_t a : addr) put(launch.params, a);
  for (uint32_t v : scalars) put(launch.params, v);
  TimingOptions o = parallel_options(threads);
  auto r = run_timing(*prog, mem, launch, *cfg, o);
  REQUIRE(r);
  Outcome out;
  out.json = identity_json(*r, *cfg, prog->module());
  for (size_t i = 0; i < init.size(); ++i) {
    std::vector<uint8_t> bytes(init[i].size());
    REQUIRE(mem.read(addr[i], bytes.data(), bytes.size()));
    out.memory.push_back(std::move(bytes));
  }
  out.result = std::move(*r);
  return out;
}

const ptx::Function& first_kernel(const char* ptx) {
  static thread_local std::optional<func::Program> keep;
  auto p = load(ptx);
  REQUIRE(p);
  keep.emplace(std::move(*p));
  return keep->module().functions.front();
}

std::string entry(const std::string& first) {
  return ".version 9.0\n.target sm_90\n.address_size 64\n.global .u32 g;\n"
         ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n" +
         first + "  ret;\n}\n";
}

}  // namespace

TEST_CASE("354 which kernels' launches may run on the SM's thread: the first instruction") {
  CHECK(Sm::may_defer_launches(first_kernel(entry("  ld.param.u64 %rd1, [p];\n").c_str())));
  CHECK(Sm::may_defer_launches(first_kernel(entry("  mov.u32 %r1, %tid.x;\n").c_str())));
  CHECK_FALSE(Sm::may_defer_launches(first_kernel(entry("  ld.global.u32 %r1, [g];\n").c_str())));
  CHECK_FALSE(Sm::may_defer_launches(first_kernel(entry("  st.global.u32 [g], 1;\n").c_str())));
  CHECK_FALSE(
      Sm::may_defer_launches(first_kernel(entry("  atom.global.add.u32 %r1, [g], 1;\n").c_str())));
}

TEST_CASE("354 which kernels' first blocks may create their Ctas on the SM's thread") {
  auto plain = load(entry("  mov.u32 %r1, %tid.x;\n").c_str());
  REQUIRE(plain);
  CHECK(Sm::may_defer_creates(*plain, "k"));  // (the module's `g` is not referenced)
  auto uses = load(entry("  ld.param.u64 %rd1, [p];\n  ld.global.u32 %r1, [g];\n").c_str());
  REQUIRE(uses);
  CHECK_FALSE(Sm::may_defer_creates(*uses, "k"));
  CHECK_FALSE(Sm::may_defer_creates(*plain, "no_such_kernel"));
}

TEST_CASE("354 multi-wave vec_add: every block launched on the SMs' threads, the one-thread JSON") {
  // 1,200 blocks of 64 threads: about a wave and a half of 8 blocks per SM on 132 SMs; the
  // first wave creates the slots' Ctas, the later blocks reuse them, all on the SMs' threads
  // (the kernel references no module variable).
  const uint32_t n = 1200 * 64;
  std::vector<uint8_t> x(4 * n), y(4 * n), z(4 * n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const float a = float(i % 1000) * 0.5f, b = float(i % 7) - 3.0f;
    std::memcpy(&x[4 * i], &a, 4);
    std::memcpy(&y[4 * i], &b, 4);
  }
  const func::Dim3 grid{1200, 1, 1}, block{64, 1, 1};
  const Outcome one = run(kVecAdd, "vec_add", grid, block, {x, y, z}, {n}, 1);
  CHECK(one.result.deferred_launches == 0);
  for (uint32_t i = 0; i < n; i += 97) {
    float v;
    std::memcpy(&v, one.memory[2].data() + 4 * i, 4);
    REQUIRE(v == float(i % 1000) * 0.5f + (float(i % 7) - 3.0f));
  }
  for (int t : {2, 5}) {
    CAPTURE(t);
    const Outcome many = run(kVecAdd, "vec_add", grid, block, {x, y, z}, {n}, t);
    CHECK(many.json == one.json);
    CHECK(many.memory == one.memory);
    CHECK_FALSE(many.result.redone_on_one_thread);
    CHECK(many.result.parallel_cycles > 0);
    CHECK(many.result.deferred_launches == 1200);
  }
}

// 1,200 blocks of `name` (a seeded kernel) on 1 thread, its values checked, then on 2 and 5:
// the same JSON and memory, cycles run in the pool, and `more` checks the launches.
template <typename More>
void seeded_runs(const std::string& ptx, const std::string& name, More more) {
  const func::Dim3 grid{1200, 1, 1}, block{64, 1, 1};
  const uint32_t n = 1200 * 64;
  const std::vector<uint8_t> out(4 * n, 0);
  const Outcome one = run(ptx, name, grid, block, {out}, {}, 1);
  for (uint32_t i = 0; i < n; i += 89) {
    uint32_t v;
    std::memcpy(&v, one.memory[0].data() + 4 * i, 4);
    REQUIRE(v == 7 * 3 + i);
  }
  for (int t : {2, 5}) {
    CAPTURE(t);
    const Outcome many = run(ptx, name, grid, block, {out}, {}, t);
    CHECK(many.json == one.json);
    CHECK(many.memory == one.memory);
    CHECK(many.result.parallel_cycles > 0);
    more(many.result);
  }
}

TEST_CASE(
    "354 a kernel that reads a module variable: its first wave created on the loop's thread") {
  seeded_runs(kSeededLater, "seeded_later", [](const TimingResult& r) {
    CHECK_FALSE(r.redone_on_one_thread);
    // The later blocks were launched on the SMs' threads, not the first wave's.
    CHECK(r.deferred_launches > 0);
    CHECK(r.deferred_launches < 1200);
  });
}

TEST_CASE(
    "354 a kernel whose first instruction loads device memory: launched on the loop's thread") {
  seeded_runs(kSeeded, "seeded", [](const TimingResult& r) { CHECK(r.deferred_launches == 0); });
}
