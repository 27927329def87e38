// What the driver says about the GPU: the facts a simulator preset is made of.
//
// A GPU is a set of streaming multiprocessors (SMs) sharing an L2 cache and a DRAM interface.
// Each SM holds a register file, shared memory and a limit on resident warps and blocks; these
// limits decide occupancy. The SM clock sets how many cycles a microsecond holds; bus width times
// memory clock times 2 (HBM transfers on both clock edges) gives peak DRAM bandwidth. All of this
// is read with cuDeviceGetAttribute: nothing is hard-coded per model.
#pragma once

#include <cstdint>
#include <string>

namespace warplab::gpu {

struct DeviceInfo {
  int ordinal = 0;                       // CUDA device index
  std::string name;                      // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;        // compute capability (9.0 = Hopper)
  int driver_version = 0;                // CUDA_VERSION style: 13000 = CUDA 13.0
  uint64_t total_memory_bytes = 0;       // device memory
  int sm_count = 0;                      // streaming multiprocessors
  int sm_clock_khz = 0;                  // maximum SM clock, kHz
  int memory_clock_khz = 0;              // peak memory clock, kHz
  int memory_bus_bits = 0;               // DRAM interface width, bits
  int l2_bytes = 0;                      // L2 cache, bytes
  int shared_per_sm_bytes = 0;           // shared memory per SM, bytes
  int shared_per_block_bytes = 0;        // default per-block limit (48 KiB), bytes
  int shared_per_block_optin_bytes = 0;  // per-block limit after opting in, bytes
  int registers_per_sm = 0;              // 32-bit registers per SM
  int registers_per_block = 0;           // 32-bit registers per block
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 32;

  int max_warps_per_sm() const { return warp_size ? max_threads_per_sm / warp_size : 0; }
  // bus width / 8 x memory clock x 2 (double data rate), in GB/s (1e9 bytes per second).
  double dram_bandwidth_gbps() const {
    return memory_bus_bits / 8.0 * memory_clock_khz * 1e3 * 2.0 / 1e9;
  }
};

// A readable, multi-line description ("NVIDIA H100 80GB HBM3 (compute 9.0), 132 SMs at 1980 MHz,
// ..."), one fact per line, as `warplab` prints it.
std::string describe(const DeviceInfo& info);

}  // namespace warplab::gpu
