#include "gpu/device.h"

#include <cstdio>

namespace warplab::gpu {

namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

std::string kib(int bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace

std::string describe(const DeviceInfo& d) {
  std::string s;
  s += d.name + " (compute capability " + std::to_string(d.cc_major) + "." +
       std::to_string(d.cc_minor) + "), device " + std::to_string(d.ordinal) + "\n";
  s += "  driver:          CUDA " + std::to_string(d.driver_version / 1000) + "." +
       std::to_string((d.driver_version % 1000) / 10) + "\n";
  s += "  SMs:             " + std::to_string(d.sm_count) + " at " +
       format("%.0f MHz", d.sm_clock_khz / 1000.0) + " (max)\n";
  s += "  memory:          " + format("%.1f GiB", d.total_memory_bytes / double(1ull << 30)) +
       ", " + std::to_string(d.memory_bus_bits) + "-bit bus at " +
       format("%.0f MHz", d.memory_clock_khz / 1000.0) + " -> " +
       format("%.0f GB/s peak", d.dram_bandwidth_gbps()) + "\n";
  s += "  L2:              " + kib(d.l2_bytes) + "\n";
  s += "  shared memory:   " + kib(d.shared_per_sm_bytes) + " per SM, " +
       kib(d.shared_per_block_bytes) + " per block (" + kib(d.shared_per_block_optin_bytes) +
       " opt-in)\n";
  s += "  registers:       " + std::to_string(d.registers_per_sm) + " per SM, " +
       std::to_string(d.registers_per_block) + " per block\n";
  s += "  threads / warps: " + std::to_string(d.max_threads_per_sm) + " / " +
       std::to_string(d.max_warps_per_sm()) + " per SM, " +
       std::to_string(d.max_threads_per_block) + " per block, " +
       std::to_string(d.max_blocks_per_sm) + " blocks per SM\n";
  return s;
}

}  // namespace warplab::gpu
