// DeviceInfo formatting and the timing summary. No GPU needed. (The preset derived from a device
// is tested in tests/510, beside the timing model's loader that must read it.)
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "60x_h100_device.h"
#include "gpu/device.h"
#include "gpu/timing.h"

using namespace warplab::gpu;

using warplab::test::h100;

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
