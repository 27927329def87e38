// The block scheduler (NVIDIA's "compute work distributor"): hands thread blocks to SMs.
//
// Hardware: when a kernel launches, blocks are dispatched to SMs that have room for them (see
// occupancy.h), in block-index order, spreading the first wave over all SMs; as blocks finish,
// new ones take their place. Dispatching itself takes time: the distributor issues a limited
// number of blocks per cycle, which is why kernels with tiny blocks (32 threads) can run slower
// than the memory system would allow. "Waves" = blocks / (blocks per SM x SMs).
//
// Thread-block clusters (sim/func/cluster.h): all blocks of a cluster start together on SMs of
// one GPC (Graphics Processing Cluster: the H100 SXM's 132 SMs sit in 8) or wait until they can.
//
// Modelled: block-index order, round-robin over SMs with room, one dispatch every
// block_dispatch_interval cycles GPU-wide. Clusters: in cluster order, each the first GPC (from
// the round-robin SM on) with cluster-size SMs that have room, a dispatch interval per block.
// Simplified: no priority between concurrent kernels; the SMs split evenly over cluster.gpcs
// GPCs in SM order (the H100's GPCs differ by a few SMs); each block of a cluster on an SM of its
// own (the H100 may put two of one cluster on one SM).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/func/cluster.h"
#include "sim/func/launch.h"
#include "sim/timing/sm.h"

namespace warplab::timing {

class BlockScheduler {
 public:
  BlockScheduler(const func::Dim3& grid, double dispatch_interval);
  // A launch in clusters of `shape` (count() > 1) of `threads` threads a block, the SMs split
  // over `gpcs` GPCs. The cluster states live as long as the scheduler.
  BlockScheduler(const func::Dim3& grid, double dispatch_interval, func::Dim3 shape,
                 uint32_t threads, int gpcs);
  ~BlockScheduler();
  // Dispatches as many blocks as are due at `now` to SMs with room. Errors come from Cta::create.
  Status dispatch(uint64_t now, std::vector<Sm>& sms);
  bool done() const { return next_ >= total_; }
  // The next cycle a dispatch could happen if an SM has room (kNever when all are dispatched).
  uint64_t next_due() const;
  uint64_t dispatched() const { return next_; }
  // Sampled simulation (sampling.h): called before block `next` is placed at `now`; returns the
  // block to place instead (the blocks in between are the hook's to run).
  using SkipHook = std::function<uint64_t(uint64_t next, uint64_t now)>;
  void set_skip_hook(SkipHook hook) { skip_ = std::move(hook); }

 private:
  func::Dim3 grid_;
  uint64_t total_, next_ = 0;
  double interval_, due_ = 0;
  size_t rr_ = 0;
  SkipHook skip_;
  // Clusters (shape_.count() > 1).
  Status dispatch_clusters(uint64_t now, std::vector<Sm>& sms);
  func::Dim3 shape_{1, 1, 1};
  uint32_t threads_ = 0;
  int gpcs_ = 1;
  std::vector<std::unique_ptr<func::ClusterState>> clusters_;
};

}  // namespace warplab::timing
