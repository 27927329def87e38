#include "gpu/preset.h"

#include <cstdio>
#include <fstream>

namespace warplab::gpu {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

std::string line(const char* key, const std::string& value, const char* comment) {
  std::string l = std::string(key) + " = " + value;
  if (l.size() < 36) l.resize(36, ' ');
  return l + " # " + comment + "\n";
}

std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string preset_toml(const DeviceInfo& d) {
  const std::string i = std::to_string(d.driver_version / 1000) + "." +
                        std::to_string((d.driver_version % 1000) / 10);
  std::string s;
  s += "# WarpLab simulator preset derived from " + d.name + " (compute capability " +
       std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + ", CUDA driver " + i +
       ")\n# by `warplab configs --from-gpu`. Sizes and counts come from the driver; latencies\n"
       "# are not reported by it and come from the base preset.\n\n";
  s += "[gpu]\n";
  s += line("name", quoted(d.name), "device name as the driver reports it");
  s += line("compute_capability",
            quoted(std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)), "major.minor");
  s += line("sm_count", std::to_string(d.sm_count), "streaming multiprocessors");
  s += line("clock_mhz", std::to_string(d.sm_clock_khz / 1000), "maximum SM clock, MHz");
  s += "\n[memory]\n";
  s += line("l2_bytes", std::to_string(d.l2_bytes), "L2 cache size, bytes");
  s += line("dram_bytes", std::to_string(d.total_memory_bytes), "device memory, bytes");
  s += line("dram_bus_bits", std::to_string(d.memory_bus_bits), "DRAM interface width, bits");
  s += line("dram_clock_mhz", std::to_string(d.memory_clock_khz / 1000), "peak memory clock, MHz");
  s += line("dram_bandwidth_gbps", num(d.dram_bandwidth_gbps()),
            "peak: bus bits / 8 x clock x 2 (DDR), GB/s");
  s += "\n[sm]\n";
  s += line("max_warps", std::to_string(d.max_warps_per_sm()), "resident warps per SM");
  s += line("max_threads", std::to_string(d.max_threads_per_sm), "resident threads per SM");
  s += line("max_blocks", std::to_string(d.max_blocks_per_sm), "resident blocks per SM");
  s += line("registers", std::to_string(d.registers_per_sm), "32-bit registers per SM");
  s += line("shared_bytes", std::to_string(d.shared_per_sm_bytes), "shared memory per SM, bytes");
  s += line("shared_per_block_bytes", std::to_string(d.shared_per_block_optin_bytes),
            "largest shared allocation of one block (opt-in), bytes");
  s += line("warp_size", std::to_string(d.warp_size), "threads per warp");
  return s;
}

Status write_preset(const DeviceInfo& info, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{path, 0, "cannot open for writing"};
  out << preset_toml(info);
  out.close();
  if (!out) return Error{path, 0, "write failed"};
  return Ok{};
}

}  // namespace warplab::gpu
