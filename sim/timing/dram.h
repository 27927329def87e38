// DRAM: the GPU's main memory (HBM on the H100), reached on an L2 miss.
//
// Hardware: HBM stacks sit beside the GPU die. Each stack has many independent (pseudo-)channels,
// and addresses are interleaved across them so a stream keeps them all busy. Inside a channel the
// cells sit in banks; a bank reads a whole row (about 1 KiB) into its row buffer before any
// column of it can be read ("activate", waiting tRCD), and must write it back ("precharge",
// waiting tRP) before another row of the same bank can be opened. So an access to the row that is
// already open (a row hit) costs only the transfer, while one to another row (a row miss) pays
// tRP + tRCD first. Activations also draw current, so a channel allows at most one every tRRD and
// four in any tFAW window. A stream reads each row it opens from end to end and hardly notices;
// a large stride opens a new row for every 32 or 64 bytes and becomes limited by how fast the
// channel can activate rows, not by its bus.
//
// Modelled, per channel: the data bus (a request holds it for bytes / channel bandwidth, the
// bandwidth scaled by `efficiency` for refresh and read/write turnarounds), `banks` banks with one
// open row each (open-page policy), row hit / closed bank (tRCD) / row miss (tRP + tRCD) timing,
// the tRRD and four-activation tFAW limits, and a fixed `latency` on top of a read for the way
// through the controller, the PHY and back. Address mapping: the channel is picked per
// `interleave_bytes` chunk (hashed, so power-of-two strides spread out); within a channel,
// consecutive chunks fill a row of `row_bytes`, and the bank comes from the row number XOR-hashed
// with its higher bits, so buffers at aligned offsets (x[i], y[i]) do not fight over one bank.
// Queue depth (`queue_half` > 0): a real controller reorders its queue (FR-FCFS: row hits first,
// reads and writes batched), so the more requests it holds, the fewer bus cycles it loses to
// turnarounds and row switches. Modelled on the bus alone: a transfer runs at the full rate, then
// the bus stays idle for the waste, sized so that with q transfers booked ahead on the channel it
// sustains efficiency * (q + 1) / (q + 1 + queue_half). A lone request (a pointer chase) pays
// nothing; a channel with a short queue (few warps in flight) loses more than one with a long
// queue. Calibrated on the H100's occupancy curve (lessons/03-block-size/occupancy.toml).
// Simplified: reads are served in arrival order per bank (no FR-FCFS reordering of row hits
// ahead of older misses). Controllers buffer writes and drain them in row-sorted batches, so a
// write-back stream does not close the rows a read stream is using: modelled as a second open
// row per bank for writes (they still take the bank, the bus and activations). No refresh
// (folded into `efficiency`), no tRAS, tWR or bank groups; nobody waits for a write.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "sim/timing/config.h"

namespace warplab::timing {

struct DramCounters {
  uint64_t row_hits = 0;    // accesses to the open row of their bank
  uint64_t row_empty = 0;   // accesses to a closed bank (activate only)
  uint64_t row_misses = 0;  // accesses to a bank with another row open (precharge + activate)
  uint64_t activations() const { return row_empty + row_misses; }
};

class Dram {
 public:
  explicit Dram(const GpuConfig& config);
  // Reads `bytes` at `address`, requested at cycle `now`: returns the cycle the data is back at
  // the L2 (latency, row timing and queueing included, not the L2's own latency).
  uint64_t read(uint64_t address, uint32_t bytes, uint64_t now);
  // Writes back `bytes` (consumes bandwidth and row activations; returns the cycle it completes).
  uint64_t write(uint64_t address, uint32_t bytes, uint64_t now);
  // Writes back `bytes` of which `partial` were only partly written: those are read first and
  // merged (a read-modify-write). The write drain does both, in its own row, so write-backs of
  // neighbouring lines share row activations as plain writes do.
  uint64_t write_merging(uint64_t address, uint32_t bytes, uint32_t partial, uint64_t now);

  // A new launch: cycles count from 0 again, every bank is precharged (closed), counters restart.
  void begin_launch();

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }
  // Bandwidth over time (the trace's counter samples): with tracking on, bytes_delivered(c) is
  // the bytes the data buses had moved by cycle c: transfers that finished, and the part of each
  // one in progress. A request is booked when it is made but moves on the bus later, so counting
  // bytes when booked would show rates above the bus's peak. Calls must come with c ascending.
  void track_deliveries(bool on) { track_ = on; }
  uint64_t bytes_delivered(uint64_t cycle);
  const DramCounters& counters() const { return counters_; }

  // Where an address lives (exposed for tests and the UI's memory panel).
  struct Location {
    uint32_t channel = 0, bank = 0;
    uint64_t row = 0;  // row number within the channel (unique per bank)
  };
  Location locate(uint64_t address) const;

 private:
  static constexpr uint64_t kClosed = ~uint64_t{0};
  static constexpr double kNever = -1e18;
  static constexpr int kFawActivations = 4;  // the "four" of the four-activation window
  struct Bank {
    uint64_t open_row = kClosed;   // the row reads find open
    uint64_t write_row = kClosed;  // the row the write drain last opened (see access())
    double free = 0;               // cycle the bank can take its next command
  };
  struct Channel {
    double bus_free = 0;  // cycle (fractional) the data bus is free again
    // tFAW as four activation tokens: each activation takes the token free earliest and holds it
    // for t_faw, so no window of t_faw cycles holds more than four activations, whatever order
    // the requests are booked in. kNever: not used yet.
    std::array<double, kFawActivations> act_free{kNever, kNever, kNever, kNever};
  };
  double activate(Channel& ch, double t);  // the cycle an activation wanted at `t` can happen
  double access(uint64_t address, uint32_t bytes, uint64_t now, bool write);
  void book(double start, double end, uint32_t bytes);  // a transfer on a bus (tracking on)

  std::vector<Channel> channels_;
  std::vector<Bank> banks_;      // channel-major: channel * banks + bank
  double cycles_per_byte_;       // per channel
  double peak_cycles_per_byte_;  // per channel, at efficiency 1 (queue_half > 0)
  double queue_half_;
  uint64_t latency_, interleave_, row_bytes_, banks_per_channel_;
  double t_rcd_, t_rp_, t_rrd_, t_faw_;
  uint64_t bytes_read_ = 0, bytes_written_ = 0;
  struct Transfer {
    double start = 0;
    uint32_t bytes = 0;
  };
  bool track_ = false;
  std::multimap<double, Transfer> transfers_;  // by the cycle each transfer ends
  double longest_ = 0;                         // longest transfer booked (cycles)
  uint64_t delivered_ = 0;                     // bytes of transfers already ended
  DramCounters counters_;
};

}  // namespace warplab::timing
