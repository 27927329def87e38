// DeviceInfo formatting, the derived preset and the timing summary. No GPU needed.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gpu/device.h"
#include "gpu/preset.h"
#include "gpu/timing.h"

using namespace warplab::gpu;

namespace {
// The H100 SXM as its driver reports it (shared/reference/gpu-measurements.md).
DeviceInfo h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.driver_version = 13000;
  d.total_memory_bytes = 85520809984ull;
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_bits = 5120;
  d.l2_bytes = 50 << 20;
  d.shared_per_sm_bytes = 228 << 10;
  d.shared_per_block_bytes = 48 << 10;
  d.shared_per_block_optin_bytes = 227 << 10;
  d.registers_per_sm = 65536;
  d.registers_per_block = 65536;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  return d;
}
}  // namespace

TEST_CASE("604 DeviceInfo: derived figures and the readable description") {
  const DeviceInfo d = h100();
  CHECK(d.max_warps_per_sm() == 64);
  // 5120 bits / 8 x 2619 MHz x 2 = 3352.3 GB/s.
  CHECK(d.dram_bandwidth_gbps() == doctest::Approx(3352.32));
  const std::string s = describe(d);
  CHECK(s.find("NVIDIA H100 80GB HBM3 (compute capability 9.0), device 0\n") == 0);
  CHECK(s.find("  SMs:             132 at 1980 MHz (max)\n") != std::string::npos);
  CHECK(s.find("5120-bit bus at 2619 MHz -> 3352 GB/s peak") != std::string::npos);
  CHECK(s.find("  L2:              50 MiB\n") != std::string::npos);
  CHECK(s.find("228 KiB per SM, 48 KiB per block (227 KiB opt-in)") != std::string::npos);
  CHECK(s.find("2048 / 64 per SM") != std::string::npos);
  CHECK(s.find("CUDA 13.0") != std::string::npos);
}

TEST_CASE("604 preset: the fields the simulator needs, each with a comment") {
  const std::string t = preset_toml(h100());
  CHECK(t.find("[gpu]\n") != std::string::npos);
  CHECK(t.find("name = \"NVIDIA H100 80GB HBM3\"") != std::string::npos);
  CHECK(t.find("sm_count = 132") != std::string::npos);
  CHECK(t.find("clock_mhz = 1980") != std::string::npos);
  CHECK(t.find("l2_bytes = 52428800") != std::string::npos);
  CHECK(t.find("dram_bandwidth_gbps = 3352.3") != std::string::npos);
  CHECK(t.find("max_warps = 64") != std::string::npos);
  CHECK(t.find("registers = 65536") != std::string::npos);
  CHECK(t.find("shared_bytes = 233472") != std::string::npos);
  // Every assignment line carries a comment.
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);) {
    if (line.find(" = ") != std::string::npos) CHECK(line.find(" # ") != std::string::npos);
  }
  const std::string path = "/tmp/warplab_604_preset.toml";
  REQUIRE(write_preset(h100(), path).has_value());
  std::ifstream f(path);
  std::stringstream back;
  back << f.rdbuf();
  CHECK(back.str() == t);
  std::remove(path.c_str());
  auto bad = write_preset(h100(), "/nonexistent-dir/x.toml");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().file == "/nonexistent-dir/x.toml");
}

TEST_CASE("604 timing summary: median, min, max, mean") {
  auto odd = summarize({5.0, 1.0, 3.0});
  CHECK(odd.median_us == 3.0);
  CHECK(odd.min_us == 1.0);
  CHECK(odd.max_us == 5.0);
  CHECK(odd.mean_us == 3.0);
  CHECK(odd.samples_us == std::vector<double>{5.0, 1.0, 3.0});  // launch order kept
  auto even = summarize({4.0, 1.0, 2.0, 100.0});
  CHECK(even.median_us == 3.0);
  auto none = summarize({});
  CHECK(none.median_us == 0);
}
