// The parallel loop (sim/timing/parallel_loop.h): the same launches on 1, 2 and 5 host threads
// give the same JSON, memory and trace, byte for byte; and the kernels' outputs are right
// (checked against values computed here).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "lab/metrics_json.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "31x_timing.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {


// Every thread adds 1 to bin (i % bins) and stores the old value it got back: which thread gets
// which old value depends on the order the SMs' atomics reach the L2 and memory.
constexpr const char* kHistogram = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry histogram(.param .u64 bins, .param .u64 olds, .param .u32 nbins)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [bins];
  ld.param.u64 %rd2, [olds];
  ld.param.u32 %r1, [nbins];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  rem.u32 %r6, %r5, %r1;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r6, 4;
  add.s64 %rd5, %rd3, %rd4;
  atom.global.add.u32 %r7, [%rd5], 1;
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd7, %rd6, %rd4;
  st.global.u32 [%rd7], %r7;
  ret;
}
)";

// One launch's whole outcome as text: the result JSON (as `warplab run --json` writes it, less
// nothing: run_timing's result has no wall time), the fault, every buffer, and the trace.
struct Outcome {
  std::string json, memory, trace;
  uint64_t parallel_cycles = 0;  // how the host ran it (TimingResult)
  uint64_t held_reads = 0;       // ... L2 reads held to the cycle's end (l2_queue.h)
  bool redone = false;
};

struct Case {
  std::string ptx;
  func::LaunchConfig launch;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> buffers;  // name, contents
  std::vector<int> pointer_args;  // buffer indices passed first, in order
  std::vector<uint32_t> scalar_args;
  int sm_count = 0;  // 0: the preset's
};

Outcome run(const Case& c, int threads, bool trace, func::DeviceMemory* out_mem = nullptr,
            bool adapt = false) {
  auto prog = load(c.ptx);
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  if (c.sm_count) cfg->core.sm_count = c.sm_count;
  func::DeviceMemory mem;
  func::LaunchConfig launch = c.launch;
  std::vector<uint64_t> addr;
  for (const auto& [name, bytes] : c.buffers) {
    addr.push_back(mem.allocate(name, bytes.size()));
    REQUIRE(mem.write(addr.back(), bytes.data(), bytes.size()));
  }
  for (int b : c.pointer_args) put(launch.params, addr[b]);
  for (uint32_t v : c.scalar_args) put(launch.params, v);
  TimingOptions o;
  o.threads = threads;
  o.adapt_threads = adapt;  // false: every cycle with enough SMs due on the threads
  o.registers_per_thread = 32;
  o.trace.enabled = trace;
  if (trace) o.trace.sms = {0, 1, 5};
  auto r = run_timing(*prog, mem, launch, *cfg, o);
  REQUIRE(r);
  Outcome out;
  nlohmann::json j = lab::timing_json(*r, *cfg, prog->module());
  j["fault"] = r->fault ? r->fault->message : "";
  j["hazards"] = r->hazards.size();
  j["stats"] = {r->stats.warp_instructions, r->stats.thread_instructions, r->stats.blocks,
                r->stats.warps, r->stats.threads};
  for (const auto& [line, n] : r->stats.by_ptx_line)
    j["stats_lines"].push_back({line, n.warp_instructions, n.thread_instructions});
  out.json = j.dump();
  out.parallel_cycles = r->parallel_cycles;
  out.held_reads = r->held_l2_reads;
  out.redone = r->redone_on_one_thread;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    std::vector<uint8_t> bytes(c.buffers[i].second.size());
    REQUIRE(mem.read(addr[i], bytes.data(), bytes.size()));
    out.memory.append(bytes.begin(), bytes.end());
  }
  if (trace) {
    std::ostringstream os;
    REQUIRE(write_chrome_trace(r->trace, os));
    out.trace = os.str();
  }
  if (out_mem) *out_mem = mem;
  return out;
}

std::vector<uint8_t> floats(size_t n, float scale, int mod) {
  std::vector<uint8_t> b(n * 4);
  for (size_t i = 0; i < n; ++i) {
    const float v = scale * float(int(i % mod) - mod / 2);
    std::memcpy(b.data() + 4 * i, &v, 4);
  }
  return b;
}

float f32_at(const std::string& mem, size_t byte) {
  float v;
  std::memcpy(&v, mem.data() + byte, 4);
  return v;
}
uint32_t u32_at(const std::string& mem, size_t byte) {
  uint32_t v;
  std::memcpy(&v, mem.data() + byte, 4);
  return v;
}

// Runs `c` on 1, 2 and 5 threads (and traced on 1 and 5): everything must be equal. The
// parallel runs must have ticked cycles on several threads (or, with `fault`, been redone).
// `held`: adds the L2 reads the parallel runs held to the cycle's end.
Outcome check_identical(const Case& c, bool fault = false, uint64_t* held = nullptr) {
  const Outcome one = run(c, 1, false);
  CHECK(one.parallel_cycles == 0);
  for (int t : {2, 5}) {
    CAPTURE(t);
    const Outcome many = run(c, t, false);
    CHECK(many.json == one.json);
    CHECK(many.memory == one.memory);
    if (held) *held += many.held_reads;
    if (fault)
      CHECK(many.redone);
    else
      CHECK(many.parallel_cycles > 0);
  }
  const Outcome traced1 = run(c, 1, true), traced5 = run(c, 5, true);
  CHECK(traced1.json == one.json);
  CHECK(traced5.json == one.json);
  CHECK(traced5.trace == traced1.trace);
  CHECK(traced5.memory == one.memory);
  return one;
}

Case vec_add_case(uint32_t n, uint32_t block, uint32_t allocated, int sm_count) {
  Case c;
  c.ptx = kVecAdd;
  c.launch = {"vec_add", {(n + block - 1) / block, 1, 1}, {block, 1, 1}, 0, {}};
  c.buffers = {{"x", floats(allocated, 0.5f, 97)},
               {"y", floats(allocated, 0.25f, 13)},
               {"z", std::vector<uint8_t>(size_t{allocated} * 4)}};
  c.pointer_args = {0, 1, 2};
  c.scalar_args = {n};
  c.sm_count = sm_count;
  return c;
}

void check_vec_add(const Outcome& o, uint32_t n) {
  // x, y, z laid out one after the other in Outcome::memory.
  const auto x = floats(n, 0.5f, 97), y = floats(n, 0.25f, 13);
  for (uint32_t i = 0; i < n; i += 97) {
    float a, b;
    std::memcpy(&a, x.data() + 4 * i, 4);
    std::memcpy(&b, y.data() + 4 * i, 4);
    REQUIRE(f32_at(o.memory, size_t{8} * n + 4 * i) == a + b);
  }
}

}  // namespace

TEST_CASE("350 a streaming kernel: identical on 1, 2 and 5 threads") {
  const uint32_t n = 256 * 264;  // two blocks per SM
  // Loads whose misses were held to the cycle's end (their answers filled in at the flush)
  // among them: the same cycles as asked at once.
  uint64_t held = 0;
  const Outcome o = check_identical(vec_add_case(n, 256, n, 0), false, &held);
  CHECK(held > 0);
  check_vec_add(o, n);
}

TEST_CASE("350 adapt_threads (the loop's timed trials pick the way): identical on 1 and 5") {
  // Long enough for many trial pairs (29,405 cycles: 64-cycle stretches, a pair every 32 of
  // them): the way each stretch runs depends on the host's timing, the results must not.
  // The first pool trial (the second stretch of cycles with 8 or more SMs due) always runs on
  // the threads.
  const uint32_t n = 1024 * 600;
  const Case c = vec_add_case(n, 1024, n, 16);
  const Outcome one = run(c, 1, false);
  const Outcome many = run(c, 5, false, nullptr, true);
  CHECK(many.json == one.json);
  CHECK(many.memory == one.memory);
  CHECK(many.parallel_cycles >= 64);
  CHECK(!many.redone);
  check_vec_add(one, n);
}

TEST_CASE("350 a grid of several waves: identical on 1, 2 and 5 threads") {
  // 16 SMs, two 1024-thread blocks each: 100 blocks are a little over three waves.
  const uint32_t n = 1024 * 100;
  const Outcome o = check_identical(vec_add_case(n, 1024, n, 16));
  check_vec_add(o, n);
}

TEST_CASE("350 atomics whose returned values depend on the order: identical on 1, 2, 5 threads") {
  const uint32_t bins = 7, threads = 256 * 132;
  Case c;
  c.ptx = kHistogram;
  c.launch = {"histogram", {threads / 256, 1, 1}, {256, 1, 1}, 0, {}};
  c.buffers = {{"bins", std::vector<uint8_t>(bins * 4)},
               {"olds", std::vector<uint8_t>(size_t{threads} * 4)}};
  c.pointer_args = {0, 1};
  c.scalar_args = {bins};
  const Outcome o = check_identical(c);
  // Each bin counts its threads, and its threads got back 0, 1, ..., count - 1, once each.
  std::map<uint32_t, std::vector<uint32_t>> got;
  for (uint32_t i = 0; i < threads; ++i)
    got[i % bins].push_back(u32_at(o.memory, 4 * bins + 4 * i));
  for (uint32_t b = 0; b < bins; ++b) {
    const uint32_t count = threads / bins + (b < threads % bins ? 1 : 0);
    REQUIRE(u32_at(o.memory, 4 * b) == count);
    std::vector<uint32_t>& v = got[b];
    std::sort(v.begin(), v.end());
    for (uint32_t k = 0; k < count; ++k) REQUIRE(v[k] == k);
  }
}

TEST_CASE("350 a tiled matmul (shared memory, barriers): identical on 1, 2 and 5 threads") {
  std::ifstream f("bench/matmul_tiled.ptx");
  REQUIRE(f);
  std::stringstream text;
  text << f.rdbuf();
  const uint32_t n = 128;
  Case c;
  c.ptx = text.str();
  c.launch = {"matmul_tiled", {n / 16, n / 16, 1}, {16, 16, 1}, 0, {}};
  c.buffers = {{"a", floats(n * n, 0.125f, 11)},
               {"b", floats(n * n, 0.25f, 5)},
               {"c", std::vector<uint8_t>(size_t{n} * n * 4)}};
  c.pointer_args = {0, 1, 2};
  c.scalar_args = {n};
  const Outcome o = check_identical(c);
  const auto a = floats(n * n, 0.125f, 11), b = floats(n * n, 0.25f, 5);
  auto at = [](const std::vector<uint8_t>& m, size_t i) {
    float v;
    std::memcpy(&v, m.data() + 4 * i, 4);
    return v;
  };
  for (uint32_t i = 0; i < n; i += 9)
    for (uint32_t j = 0; j < n; j += 7) {
      double want = 0;
      for (uint32_t k = 0; k < n; ++k) want += double(at(a, i * n + k)) * at(b, k * n + j);
      REQUIRE(f32_at(o.memory, size_t{8} * n * n + 4 * (i * n + j)) ==
              doctest::Approx(want).epsilon(1e-4));
    }
}

TEST_CASE("350 a fault in a parallel cycle: the same fault, cycles and memory as on one thread") {
  // The last blocks read past x and y: the launch stops at the first out-of-bounds load.
  const uint32_t n = 256 * 264, allocated = n - 1000;
  const Outcome o = check_identical(vec_add_case(n, 256, allocated, 0), true);
  CHECK(o.json.find("out of bounds") != std::string::npos);
}

TEST_CASE("350 a launch whose cancel flag is set stops with the Error 'cancelled'") {
  const Case c = vec_add_case(256 * 264, 256, 256 * 264, 0);
  auto prog = load(c.ptx);
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  for (int threads : {1, 2}) {
    func::DeviceMemory mem;
    func::LaunchConfig launch = c.launch;
    for (const auto& [name, bytes] : c.buffers)
      put(launch.params, mem.allocate(name, bytes.size()));
    put(launch.params, c.scalar_args[0]);
    std::atomic<bool> cancel{true};
    TimingOptions o;
    o.threads = threads;
    o.cancel = &cancel;
    auto r = run_timing(*prog, mem, launch, *cfg, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "cancelled");
    cancel = false;  // the same launch without the flag runs to the end
    auto done = run_timing(*prog, mem, launch, *cfg, o);
    REQUIRE(done);
    CHECK(done->cycles > 0);
  }
}
