#include "lab/presets.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "lab/install_dirs.h"

namespace warplab::lab {
namespace fs = std::filesystem;

std::string config_dir() {
  // Beside the executable before the source tree compiled in, so that an installed (or moved)
  // prefix reads its own presets (lab/install_dirs.h).
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("WARPLAB_CONFIG_DIR"); env && *env)
    candidates.emplace_back(env);
  for (const fs::path& root : resource_roots()) candidates.push_back(root / "configs");
  std::error_code ec;
  candidates.emplace_back(fs::current_path(ec) / "configs");
  candidates.emplace_back(timing::default_config_dir());
  for (const fs::path& p : candidates)
    if (fs::exists(p / "h100-sxm.toml", ec)) return p.string();
  return "";
}

Expected<std::shared_ptr<const timing::GpuConfig>> load_gpu_config(
    const std::string& name_or_path) {
  const std::string dir = config_dir();
  const std::string name = name_or_path.empty() ? "h100-sxm" : name_or_path;
  if (dir.empty() && name.find('/') == std::string::npos &&
      !(name.size() > 5 && name.substr(name.size() - 5) == ".toml"))
    return Error{"", 0,
                 "GPU config '" + name +
                     "': no preset directory found (set WARPLAB_CONFIG_DIR "
                     "to the configs/ folder of the source tree)"};
  auto cfg = timing::load_config(name, dir);
  if (!cfg) return cfg.error();
  return std::make_shared<const timing::GpuConfig>(std::move(*cfg));
}

std::string preset_from_device(const gpu::DeviceInfo& d) {
  const char* base = d.cc_major >= 9 ? "h100-sxm" : "a100-sxm";
  char b[160];
  std::string s;
  auto line = [&](const std::string& key, const std::string& value, const std::string& comment) {
    std::string l = key + " = " + value;
    if (l.size() < 36) l.resize(36, ' ');
    s += l + "# " + comment + "\n";
  };
  std::string name;
  for (char c : d.name)
    name += (std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '-');
  s += "# Derived from the GPU in this machine by `warplab configs --from-gpu`: " + d.name +
       " (compute " + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) +
       ").\n# Sizes and counts come from the driver (cuDeviceGetAttribute); latencies and "
       "pipelines,\n"
       "# which no driver reports, are those of the base preset.\n";
  line("base", "\"" + std::string(base) + "\"", "preset this one starts from");
  line("name", "\"" + name + "\"", "preset name");
  std::snprintf(
      b, sizeof b, "\"%s: %d SMs at %d MHz, %d MiB L2, %.0f GB/s DRAM (from the driver)\"",
      d.name.c_str(), d.sm_count, d.sm_clock_khz / 1000, d.l2_bytes >> 20, d.dram_bandwidth_gbps());
  line("description", b, "one line for `warplab configs`");
  s += "\n[core]\n";
  line("sm_count", std::to_string(d.sm_count), "streaming multiprocessors");
  line("clock_mhz", std::to_string(d.sm_clock_khz / 1000), "maximum SM clock, MHz");
  line("max_warps_per_sm", std::to_string(d.max_warps_per_sm()), "resident warps per SM");
  line("max_blocks_per_sm", std::to_string(d.max_blocks_per_sm), "resident blocks per SM");
  line("max_threads_per_block", std::to_string(d.max_threads_per_block), "threads per block");
  line("registers_per_sm", std::to_string(d.registers_per_sm), "32-bit registers per SM");
  line("shared_per_sm", std::to_string(d.shared_per_sm_bytes), "shared memory per SM, bytes");
  line("shared_per_block_max", std::to_string(d.shared_per_block_optin_bytes),
       "largest block allocation (opt-in), bytes");
  s += "\n[l2]\n";
  line("size_bytes", std::to_string(d.l2_bytes), "L2 cache, bytes");
  s += "\n[dram]\n";
  line("bus_bits", std::to_string(d.memory_bus_bits), "DRAM interface width, bits");
  line("data_rate_mtps", std::to_string(d.memory_clock_khz / 1000 * 2),
       "memory clock x 2 (double data rate), MT/s per pin");
  return s;
}

}  // namespace warplab::lab
