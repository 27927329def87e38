// Timing kernels on the real GPU the way a careful benchmark does.
//
// A launch is asynchronous: the host only queues it. So the time is taken on the GPU itself with
// a pair of CUDA events recorded into the stream around the launch; their difference is the
// kernel's run time plus the small gap between the events and the kernel (microseconds).
// The first launches of a kernel pay for clock ramp-up and cold instruction caches, so a few
// warm-up launches run untimed; then N launches are timed one by one and summarised by their
// median (robust to the odd slow outlier), min and max.
//
// Caches: after one launch, the kernel's data may still sit in L2 (50 MiB on an H100), and the
// next launch finds it there ("warm"). To measure a cold start, read a buffer larger than L2
// between timed launches, which evicts everything and leaves only unmodified lines ("cold",
// flush_l2 = true; backend.cpp says why reading, not writing); the flush is outside the events.
//
// Launch overhead is measured on its own with an empty kernel: one block of 32 threads that only
// returns, timed the same way (what a kernel costs when it does nothing), and back to back (many
// launches between one pair of events: the cost per launch when the queue never drains).
#pragma once

#include <vector>

namespace warplab::gpu {

struct TimingOptions {
  int warmup = 3;                // untimed launches before the timed ones
  int repeats = 20;              // timed launches, each between its own pair of events
  bool flush_l2 = false;         // read a buffer of 2x L2 before each timed launch (cold caches)
  // Copy the buffers' initial contents back before every warm-up and timed launch, so that each
  // starts from the memory the simulator's one launch saw. Without it a kernel that bumps an
  // atomic counter (a compaction, a queue) or works in place runs on its own earlier results,
  // and a counter that grows launch after launch ends in an out-of-bounds write.
  bool restore_buffers = true;
  bool launch_overhead = true;   // also measure the empty kernel (once per Backend)
};

struct TimingResult {
  std::vector<double> samples_us;  // every timed launch, in launch order
  double median_us = 0, min_us = 0, max_us = 0, mean_us = 0;
  int warmup = 0;
  bool l2_flushed = false;
  bool buffers_restored = false;
};

struct LaunchOverhead {
  double empty_kernel_us = 0;  // median of event-timed single launches of an empty kernel
  double back_to_back_us = 0;  // per launch, 100 empty launches between one pair of events
  int samples = 0;
};

// Fills median/min/max/mean from samples (median of an even count: mean of the middle two).
// An empty list gives all zeros.
TimingResult summarize(std::vector<double> samples_us);

}  // namespace warplab::gpu
