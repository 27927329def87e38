// DRAM: the GPU's main memory (HBM on the H100), reached on an L2 miss.
//
// Hardware: HBM stacks sit beside the GPU die, with many independent channels; addresses are
// interleaved across channels so a stream keeps them all busy. Each access pays a long latency
// (hundreds of cycles), and the total rate is capped by the bus: bus width x transfer rate. Real
// streams reach ~80-90% of that peak (refresh, row switches, read/write turnarounds).
//
// Modelled: per-channel bandwidth queues (a request waits until its channel is free, then holds it
// for bytes / channel bandwidth), a fixed latency on top, the sustained fraction of peak as one
// `efficiency` number, bytes read and written.
// Simplified: no banks, rows or refresh; writes cost bandwidth but nobody waits for them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timing/config.h"

namespace warplab::timing {

class Dram {
 public:
  explicit Dram(const GpuConfig& config);
  // Reads `bytes` at `address`, requested at cycle `now`: returns the cycle the data is back at
  // the L2 (latency and queueing included, not the L2's own latency).
  uint64_t read(uint64_t address, uint32_t bytes, uint64_t now);
  // Writes back `bytes` (consumes bandwidth; returns the cycle the write completes).
  uint64_t write(uint64_t address, uint32_t bytes, uint64_t now);

  // A new launch: cycles count from 0 again and the byte counters restart.
  void begin_launch();

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  double occupy(uint64_t address, uint32_t bytes, uint64_t now);
  std::vector<double> channel_free_;   // cycle (fractional) each channel is free again
  double cycles_per_byte_;             // per channel
  uint64_t latency_, interleave_;
  uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace warplab::timing
