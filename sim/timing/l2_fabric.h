// The link between the L2's two partitions (Hopper's "L2 fabric").
//
// Hardware: the H100's L2 is two partitions, each attached to half of the GPCs and half of the
// memory controllers. A line has one home partition (the point of coherence, by address hash).
// An SM's request goes to the partition near its GPC; for a line homed in the other one it
// crosses the link between them: a store's data always (it must reach the home), a read's data
// when the near partition holds no copy yet (the near partition keeps copies of far lines it
// read, so L2-resident data read again does not cross). Nsight Compute counts such a request in
// both partitions: a cold streaming read or a store of N sectors shows about 1.5 N L2 sectors
// (lts__t_sectors_op_read/write), half the lines twice. The link's bandwidth is shared by all
// crossing traffic in each direction, so a kernel that both reads cold data and writes (a copy)
// can be bound by it where its reads alone (DRAM-bound) and its writes alone are not.
//
// Modelled: each direction of the link is one queue with a rate of l2.fabric_bytes_per_cycle
// (SM cycles); a crossing books its bytes there in arrival order and waits for the queue. Which
// requests cross: the L2 model does not know the requesting SM, so a line counts as far for a
// fixed half of the lines (a hash bit of the line number, independent of the slice hash); its
// home partition is its slice's (even / odd slice numbers). A store of a far line crosses toward
// its home; a read of a far line crosses from its home when its sectors come from DRAM (misses).
// Simplified: no crossing latency of its own (the measured L2 hit latency is an average over
// near and far lines); reads of far lines that hit in the L2 never cross (the near copy is
// assumed present); atomics never cross.
#pragma once

#include <cstdint>

namespace warplab::timing {

class L2Fabric {
 public:
  // `bytes_per_cycle`: each direction's rate; 0: no link modelled (cross() returns `now`).
  explicit L2Fabric(double bytes_per_cycle = 0) : bytes_per_cycle_(bytes_per_cycle) {}

  bool enabled() const { return bytes_per_cycle_ > 0; }
  // Whether a request for `line` crosses the link (the line is far from the requester).
  static bool far(uint64_t line);
  // `bytes` crossing toward partition `to` (0 or 1), arriving at `now`: the cycle the last byte
  // has crossed (the queue's wait plus the transfer).
  uint64_t cross(int to, uint64_t bytes, uint64_t now);
  void begin_launch() { free_[0] = free_[1] = 0; }

 private:
  double bytes_per_cycle_;
  double free_[2] = {0, 0};  // per direction (toward partition 0, 1): when the link is free
};

}  // namespace warplab::timing
