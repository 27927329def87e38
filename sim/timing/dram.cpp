// DRAM: see dram.h.
#include "sim/timing/dram.h"

#include <algorithm>
#include <cmath>

namespace warplab::timing {

Dram::Dram(const GpuConfig& c)
    : channel_free_(c.dram.channels, 0.0),
      cycles_per_byte_(double(c.dram.channels) /
                       (c.peak_dram_bytes_per_cycle() * c.dram.efficiency)),
      latency_(c.dram.latency), interleave_(std::max<int64_t>(1, c.dram.interleave_bytes)) {}

double Dram::occupy(uint64_t address, uint32_t bytes, uint64_t now) {
  // 1. Pick the channel by interleaved address (hashed so power-of-two strides spread out).
  const uint64_t chunk = address / interleave_;
  const uint64_t ch = (chunk ^ (chunk >> 7) ^ (chunk >> 13)) % channel_free_.size();
  // 2. Wait for the channel, then hold it for the transfer.
  const double start = std::max(double(now), channel_free_[ch]);
  channel_free_[ch] = start + bytes * cycles_per_byte_;
  return channel_free_[ch];
}

void Dram::begin_launch() {
  std::fill(channel_free_.begin(), channel_free_.end(), 0.0);
  bytes_read_ = bytes_written_ = 0;
}

uint64_t Dram::read(uint64_t address, uint32_t bytes, uint64_t now) {
  bytes_read_ += bytes;
  return static_cast<uint64_t>(std::ceil(occupy(address, bytes, now))) + latency_;
}

uint64_t Dram::write(uint64_t address, uint32_t bytes, uint64_t now) {
  bytes_written_ += bytes;
  return static_cast<uint64_t>(std::ceil(occupy(address, bytes, now)));
}

}  // namespace warplab::timing
