// The block scheduler (NVIDIA's "compute work distributor"): hands thread blocks to SMs.
//
// Hardware: when a kernel launches, blocks are dispatched to SMs that have room for them (see
// occupancy.h), in block-index order, spreading the first wave over all SMs; as blocks finish,
// new ones take their place. Dispatching itself takes time: the distributor issues a limited
// number of blocks per cycle, which is why kernels with tiny blocks (32 threads) can run slower
// than the memory system would allow. "Waves" = blocks / (blocks per SM x SMs).
//
// Thread-block clusters (sim/func/cluster.h): all blocks of a cluster start together on SMs of
// one GPC (Graphics Processing Cluster) or wait until they can.
//
// Where the H100 puts clusters (scripts/microbench/cluster_place.cu, h100-cluster-place-
// 2026-11-27.md; %smid of every block): a cluster of 2 always sits on one TPC (SMs 2k and 2k+1,
// 198 of 198), on any of the 66 TPCs. Clusters of 4, 8 and 16 use only SMs 0-119, which form
// one GPC of 8 SMs and seven of 16 (SMs whose TPC index is equal mod 8): at one block per SM
// cudaOccupancyMaxActiveClusters is 30, 15 and 7 clusters (2 + 7 x 4, 1 + 7 x 2, 7). So 128
// blocks of 256 threads in clusters of 4 or 8 do not get an SM each: the small GPC takes as many
// clusters as the others, and their blocks share its SMs two a SM (C=4: 4 clusters, C=8: 2, in
// every launch), which the cluster barrier and the SM's DSMEM port then pay for (dsmem.h).
//
// Modelled: block-index order, round-robin over SMs with room, one dispatch every
// block_dispatch_interval cycles GPU-wide. Clusters: in cluster order, each in the next group of
// SMs (round-robin) that has `size` SMs with room, on that group's SMs with the fewest resident
// blocks; a group is a TPC (2 SMs) for clusters of at most 2 blocks, else a GPC of
// cluster.gpc_sms (SMs after the listed GPCs take none; the GPCs that fit in the SM count, and
// where none fits or the list is empty, cluster.gpcs equal parts); a
// dispatch interval per block.
// Simplified: no priority between concurrent kernels; the GPCs are contiguous ranges of the
// model's SM indices (the H100 numbers its SMs across GPCs); the H100 spreads the 32 clusters of 4
// over its GPCs as 3/4/4/4/4/4/4/5, the model as 4 each (the same number of clusters share SMs);
// each block of a cluster on an SM of its own (the H100 may put two of one cluster on one SM).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/func/cluster.h"
#include "sim/func/launch.h"
#include "sim/timing/sm.h"
#include "sim/timing/sm_glance.h"

namespace warplab::timing {

class BlockScheduler {
 public:
  BlockScheduler(const func::Dim3& grid, double dispatch_interval);
  // A launch in clusters of `shape` (count() > 1) of `threads` threads a block on `sm_count` SMs
  // grouped as `cfg` says (above). The cluster states live as long as the scheduler.
  BlockScheduler(const func::Dim3& grid, double dispatch_interval, func::Dim3 shape,
                 uint32_t threads, const ClusterConfig& cfg, size_t sm_count);
  // The groups of SMs a cluster of `size` blocks may use: {first SM, SMs} each.
  struct Group {
    size_t first, count;
  };
  static std::vector<Group> cluster_groups(const ClusterConfig& cfg, size_t sm_count,
                                           uint32_t size);
  ~BlockScheduler();
  // Dispatches as many blocks as are due at `now` to SMs with room. Errors come from Cta::create.
  // `glances` (sm_glance.h): an SM whose glance has no room has none (one array to read, not
  // a line of each SM that another host thread wrote); one whose glance has room is asked.
  Status dispatch(uint64_t now, std::vector<Sm>& sms, const std::vector<SmGlance>& glances);
  bool done() const { return next_ >= total_; }
  // The next cycle a dispatch could happen if an SM has room (kNever when all are dispatched).
  uint64_t next_due() const;
  uint64_t dispatched() const { return next_; }
  // The SMs the last dispatch() gave blocks to (an SM once for each block), in that order: the
  // only SMs whose state it changed (the loop refreshes their glances: parallel_loop.h).
  const std::vector<size_t>& placed() const { return placed_; }
  // Sampled simulation (sampling.h): called before block `next` is placed at `now`; returns the
  // block to place instead (the blocks in between are the hook's to run).
  using SkipHook = std::function<uint64_t(uint64_t next, uint64_t now)>;
  void set_skip_hook(SkipHook hook) { skip_ = std::move(hook); }
  // The parallel loop: each SM runs its launches' work later, on its own thread (Sm::place_block,
  // sm_launch.cpp); the decisions (which block, which SM, which cycle) stay here, in order.
  void defer_launches(Sm::Defer how) { defer_ = how; }

 private:
  func::Dim3 grid_;
  uint64_t total_, next_ = 0;
  double interval_, due_ = 0;
  size_t rr_ = 0;
  SkipHook skip_;
  Sm::Defer defer_ = Sm::Defer::None;
  std::vector<size_t> placed_;
  // Clusters (shape_.count() > 1).
  Status dispatch_clusters(uint64_t now, std::vector<Sm>& sms);
  func::Dim3 shape_{1, 1, 1};
  uint32_t threads_ = 0;
  std::vector<Group> groups_;
  size_t next_group_ = 0;  // the group the next cluster tries first
  std::vector<std::unique_ptr<func::ClusterState>> clusters_;
};

}  // namespace warplab::timing
