// DRAM: see dram.h.
#include "sim/timing/dram.h"

#include <algorithm>
#include <cmath>

namespace warplab::timing {

Dram::Dram(const GpuConfig& c)
    : channels_(c.dram.channels),
      banks_(c.dram.channels * std::max<int64_t>(1, c.dram.banks)),
      cycles_per_byte_(double(c.dram.channels) /
                       (c.peak_dram_bytes_per_cycle() * c.dram.efficiency)),
      peak_cycles_per_byte_(double(c.dram.channels) / c.peak_dram_bytes_per_cycle()),
      queue_half_(c.dram.queue_half),
      latency_(c.dram.latency),
      interleave_(std::max<int64_t>(1, c.dram.interleave_bytes)),
      row_bytes_(std::max<int64_t>(1, c.dram.row_bytes)),
      banks_per_channel_(std::max<int64_t>(1, c.dram.banks)),
      t_rcd_(double(c.dram.t_rcd)),
      t_rp_(double(c.dram.t_rp)),
      t_rrd_(double(c.dram.t_rrd)),
      t_faw_(double(c.dram.t_faw)) {}

Dram::Location Dram::locate(uint64_t address) const {
  // 1. Channel by interleaved chunk, hashed so that power-of-two strides spread out.
  const uint64_t chunk = address / interleave_;
  Location l;
  l.channel = static_cast<uint32_t>((chunk ^ (chunk >> 7) ^ (chunk >> 13)) % channels_.size());
  // 2. Within the channel, consecutive chunks fill a row; the row number picks the bank, XORed
  //    with higher row bits (permutation interleaving) so aligned buffers land in different banks.
  const uint64_t local = (chunk / channels_.size()) * interleave_ + address % interleave_;
  l.row = local / row_bytes_;
  l.bank = static_cast<uint32_t>((l.row ^ (l.row >> 5) ^ (l.row >> 11)) % banks_per_channel_);
  return l;
}

double Dram::activate(Channel& ch, double t) {
  // 1. tFAW: the token that is free first.
  auto token = std::min_element(ch.act_free.begin(), ch.act_free.end());
  double a = std::max(t, *token);
  // 2. tRRD: move past any booked activation closer than t_rrd (at most four to check, so at
  //    most four moves; each move goes later, so the loop ends).
  for (bool moved = true; moved;) {
    moved = false;
    for (double f : ch.act_free) {
      const double other = f - t_faw_;
      if (f != kNever && other > a - t_rrd_ && other < a + t_rrd_) {
        a = other + t_rrd_;
        moved = true;
      }
    }
  }
  *token = a + t_faw_;
  return a;
}

double Dram::access(uint64_t address, uint32_t bytes, uint64_t now, bool write) {
  const Location loc = locate(address);
  Channel& ch = channels_[loc.channel];
  Bank& bank = banks_[loc.channel * banks_per_channel_ + loc.bank];
  // 1. Wait for the bank to finish its previous access.
  double t = std::max(double(now), bank.free);
  uint64_t& open_row = write ? bank.write_row : bank.open_row;  // writes: the drain's own row
  if (open_row == loc.row) {
    ++counters_.row_hits;
  } else {
    // 2. Row miss: precharge the open row (tRP), then activate the new one when the channel's
    //    tRRD and tFAW limits allow (activate()); its columns can be read tRCD later.
    if (open_row == kClosed) {
      ++counters_.row_empty;
    } else {
      ++counters_.row_misses;
      t += t_rp_;
    }
    t = activate(ch, t);
    open_row = loc.row;
    t += t_rcd_;
  }
  // 3. The column access: wait for the channel's data bus, then hold it for the transfer.
  const double start = std::max(t, ch.bus_free);
  if (queue_half_ <= 0) {
    ch.bus_free = start + bytes * cycles_per_byte_;
    bank.free = ch.bus_free;
    if (track_) book(start, ch.bus_free, bytes);
    return ch.bus_free;
  }
  // Queue depth: transfers booked ahead of this one on the channel (its backlog in transfers of
  // this size), then the transfer at full speed and the bus's waste after it.
  const double transfer = bytes * peak_cycles_per_byte_;
  const double queued = std::max(0.0, ch.bus_free - double(now)) / transfer;
  const double efficiency = peak_cycles_per_byte_ / cycles_per_byte_;  // the deep-queue figure
  const double eff = efficiency * (queued + 1) / (queued + 1 + queue_half_);
  const double done = start + transfer;
  ch.bus_free = start + transfer / eff;
  bank.free = done;
  if (track_) book(start, ch.bus_free, bytes);
  return done;
}

void Dram::book(double start, double end, uint32_t bytes) {
  transfers_.emplace(end, Transfer{start, bytes});
  longest_ = std::max(longest_, end - start);
}

uint64_t Dram::bytes_delivered(uint64_t cycle) {
  const double c = double(cycle);
  // 1. Transfers that ended by `cycle` are delivered whole.
  while (!transfers_.empty() && transfers_.begin()->first <= c) {
    delivered_ += transfers_.begin()->second.bytes;
    transfers_.erase(transfers_.begin());
  }
  // 2. Transfers on the bus at `cycle` (they end within the longest transfer): their share.
  double part = 0;
  for (auto it = transfers_.begin(); it != transfers_.end() && it->first <= c + longest_; ++it)
    if (it->second.start < c)
      part += it->second.bytes * (c - it->second.start) / (it->first - it->second.start);
  return delivered_ + static_cast<uint64_t>(part);
}

void Dram::begin_launch() {
  std::fill(channels_.begin(), channels_.end(), Channel{});
  std::fill(banks_.begin(), banks_.end(), Bank{});
  bytes_read_ = bytes_written_ = 0;
  counters_ = DramCounters{};
  transfers_.clear();
  longest_ = 0;
  delivered_ = 0;
}

uint64_t Dram::read(uint64_t address, uint32_t bytes, uint64_t now) {
  bytes_read_ += bytes;
  return static_cast<uint64_t>(std::ceil(access(address, bytes, now, false))) + latency_;
}

uint64_t Dram::write(uint64_t address, uint32_t bytes, uint64_t now) {
  bytes_written_ += bytes;
  return static_cast<uint64_t>(std::ceil(access(address, bytes, now, true)));
}

uint64_t Dram::write_merging(uint64_t address, uint32_t bytes, uint32_t partial, uint64_t now) {
  // Both are booked now: the channel's bus takes them one after the other.
  if (partial > 0) {
    bytes_read_ += partial;
    access(address, partial, now, true);
  }
  return write(address, bytes, now);
}

}  // namespace warplab::timing
