// Distributed shared memory (DSMEM) and the cluster barrier in time.
//
// Hardware (H100): the blocks of a cluster run on SMs of one GPC, joined by an SM-to-SM network.
// A load from another block's shared memory (ld.shared::cluster at a mapa address) leaves the SM
// like a global load, crosses that network to the owning SM's shared memory and comes back. On the
// H100 (measured: scripts/microbench/cluster.cu, h100-cluster-2026-11-26.tsv): a dependent remote
// load takes 218.9 cycles a step against 34.4 for the block's own shared memory (Luo et al.,
// "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture", 2024, publish about 200
// against 33); remote stores move 9-10 bytes per SM cycle in clusters of 4 and 8 (18 in pairs). A
// barrier.cluster releases its waiters a fixed time after the last thread of the cluster arrived
// (a round trip through the GPC's synchronisation hardware); .release on the arrive first waits
// for the warp's earlier stores to complete, as a fence does.
//
// Modelled: a remote access (the functional executor resolved it to another block:
// Space::SharedCluster) holds the SM's DSMEM port for bytes / remote_bytes_per_cycle cycles and
// its data is back remote_latency cycles after it left; a remote store or atomic counts toward
// the warp's outstanding stores. A barrier.cluster.wait whose phase completed at cycle T lets its
// warp go on at max(now, T + barrier_latency); one whose phase is still running is tried again
// barrier_poll cycles later (the functional executor decides whether it passes: sim/func/
// cluster.h). An access to the block's own shared memory through a cluster address is a plain
// shared access (sm.cpp). Simplified: no contention in the network or at the owning SM's banks
// (only the issuing SM's port); every remote block is the same distance away; one bandwidth and
// one barrier time for every cluster size (the H100's barrier takes 701 cycles for 1 block to
// 871 for 16: configs/h100-sxm.toml). Known gap: the cluster_sync points run a barrier in about
// 400 cycles, not barrier_latency; the H100 takes 900-1400 there.
#pragma once

#include <cstdint>

#include "sim/func/cta.h"
#include "sim/timing/config.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

class DsmemUnit {
 public:
  explicit DsmemUnit(const ClusterConfig& cfg) : cfg_(cfg) {}
  // A remote shared::cluster load, store or atomic issued at `now`: the cycle its data is back
  // (stores and atomics: the cycle it has completed).
  uint64_t access(const func::StepInfo& in, uint64_t now);
  // barrier.cluster issued at `now` (sm.cpp's hook): holds the warp's next fetch (fetch_ready,
  // reason); `drain_until` is when its earlier stores complete.
  void hold(const func::StepInfo& in, uint64_t now, uint64_t drain_until, uint64_t& fetch_ready,
            WarpState& reason) const;
  uint64_t remote_accesses() const { return accesses_; }
  uint64_t remote_bytes() const { return bytes_; }

 private:
  const ClusterConfig& cfg_;
  double port_free_ = 0;  // the cycle the SM's DSMEM port takes the next request
  uint64_t accesses_ = 0, bytes_ = 0;
};

}  // namespace warplab::timing
