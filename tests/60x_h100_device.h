// The H100 SXM's DeviceInfo as its driver reports it, for tests that need a device without a GPU.
#pragma once

#include "gpu/device.h"

namespace warplab::test {

// The H100 SXM as its driver reports it (shared/reference/gpu-measurements.md).
inline gpu::DeviceInfo h100() {
  gpu::DeviceInfo d;
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

}  // namespace warplab::test
