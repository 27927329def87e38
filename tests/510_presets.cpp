// `warplab configs --from-gpu`: the preset derived from a device must load with the timing
// model's own loader (so --config accepts it), take every figure the driver reports from the
// device, and keep the base preset's latencies, which no driver reports. No GPU needed: the
// device is the H100 as its driver describes itself.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "60x_h100_device.h"
#include "lab/presets.h"
#include "sim/timing/config.h"

using namespace warplab;

namespace {

// Writes `text` to a file of its own and loads it as a --config FILE would be.
Expected<timing::GpuConfig> load_text(const std::string& text, const std::string& name) {
  const std::string path = "/tmp/warplab_510_" + name + ".toml";
  {
    std::ofstream f(path, std::ios::trunc);
    f << text;
  }
  auto cfg = timing::load_config(path, lab::config_dir());
  std::remove(path.c_str());
  return cfg;
}

}  // namespace

TEST_CASE("510 a preset derived from a device loads, with the device's figures over its base") {
  gpu::DeviceInfo d = test::h100();
  // A part that differs from the shipped preset in every figure the driver reports.
  d.name = "Imaginary H100 PCIe";
  d.sm_count = 114;
  d.sm_clock_khz = 1755000;
  d.memory_clock_khz = 1593000;
  d.l2_bytes = 40 << 20;
  d.max_blocks_per_sm = 24;
  d.max_threads_per_sm = 1536;
  d.shared_per_sm_bytes = 100 << 10;
  d.shared_per_block_optin_bytes = 99 << 10;
  const std::string text = lab::preset_from_device(d);
  auto cfg = load_text(text, "derived");
  REQUIRE_MESSAGE(cfg, (cfg ? "" : cfg.error().to_string() + "\n" + text));
  auto base = timing::load_config("h100-sxm", lab::config_dir());
  REQUIRE(base);

  // From the device.
  CHECK(cfg->core.sm_count == 114);
  CHECK(cfg->core.clock_mhz == 1755);
  CHECK(cfg->core.max_warps_per_sm == 48);
  CHECK(cfg->core.max_blocks_per_sm == 24);
  CHECK(cfg->core.max_threads_per_block == 1024);
  CHECK(cfg->core.registers_per_sm == 65536);
  CHECK(cfg->core.shared_per_sm == 100 << 10);
  CHECK(cfg->core.shared_per_block_max == 99 << 10);
  CHECK(cfg->l2.size_bytes == 40 << 20);
  CHECK(cfg->dram.bus_bits == 5120);
  CHECK(cfg->dram.data_rate_mtps == 3186);
  // From the base preset (compute 9.0 -> h100-sxm): what no driver reports.
  CHECK(cfg->pipes.fp32.latency == base->pipes.fp32.latency);
  CHECK(cfg->l1.hit_latency == base->l1.hit_latency);
  CHECK(cfg->l2.hit_latency == base->l2.hit_latency);
  CHECK(cfg->dram.latency == base->dram.latency);
  CHECK(cfg->dram.t_faw == base->dram.t_faw);
}

TEST_CASE("510 the H100's own figures reproduce the shipped preset's") {
  auto cfg = load_text(lab::preset_from_device(test::h100()), "h100");
  REQUIRE_MESSAGE(cfg, (cfg ? "" : cfg.error().to_string()));
  auto base = timing::load_config("h100-sxm", lab::config_dir());
  REQUIRE(base);
  CHECK(cfg->core.sm_count == base->core.sm_count);
  CHECK(cfg->core.clock_mhz == base->core.clock_mhz);
  CHECK(cfg->core.max_warps_per_sm == base->core.max_warps_per_sm);
  CHECK(cfg->core.shared_per_sm == base->core.shared_per_sm);
  CHECK(cfg->core.shared_per_block_max == base->core.shared_per_block_max);
  CHECK(cfg->l2.size_bytes == base->l2.size_bytes);
  CHECK(cfg->dram.data_rate_mtps == base->dram.data_rate_mtps);
  CHECK(cfg->peak_dram_bytes_per_cycle() == doctest::Approx(base->peak_dram_bytes_per_cycle()));
}
