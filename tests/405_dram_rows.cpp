// DRAM banks and rows at exact cycle edges: a row hit costs the transfer, a closed bank adds
// t_rcd, a row miss t_rp + t_rcd; activations are spaced by t_rrd and at most four per t_faw.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "sim/timing/dram.h"

using namespace warplab::timing;

namespace {
// One channel, 32 bytes per cycle at efficiency 1 (64 bytes = 2 cycles on the bus), 8 banks of
// 1 KiB rows: address / 1024 is the row, rows 0..7 sit in banks 0..7, row 8 in bank 0 again.
GpuConfig small_dram() {
  GpuConfig c;
  c.core.clock_mhz = 1000;
  c.dram.bus_bits = 256;
  c.dram.data_rate_mtps = 1000;
  c.dram.efficiency = 1.0;
  c.dram.channels = 1;
  c.dram.interleave_bytes = 256;
  c.dram.banks = 8;
  c.dram.row_bytes = 1024;
  c.dram.latency = 100;
  c.dram.t_rcd = 10;
  c.dram.t_rp = 12;
  c.dram.t_rrd = 3;
  c.dram.t_faw = 20;
  return c;
}
constexpr uint64_t kTransfer64 = 2;  // cycles for 64 bytes on the bus
}  // namespace

TEST_CASE("405 the address map: rows fill a channel's chunks, banks by row") {
  const GpuConfig c = small_dram();
  Dram d(c);
  CHECK(d.locate(0).row == 0);
  CHECK(d.locate(1023).row == 0);
  CHECK(d.locate(1024).row == 1);
  CHECK(d.locate(1024).bank == 1);
  CHECK(d.locate(8 * 1024).bank == 0);
  CHECK(d.locate(8 * 1024).row == 8);
}

TEST_CASE(
    "405 a closed bank adds t_rcd, a row hit costs only the transfer, a row miss t_rp + t_rcd") {
  const GpuConfig c = small_dram();
  Dram d(c);
  const uint64_t hit = kTransfer64 + c.dram.latency;  // X: the row-hit latency on an idle channel
  // 1. Cold: the bank is closed, so it activates first.
  CHECK(d.read(0, 64, 1000) == 1000 + c.dram.t_rcd + hit);
  // 2. Same row, channel idle again: a row hit, exactly X.
  CHECK(d.read(64, 64, 2000) == 2000 + hit);
  CHECK(d.read(512, 64, 2500) == 2500 + hit);
  // 3. Another row of the same bank (row 8, bank 0): precharge, activate, then the transfer.
  CHECK(d.read(8 * 1024, 64, 3000) == 3000 + hit + c.dram.t_rp + c.dram.t_rcd);
  // 4. Going back is a miss again; a second access to the now-open row is a hit.
  CHECK(d.read(0, 64, 4000) == 4000 + hit + c.dram.t_rp + c.dram.t_rcd);
  CHECK(d.read(128, 64, 5000) == 5000 + hit);
  CHECK(d.counters().row_empty == 1);
  CHECK(d.counters().row_misses == 2);
  CHECK(d.counters().row_hits == 3);
  CHECK(d.counters().activations() == 3);
  // 5. Writes are drained in batches with their own open row per bank: the first write to a
  //    bank opens it (t_rcd), the next write to that row is a hit, and the reads' row stays open.
  CHECK(d.write(8 * 1024, 64, 6000) == 6000 + kTransfer64 + c.dram.t_rcd);
  CHECK(d.write(8 * 1024 + 64, 64, 7000) == 7000 + kTransfer64);
  CHECK(d.read(192, 64, 8000) == 8000 + hit);
}

TEST_CASE("405 one cycle earlier is not enough: a hit waits for the bus, a miss for its bank") {
  const GpuConfig c = small_dram();
  Dram d(c);
  d.read(0, 64, 0);  // activates row 0 at 0, bus busy [10, 12)
  // Same cycle, same row: the second transfer follows the first on the bus.
  CHECK(d.read(64, 64, 0) == 12 + kTransfer64 + c.dram.latency);
  // A miss in the same bank cannot precharge before the bank's last transfer ends (14).
  CHECK(d.read(8 * 1024, 64, 0) == 14 + c.dram.t_rp + c.dram.t_rcd + kTransfer64 + c.dram.latency);
}

TEST_CASE("405 activations: t_rrd apart, and a fifth within t_faw waits for the window") {
  const GpuConfig c = small_dram();
  Dram d(c);
  // Five reads to five closed banks, all at cycle 0.
  std::vector<uint64_t> back;
  for (uint64_t row = 0; row < 5; ++row) back.push_back(d.read(row * 1024, 64, 0));
  const uint64_t tail = c.dram.t_rcd + kTransfer64 + c.dram.latency;
  CHECK(back[0] == 0 + tail);                       // activates at 0
  CHECK(back[1] == uint64_t(c.dram.t_rrd) + tail);  // at 3: t_rrd after the first
  CHECK(back[2] == 2 * uint64_t(c.dram.t_rrd) + tail);
  CHECK(back[3] == 3 * uint64_t(c.dram.t_rrd) + tail);
  CHECK(back[4] == uint64_t(c.dram.t_faw) + tail);  // not at 12: four already in [0, 20)
  CHECK(d.counters().activations() == 5);
}

TEST_CASE("405 streaming opens each row once; a row-sized stride opens one per access") {
  const GpuConfig c = small_dram();
  Dram stream(c), strided(c);
  uint64_t last_stream = 0, last_strided = 0;
  for (uint64_t i = 0; i < 256; ++i) {
    last_stream = std::max(last_stream, stream.read(i * 64, 64, 0));            // 16 KiB
    last_strided = std::max(last_strided, strided.read(i * 4 * 1024, 64, 0));  // 1 MiB
  }
  CHECK(stream.counters().activations() == 16);  // 16 KiB / 1 KiB rows
  CHECK(strided.counters().activations() == 256);
  // The same bytes take far longer when every access opens a row: the activation rate
  // (four per t_faw: 5 cycles each here) bounds it, not the bus (2 cycles per access).
  CHECK(last_strided > 2 * last_stream);
  CHECK(last_strided >= 255 * uint64_t(c.dram.t_faw) / 4);
}

TEST_CASE("405 a new launch precharges every bank and restarts the clock") {
  const GpuConfig c = small_dram();
  Dram d(c);
  d.read(0, 64, 0);
  d.begin_launch();
  CHECK(d.counters().activations() == 0);
  CHECK(d.read(64, 64, 0) == c.dram.t_rcd + kTransfer64 + c.dram.latency);  // closed again
  CHECK(d.counters().row_empty == 1);
}

TEST_CASE("405 queue_half: a lone transfer runs at full speed, the bus waste shrinks as the queue grows") {
  // efficiency 1, queue_half 1: with q transfers booked ahead the bus sustains (q+1)/(q+2).
  GpuConfig c = small_dram();
  c.dram.queue_half = 1;
  Dram d(c);
  // 1. Open row 0 (t_rcd), then idle: a row hit alone takes exactly the transfer (2 cycles), but
  //    holds the bus for 2 / (1/2) = 4 cycles.
  CHECK(d.read(0, 64, 0) == c.dram.t_rcd + kTransfer64 + c.dram.latency);  // bus free at 10 + 4
  CHECK(d.read(64, 64, 1000) == 1000 + kTransfer64 + c.dram.latency);      // bus free at 1004
  // 2. Booked at 1000 too: waits for the bus (1004); 4 cycles = 2 transfers are queued ahead, so
  //    it sustains 3/4: done at 1006, bus free at 1004 + 2 / (3/4) = 1006.67.
  CHECK(d.read(128, 64, 1000) == 1006 + c.dram.latency);
  // 3. Next, still at 1000: backlog 6.67 cycles = 3.33 transfers, efficiency 4.33/5.33: starts at
  //    1006.67, done at 1008.67, reported at the next whole cycle.
  CHECK(d.read(192, 64, 1000) == 1009 + c.dram.latency);
  // 4. queue_half = 0 keeps the constant efficiency: back-to-back hits every 2 cycles exactly.
  GpuConfig k = small_dram();
  Dram e(k);
  e.read(0, 64, 0);
  CHECK(e.read(64, 64, 1000) == 1000 + kTransfer64 + k.dram.latency);
  CHECK(e.read(128, 64, 1000) == 1000 + 2 * kTransfer64 + k.dram.latency);
}
