// Calibration against gpu-measurements.md on the h100-sxm preset (one preset, no per-test fitting).
//
// Latencies come from the dependent pointer chases of lessons/calibration/calibration.cu (its PTX,
// generated with nvcc -ptx -arch=compute_90 -lineinfo, is checked in): cycles per step =
// (cycles(2N steps) - cycles(N steps)) / N, so launch and warm-up costs cancel. Like the real
// measurement, each step includes the loop's address arithmetic. Streaming bandwidth (vec_add at
// 2^24 floats) takes ~10 s, so it runs only with WARPLAB_CALIBRATE=1 in the environment.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

std::optional<func::Program> calibration_program() {
  const std::string path = default_config_dir() + "/../lessons/calibration/calibration.ptx";
  std::ifstream f(path);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  auto m = ptx::parse_module(ss.str(), path);
  if (!m) return std::nullopt;
  auto p = func::Program::load(std::move(*m));
  if (!p) return std::nullopt;
  return std::move(*p);
}

template <class T>
void put(std::vector<uint8_t>& p, T v) {
  const size_t at = (p.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
  p.resize(at + sizeof(T));
  std::memcpy(p.data() + at, &v, sizeof(T));
}

// Cycles of one chase launch over `footprint` bytes, one step per 128-byte line.
uint64_t chase_cycles(const func::Program& prog, const GpuConfig& cfg, const char* kernel,
                      uint64_t footprint, uint32_t warm, uint32_t steps, uint32_t stride_words) {
  func::DeviceMemory mem;
  const uint32_t count = static_cast<uint32_t>(footprint / 4);
  const uint64_t next = mem.allocate("next", footprint), out = mem.allocate("out", 4);
  std::vector<uint32_t> h(count, 0);
  for (uint32_t i = 0; i < count; i += stride_words) h[i] = (i + stride_words) % count;
  REQUIRE(mem.write(next, h.data(), footprint));
  func::LaunchConfig launch{kernel, {1, 1, 1}, {1, 1, 1}, 0, {}};
  put(launch.params, next);
  put(launch.params, std::string(kernel) == "chase_shared" ? count : warm);
  put(launch.params, steps);
  put(launch.params, out);
  auto r = run_timing(prog, mem, launch, cfg);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  return r->cycles;
}

double per_step(const func::Program& prog, const GpuConfig& cfg, const char* kernel,
                uint64_t footprint, uint32_t warm, uint32_t n, uint32_t stride) {
  const uint64_t a = chase_cycles(prog, cfg, kernel, footprint, warm, n, stride);
  const uint64_t b = chase_cycles(prog, cfg, kernel, footprint, warm, 2 * n, stride);
  return double(b - a) / n;
}

}  // namespace

TEST_CASE("320 pointer-chase latencies match the H100 within 10%") {
  auto prog = calibration_program();
  REQUIRE_MESSAGE(prog, "lessons/calibration/calibration.ptx must load");
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  struct Row {
    const char* what;
    const char* kernel;
    uint64_t footprint;
    uint32_t warm, n, stride;
    double measured;
  };
  const Row rows[] = {
      {"shared memory", "chase_shared", 4096, 0, 512, 1, 28.8},
      {"4 KiB global (L1 hit)", "chase_global", 4096, 64, 512, 32, 41.6},
      {"16 KiB global (L1 hit)", "chase_global", 16384, 256, 512, 32, 47.3},
      {"4 MiB global (L2 hit)", "chase_global", 4u << 20, (4u << 20) / 128, 512, 32, 285},
      {"128 MiB cold (DRAM)", "chase_global", 128u << 20, 0, 512, 32, 695},
  };
  std::ostringstream table;
  table << "\n| footprint | simulated cycles | H100 measured | error |\n|---|---|---|---|\n";
  for (const auto& row : rows) {
    const double sim =
        per_step(*prog, *cfg, row.kernel, row.footprint, row.warm, row.n, row.stride);
    const double err = (sim - row.measured) / row.measured;
    table << "| " << row.what << " | " << sim << " | " << row.measured << " | " << 100 * err
          << "% |\n";
    const std::string what = row.what;
    CAPTURE(what);
    CHECK(std::abs(err) <= 0.10);
  }
  MESSAGE(table.str());
}

TEST_CASE("320 streaming vec_add bandwidth (WARPLAB_CALIBRATE=1)") {
  if (!std::getenv("WARPLAB_CALIBRATE")) return;
  auto prog = calibration_program();
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  const uint32_t n = 1u << 24;
  std::ostringstream table;
  table << "\n| block | simulated us | H100 us |\n|---|---|---|\n";
  const std::pair<uint32_t, double> blocks[] = {{32, 323},   {64, 165},   {128, 86.0},
                                                {256, 79.4}, {512, 82.0}, {1024, 86.5}};
  for (auto [block, measured] : blocks) {
    if (block != 256 && !std::getenv("WARPLAB_CALIBRATE_SWEEP")) continue;
    func::DeviceMemory mem;
    const uint64_t x = mem.allocate("x", n * 4ull), y = mem.allocate("y", n * 4ull),
                   z = mem.allocate("z", n * 4ull);
    func::LaunchConfig launch{"stream_add", {(n + block - 1) / block, 1, 1}, {block, 1, 1}, 0, {}};
    put(launch.params, x);
    put(launch.params, y);
    put(launch.params, z);
    put(launch.params, n);
    TimingOptions o;
    o.registers_per_thread = 16;
    auto r = run_timing(*prog, mem, launch, *cfg, o);
    REQUIRE(r);
    REQUIRE_FALSE(r->fault);
    table << "| " << block << " | " << r->time_us << " | " << measured << " |\n";
    if (block == 256) {
      const double tbps = 3.0 * n * 4 / (r->time_us * 1e-6) / 1e12;
      table << "achieved (3 x n x 4 bytes / time_us): " << tbps << " TB/s vs 2.54 measured; DRAM "
            << r->dram_bytes_per_second / 1e12 << " TB/s of "
            << r->peak_dram_bytes_per_second / 1e12 << " peak\n";
      CHECK(r->time_us == doctest::Approx(79.4).epsilon(0.10));
    }
  }
  MESSAGE(table.str());
}
