// The asynchronous copies a block has in flight: cp.async (LDGSTS) and cp.async.bulk (TMA).
//
// Hardware: `cp.async` hands a 4-16 byte global->shared copy to the load/store unit and lets the
// thread go on at once; the data arrives in shared memory some hundreds of cycles later, without
// passing through registers. Each thread closes its copies into groups (`cp.async.commit_group`)
// and waits for all but its N newest groups (`cp.async.wait_group N`); or it asks the hardware to
// arrive on an mbarrier when its copies are done (`cp.async.mbarrier.arrive`). The TMA unit does
// the same for whole blocks of bytes (`cp.async.bulk`): global->shared copies report their bytes
// to an mbarrier (complete_tx), shared->global copies finish in per-thread bulk groups.
//
// Modelled (functional): every copy's addresses are checked when it is issued; its bytes move
// later, at the latest moment a correct kernel could notice them: when the issuing thread waits
// for its group (wait_group, wait_all), when a thread waits on the mbarrier the copy reports to
// (mbarrier.test_wait/try_wait deliver what is in flight toward that mbarrier, then look), or
// when the issuing thread exits. A kernel that reads shared memory before waiting therefore reads
// what was there before the copy, as it may on the GPU, and its check fails. Source bytes are
// read when the copy lands, so a kernel that overwrites a bulk copy's source before
// cp.async.bulk.wait_group.read sends the new bytes, again as the GPU may.
// Simplified: copies land whole and in issue order; the timing of their arrival is the timing
// model's (sim/timing/async_copy.h, tma.h), which charges the wait, not the data movement.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace warplab::func {

class AsyncCopies {
 public:
  // One copy: `bytes` from `src` (nullptr: none read), then `zeros` fill bytes, to `dst`. The
  // fill is zeros, or with fill_width > 0 the `fill_width`-byte little-endian value `fill`
  // repeated (a tensor copy's NaN fill, sim/func/tensormap.h).
  struct Copy {
    uint8_t* dst = nullptr;
    const uint8_t* src = nullptr;
    uint32_t bytes = 0, zeros = 0;
    uint64_t fill = 0;
    uint8_t fill_width = 0;
  };
  // What an mbarrier receives when the asynchronous work tracked by it is delivered.
  struct MbarrierEvent {
    uint64_t mbar = 0;      // shared-memory offset of the mbarrier
    uint32_t arrives = 0;   // arrive-on operations (cp.async.mbarrier.arrive)
    uint32_t tx_bytes = 0;  // complete_tx bytes (bulk copies)
  };

  void reset(int threads);
  bool in_flight() const { return pending_ > 0; }
  // Whether some thread holds asynchronous-copy state (finish_thread has work to do).
  bool any_thread() const { return threads_made_ > 0; }

  // ---- cp.async
  void copy(int thread, const Copy& c);            // into the thread's open group
  void commit(int thread);                         // closes the open group (an empty one too)
  void wait(int thread, uint32_t newest_pending);  // lands all groups but the newest N
  // cp.async.mbarrier.arrive: an arrive-on on `mbar` once the thread's copies so far are done.
  void arrive_when_done(int thread, uint64_t mbar);

  // ---- cp.async.bulk
  void bulk_to_shared(const Copy& c, uint64_t mbar);  // completes `bytes + zeros` tx on mbar
  void bulk_to_global(int thread, const Copy& c);     // into the thread's open bulk group
  // ---- cp.async.bulk.tensor: one box as many pieces (exec_tma.cpp), landing together
  void tensor_to_shared(const std::vector<Copy>& pieces, uint64_t mbar, uint32_t tx_bytes);
  void tensor_to_global(int thread, const std::vector<Copy>& pieces);
  void bulk_commit(int thread);
  void bulk_wait(int thread, uint32_t newest_pending);

  // Delivers everything in flight toward mbarrier `mbar` (landing its copies first) and returns
  // the arrive-ons and tx bytes it owes, in one event (arrives == tx_bytes == 0: nothing).
  MbarrierEvent deliver(uint64_t mbar);
  // The thread exits: its copies land (the hardware finishes them). Returns the mbarrier events
  // its cp.async.mbarrier.arrive operations still owe (the caller applies them).
  std::vector<MbarrierEvent> finish_thread(int thread);

 private:
  void land(uint32_t i);
  void land_all(const std::vector<uint32_t>& copies);

  std::vector<Copy> copies_;
  std::vector<bool> landed_;
  struct Thread {
    std::vector<uint32_t> open;                // cp.async copies not committed yet
    std::deque<std::vector<uint32_t>> groups;  // committed, oldest first
    std::vector<uint32_t> all;                 // every cp.async copy it issued
    std::vector<uint32_t> bulk_open;
    std::deque<std::vector<uint32_t>> bulk_groups;
  };
  // Work an mbarrier waits for: copies to land, then arrive-ons or tx bytes to deliver.
  struct Tracked {
    uint64_t mbar = 0;
    int thread = -1;  // cp.async.mbarrier.arrive: the issuing thread; bulk copies: -1
    std::vector<uint32_t> copies;
    uint32_t tx_bytes = 0;  // bulk copies: the bytes complete_tx reports
    bool done = false;
  };
  // Per thread, made on its first asynchronous copy: most threads of most kernels never issue one,
  // and a Thread holds two deques (an allocation each), so a block's threads are not built up front.
  std::vector<std::unique_ptr<Thread>> threads_;
  Thread& thread_state(int thread) {
    std::unique_ptr<Thread>& p = threads_[static_cast<size_t>(thread)];
    if (!p) p = std::make_unique<Thread>(), ++threads_made_;
    return *p;
  }
  uint32_t threads_made_ = 0;  // entries of threads_ that hold a Thread
  std::vector<Tracked> tracked_;
  uint64_t pending_ = 0;  // copies not landed plus tracked work not delivered
};

}  // namespace warplab::func
