// Thread-block clusters: blocks that run together and reach into each other's shared memory.
//
// Hardware (sm_90): a launch may group its blocks into clusters of up to 8 blocks (16 with the
// non-portable opt-in). The block scheduler places all blocks of a cluster at once on the SMs of
// one GPC, or none of them, so they are all resident together. A block then reads and writes the
// shared memory of any block of its cluster (distributed shared memory, DSMEM): `mapa` turns a
// shared address into the same offset in block rank r, and ld/st/atom/red on `.shared::cluster`
// go over the SM-to-SM network. `barrier.cluster.arrive` / `barrier.cluster.wait` synchronise
// every thread of the cluster (cooperative groups' cluster.sync()). Special registers name the
// cluster: %clusterid / %nclusterid (which cluster, how many), %cluster_ctaid / %cluster_nctaid
// (the block within it), %cluster_ctarank / %cluster_nctarank (the same as one number: x fastest).
// A launch without a cluster shape makes every block a cluster of one (an implicit cluster).
//
// Modelled: the shape checks the driver makes (grid divisible by the cluster, at most 8 blocks,
// 16 with `cluster_nonportable`, the kernel's .reqnctapercluster / .maxclusterrank), the special
// registers, mapa, shared::cluster accesses to any block of the cluster (an address is
// (rank + 1) << 24 | offset; below 1 << 24 it is the block's own shared memory, as the PTX ISA
// puts .shared::cta's window inside .shared::cluster's), barrier.cluster per thread: a wait
// passes once every thread of the cluster that has not exited has arrived in the phase. A block
// that has exited has no shared memory: an access to it faults (end with barrier.cluster, as the
// CUDA Programming Guide asks). Functional mode runs a cluster's blocks together, in turns.
// Simplified: a thread counts as exited when its whole warp has; arriving twice without a wait in
// between (undefined in the PTX ISA) faults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/common/error.h"
#include "sim/func/launch.h"
#include "sim/ptx/ir.h"

namespace warplab::func {

class CtaImpl;

inline constexpr uint32_t kClusterRankShift = 24;  // shared::cluster address: rank bits above
inline constexpr uint64_t kClusterOffsetMask = (uint64_t{1} << kClusterRankShift) - 1;
inline constexpr uint32_t kMaxPortableClusterSize = 8;  // cudaOccupancyMaxPotentialClusterSize
inline constexpr uint32_t kMaxClusterSize = 16;         // with the non-portable opt-in

// The cluster shape a launch runs with: the experiment's, else the kernel's .reqnctapercluster,
// else {1,1,1}; and whether it is explicit. Checks the driver's rules; `where` prefixes messages.
Status check_cluster_shape(const LaunchConfig& launch, const ptx::Function& kernel,
                           const std::string& path);
// The shape check_cluster_shape accepts (launch.cluster if set, else the kernel's).
Dim3 effective_cluster(const LaunchConfig& launch, const ptx::Function& kernel);

// The shared state of one cluster: its blocks and its barrier.
class ClusterState {
 public:
  // Cluster `id` (%clusterid) of shape `shape`, each block of `threads` threads.
  void reset(Dim3 shape, Dim3 id, uint32_t threads, bool explicit_cluster);
  Dim3 shape() const { return shape_; }
  Dim3 id() const { return id_; }
  uint32_t size() const { return static_cast<uint32_t>(members_.size()); }
  bool explicit_cluster() const { return explicit_; }
  // Block `rank` runs as `cta` (nullptr: it has exited, its shared memory is gone).
  void join(uint32_t rank, CtaImpl* cta) { members_[rank] = cta; }
  CtaImpl* member(uint32_t rank) const { return rank < size() ? members_[rank] : nullptr; }
  uint32_t exited_blocks() const { return exited_blocks_; }
  void block_exited(uint32_t rank) {
    members_[rank] = nullptr;
    ++exited_blocks_;
  }

  // barrier.cluster.arrive by thread `thread` of block `rank` at cycle `clock`. Returns "" or
  // why it is wrong.
  std::string arrive(uint32_t rank, uint32_t thread, uint64_t clock);
  // barrier.cluster.wait: true when the phase the thread arrived in has completed (or it has
  // not arrived in the running phase).
  bool passed(uint32_t rank, uint32_t thread) const {
    return arrived_[rank * threads_ + thread] <= completed_;
  }
  // The threads first + lane of block `rank`, for each lane in `lanes`, exited (at `clock`): the
  // barrier stops waiting for them.
  void threads_exited(uint32_t rank, uint32_t first, uint32_t lanes, uint64_t clock);
  uint64_t completed_phases() const { return completed_; }
  uint64_t completed_at() const { return completed_at_; }  // clock of the last completion
  uint64_t changes() const { return changes_; }  // arrivals and exits so far (deadlock watch)

 private:
  void maybe_complete(uint64_t clock);
  Dim3 shape_, id_;
  bool explicit_ = false;
  uint32_t threads_ = 0;
  std::vector<CtaImpl*> members_;
  uint32_t exited_blocks_ = 0;
  // Per thread (rank * threads + thread): the phase it last arrived in, plus one (0: never);
  // kExited once it has exited.
  static constexpr uint64_t kExited = ~uint64_t{0};
  std::vector<uint64_t> arrived_;
  uint64_t completed_ = 0;     // phases completed
  uint64_t pending_ = 0;       // live threads not yet arrived in the running phase
  uint64_t live_ = 0;          // threads not exited
  uint64_t completed_at_ = 0;  // clock of the last completion
  uint64_t changes_ = 0;
};

// Handlers (decode.cpp picks them): barrier.cluster.arrive/wait and mapa.
struct Exec;
struct DInst;
void barrier_cluster_h(Exec& x, const DInst& d);
void mapa_h(Exec& x, const DInst& d);
void setmaxnreg_h(Exec& x, const DInst& d);  // exec_setmaxnreg.cpp

}  // namespace warplab::func
