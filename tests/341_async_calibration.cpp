// Calibration of the asynchronous-copy timing against the H100 (scripts/microbench/
// h100-async-timing-2026-11-26.tsv, measured with tensor_async.cu): the same kernels
// (lessons/calibration/async_timing.cu, its PTX checked in) on the h100-sxm preset, timed by their
// own clock64 as on the GPU. One preset, no per-test fitting; each figure within 10% of the H100's.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

struct Bench {
  std::optional<func::Program> program;
  GpuConfig cfg;
  Bench() {
    const std::string path = default_config_dir() + "/../lessons/calibration/async_timing.ptx";
    std::ifstream f(path);
    REQUIRE_MESSAGE(f.good(), path);
    std::stringstream ss;
    ss << f.rdbuf();
    auto m = ptx::parse_module(ss.str(), path);
    REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
    auto p = func::Program::load(std::move(*m));
    REQUIRE(p);
    program.emplace(std::move(*p));
    auto c = load_config("h100-sxm");
    REQUIRE(c);
    cfg = *c;
  }
  // Runs `kernel` on one block of `threads` and returns what it wrote to its cycles buffer.
  int64_t cycles(const std::string& kernel, std::vector<uint64_t> args, uint32_t threads,
                 func::DeviceMemory& mem, uint64_t cyc, uint32_t dyn = 0) {
    const ptx::Function* f = program->kernel(kernel);
    REQUIRE(f);
    std::vector<uint8_t> params(f->param_bytes);
    for (size_t i = 0; i < args.size(); ++i)
      std::memcpy(params.data() + f->params[i].offset, &args[i],
                  std::min<size_t>(8, f->params[i].size));
    func::LaunchConfig launch{kernel, {1, 1, 1}, {threads, 1, 1}, dyn, params};
    TimingOptions o;
    o.registers_per_thread = 32;
    auto r = run_timing(*program, mem, launch, cfg, o);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE_MESSAGE(!r->fault, (r->fault ? r->fault->message : ""));
    int64_t c = 0;
    REQUIRE(mem.read(cyc, &c, 8));
    return c;
  }
};

void near(double model, double h100, double tolerance = 0.10) {
  CAPTURE(model);
  CAPTURE(h100);
  CHECK(model > h100 * (1 - tolerance));
  CHECK(model < h100 * (1 + tolerance));
}

}  // namespace

TEST_CASE("341 async calibration: cp.async and ld.global.cg chases through the L2") {
  Bench b;
  func::DeviceMemory mem;
  // A chain with 272 bytes (17 elements) per step, as tensor_async.cu's L2 chase, over 4 MiB: more
  // than the model's L1 holds (it does not bypass L1 for .cg), well inside the L2.
  const uint32_t n = (4u << 20) / 16, stride = 17;
  std::vector<uint32_t> chain(n * 4, 0);
  for (uint32_t i = 0; i < n; i += stride) chain[i * 4] = (i + stride) % (n / stride * stride);
  const uint64_t C = mem.allocate("chain", chain.size() * 4);
  REQUIRE(mem.write(C, chain.data(), chain.size() * 4));
  const uint64_t cyc = mem.allocate("cycles", 8), sink = mem.allocate("sink", 4);
  // (cycles of 2N steps - cycles of N) / N: the first lap's misses cancel.
  const uint64_t lap = n / stride;
  auto per_step = [&](const char* k) {
    const int64_t a = b.cycles(k, {C, lap, cyc, sink}, 1, mem, cyc);
    const int64_t c2 = b.cycles(k, {C, 2 * lap, cyc, sink}, 1, mem, cyc);
    return double(c2 - a) / double(lap);
  };
  const double ld = per_step("k_ldg_chase"), cp = per_step("k_cpasync_chase");
  MESSAGE("ld.global.cg chase " << ld << " cycles/step (H100 285.9); cp.async chase " << cp
                                << " (H100 323.0)");
  near(ld, 285.86);
  near(cp, 322.97);
}

TEST_CASE("341 async calibration: mbarrier arrive + try_wait.parity round trip") {
  Bench b;
  func::DeviceMemory mem;
  const uint64_t cyc = mem.allocate("cycles", 8), sink = mem.allocate("sink", 4);
  const double per = double(b.cycles("k_mbarrier", {1, cyc, sink}, 1, mem, cyc)) / 64.0;
  MESSAGE("mbarrier round trip " << per << " cycles (H100 65.0)");
  near(per, 65.02);
}

TEST_CASE("341 async calibration: 1D bulk copies by size") {
  Bench b;
  func::DeviceMemory mem;
  const uint64_t src = mem.allocate("src", 131072);
  const uint64_t cyc = mem.allocate("cycles", 8), sink = mem.allocate("sink", 4);
  const std::pair<uint32_t, double> h100[] = {{16, 315.27},    {1024, 354.27},  {4096, 373.48},
                                              {16384, 487.50}, {65536, 960.25}, {131072, 1589.72}};
  for (const auto& [bytes, measured] : h100) {
    CAPTURE(bytes);
    const double per =
        double(b.cycles("k_bulk", {src, bytes, 16, cyc, sink}, 1, mem, cyc, bytes)) / 16.0;
    MESSAGE("bulk copy of " << bytes << " B: " << per << " cycles (H100 " << measured << ")");
    near(per, measured);
  }
}
