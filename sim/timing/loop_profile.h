// Where the parallel loop's host time goes (a measurement of the simulator, not of the GPU).
//
// What it is for: a parallel cycle (parallel_loop.h) costs its slowest thread's ticks plus what
// the loop's thread does alone (block dispatch, the flush of held L2 requests, the touch log's
// check, the scans of the glances) plus the waits that hand the cycle out and collect it. These
// sums say which of them a cycle spends its time on. Opt-in (TimingOptions::profile_loop,
// `warplab bench --profile-loop`): each is two clock reads, and none changes what is simulated.
// All times are host nanoseconds summed over the launch.
#pragma once

#include <chrono>
#include <cstdint>

namespace warplab::timing {

struct LoopProfile {
  // The loop (gpu_model.cpp), every visited cycle: 3a block dispatch; the scan for due SMs; the
  // cycles ticked on the pool (ParallelTicks::tick) and on the loop's thread alone; 3c-3e (done,
  // next cycle, deadlock and livelock checks); and the whole loop.
  double dispatch_ns = 0, due_ns = 0, pool_ns = 0, one_ns = 0, after_ns = 0, loop_ns = 0;
  uint64_t pool_cycles = 0, one_cycles = 0, dispatches = 0;
  // Inside the pool's cycles (parallel_loop.cpp), per cycle summed: from handing the cycle out
  // to the last thread's start of work (wake), to the slowest thread's end of work (span),
  // the loop thread's own ticks (own) and its wait for the others after them (end_wait), the
  // touch log's check (met) and the flush of held requests at the cycle's end (flush); the
  // ticks of all threads summed (work, for the balance: span against work / threads).
  double wake_ns = 0, span_ns = 0, own_ns = 0, end_wait_ns = 0, met_ns = 0, flush_ns = 0;
  double work_ns = 0;
  // Of that work, the blocks' launches run on the SMs' threads (sm_launch.cpp): all threads'
  // summed (launch), the most one thread spent on them in its cycle (launch_max: what a launch
  // adds to the span), and how many SM ticks began with launches (launches).
  double launch_ns = 0, launch_max_ns = 0;
  uint64_t launches = 0;
  // SM ticks that a thread took from another thread's queue (parallel_loop.h: work stealing).
  uint64_t steals = 0;

  void add(const LoopProfile& o) {
    dispatch_ns += o.dispatch_ns, due_ns += o.due_ns, pool_ns += o.pool_ns, one_ns += o.one_ns;
    after_ns += o.after_ns, loop_ns += o.loop_ns;
    pool_cycles += o.pool_cycles, one_cycles += o.one_cycles, dispatches += o.dispatches;
    wake_ns += o.wake_ns, span_ns += o.span_ns, own_ns += o.own_ns, end_wait_ns += o.end_wait_ns;
    met_ns += o.met_ns, flush_ns += o.flush_ns, work_ns += o.work_ns;
    launch_ns += o.launch_ns, launch_max_ns += o.launch_max_ns, launches += o.launches;
    steals += o.steals;
  }
};

// The loop's stopwatch (gpu_model.cpp): laps of the host's steady clock added to a LoopProfile's
// sums, one section of the loop after another; when off, it reads no clock at all.
class LoopClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LoopClock(bool on) : on_(on), begin_(on ? Clock::now() : Clock::time_point{}) {}
  // A section starts now.
  void start() {
    if (on_) from_ = Clock::now();
  }
  // The time since the section's start goes to `into`, and the next section starts now.
  void lap(double& into) {
    if (!on_) return;
    const Clock::time_point t = Clock::now();
    into += std::chrono::duration<double, std::nano>(t - from_).count();
    from_ = t;
  }
  // Nanoseconds since the stopwatch was made (0 when off).
  double total_ns() const {
    return on_ ? std::chrono::duration<double, std::nano>(Clock::now() - begin_).count() : 0;
  }

 private:
  bool on_;
  Clock::time_point begin_, from_{};
};

}  // namespace warplab::timing
