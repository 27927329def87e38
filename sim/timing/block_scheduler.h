// The block scheduler (NVIDIA's "compute work distributor"): hands thread blocks to SMs.
//
// Hardware: when a kernel launches, blocks are dispatched to SMs that have room for them (see
// occupancy.h), in block-index order, spreading the first wave over all SMs; as blocks finish,
// new ones take their place. Dispatching itself takes time: the distributor issues a limited
// number of blocks per cycle, which is why kernels with tiny blocks (32 threads) can run slower
// than the memory system would allow. "Waves" = blocks / (blocks per SM x SMs).
//
// Modelled: block-index order, round-robin over SMs with room, one dispatch every
// block_dispatch_interval cycles GPU-wide. Simplified: no priority between concurrent kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/func/launch.h"
#include "sim/timing/sm.h"

namespace warplab::timing {

class BlockScheduler {
 public:
  BlockScheduler(const func::Dim3& grid, double dispatch_interval);
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
};

}  // namespace warplab::timing
