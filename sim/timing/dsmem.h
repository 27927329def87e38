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
// shared access (sm.cpp).
// The barrier's time grows with the cluster and with the warps on the SM. In the SASS every warp's
// arrive.release is MEMBAR.ALL.GPU + CGAERRBAR + UCGABAR_ARV and its wait UCGABAR_WAIT + CCTL.IVALL
// (cg::this_cluster().sync() emits the same), and the arrival travels up the GPC's synchronisation
// tree: on the H100 (scripts/microbench/cluster_barrier.cu, h100-cluster-barrier-2026-11-27.tsv,
// with h100-cluster-2026-11-26.tsv) one barrier takes 742 cycles for 1 block of 1 warp, 818 for 8
// blocks; 827 and 979 with 8 warps a block; 4 warps cost what 1 does. What counts is the warps on
// the SM, not the block's: where two blocks of 8 warps share an SM (clusters of 4 and 8 on the
// H100's small GPC, block_scheduler.h) their clusters take 1266 and 1260 cycles a barrier against
// 871 and 920 for the clusters of the same launch with an SM a block
// (scripts/microbench/cluster_place.cu, h100-cluster-place-2026-11-27.md). A least-squares fit over
// those 24 figures gives 697 + 41 log2(blocks) + 36 max(0, warps on the SM - sub-partitions)
// cycles (2.4% off on average, 6.5% at worst): barrier_latency + barrier_level_latency *
// log2(cluster size) + barrier_warp_latency * (warps on the SM beyond one per sub-partition). Only
// in clusters of 2 or more: in clusters of one block (a barrier that stays in its SM) blocks
// sharing an SM cost each other little (2 to 4 blocks of 1-8 warps: 917-941 cycles, against 1227
// for one block of 16 warps; cluster_place.cu part 2), so there the block's own warps count.
// Measured against one block's warps (clusters of 1, one block an SM): 732-742 cycles for 1-4
// warps, 813 for 8, 1210 for 12, 1227 for 16, 1268 for 24, 1305 for 32: a step between 8 and 12
// warps that the linear term spreads (12 warps: 985 in the model, 24: 1417; the corpus's blocks
// have 8 warps, 16 where two share an SM). The H200 runs the same SASS in about half the time: 333
// + 6 log2(blocks) + 10 per extra warp (h200-cluster-barrier-2026-11-27.tsv), which also gives the
// 465 and 471 cycles a barrier of the H200's c.cluster_sync.c4/c8 with two blocks an SM (measured:
// 467, 472).
// Remote loads (cluster_place.cu, one cluster of 2-8 blocks of 8 warps, each thread 256 loads):
// 12.2 bytes per cycle a block whatever the distance, on the block's own TPC or across it; where
// two blocks share an SM, 6.0 each: the port is the SM's. A dependent remote load takes 181-214
// cycles a step (median 197-202), the same on the TPC or across the GPC.
// Simplified: no contention in the network or at the owning SM's banks (only the issuing SM's
// port); every remote block is the same distance away; one bandwidth for every cluster size.
#pragma once

#include <cstdint>

#include "sim/func/cta.h"
#include "sim/timing/config.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

class DsmemUnit {
 public:
  // `cluster_blocks`: the launch's cluster size; `block_warps`: its warps a block;
  // `sub_partitions`: an SM's warp schedulers. They fix the barrier's latency (see above).
  DsmemUnit(const ClusterConfig& cfg, uint32_t cluster_blocks = 1, uint32_t block_warps = 1,
            uint32_t sub_partitions = 4);
  // The same for a launch of `program` (its cluster shape, or the kernel's; its block's warps).
  DsmemUnit(const ClusterConfig& cfg, const func::LaunchConfig& launch,
            const func::Program& program, int64_t sub_partitions);
  // Cycles from the phase's completion to its waiters going on, with one block on the SM, or
  // with `sm_warps` warps of cluster blocks on it (in clusters of one block: the block's warps).
  uint64_t barrier_latency() const { return barrier_latency_; }
  uint64_t barrier_latency(uint32_t sm_warps) const;
  // A remote shared::cluster load, store or atomic issued at `now`: the cycle its data is back
  // (stores and atomics: the cycle it has completed).
  uint64_t access(const func::StepInfo& in, uint64_t now);
  // barrier.cluster issued at `now` (sm.cpp's hook): holds the warp's next fetch (fetch_ready,
  // reason); `drain_until` is when its earlier stores complete; `sm_warps` the warps resident on
  // the SM (0: the block's own).
  void hold(const func::StepInfo& in, uint64_t now, uint64_t drain_until, uint64_t& fetch_ready,
            WarpState& reason, uint32_t sm_warps = 0) const;
  uint64_t remote_accesses() const { return accesses_; }
  uint64_t remote_bytes() const { return bytes_; }

 private:
  const ClusterConfig& cfg_;
  uint64_t barrier_latency_ = 0;  // with the block's own warps
  uint64_t level_latency_ = 0;    // barrier_latency + the cluster's levels
  uint32_t sub_partitions_ = 4;
  bool clustered_ = false;  // clusters of 2 or more: the SM's warps count
  double port_free_ = 0;    // the cycle the SM's DSMEM port takes the next request
  uint64_t accesses_ = 0, bytes_ = 0;
};

}  // namespace warplab::timing
