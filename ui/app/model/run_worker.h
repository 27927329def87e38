// Runs experiments off the UI thread. The UI calls start(); the worker thread builds a
// RunSnapshot (run_snapshot.h) and publishes it under a mutex as a shared_ptr to const, so the
// UI only ever holds finished, immutable results. One run at a time; start() while busy is
// refused. The destructor cancels a run in progress and waits for it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ui/app/model/run_snapshot.h"
#include "ui/app/model/sweep.h"

namespace warplab::app {

class RunWorker {
 public:
  RunWorker() = default;
  ~RunWorker();
  RunWorker(const RunWorker&) = delete;
  RunWorker& operator=(const RunWorker&) = delete;

  // false when a run is in progress.
  bool start(RunRequest request);
  // Runs every point of the request's [sweep], one after another; each finished point is
  // published at once (latest_sweep(), generation() changes). false when a run is in progress.
  bool start_sweep(RunRequest request);
  // Stops the run in progress (a single run, or a sweep's current point and the points after
  // it): the timing loop polls the flag (lab::RunOptions::cancel) and the run ends within a few
  // simulated cycles with the error "cancelled".
  void cancel() { cancel_.store(true, std::memory_order_release); }
  std::shared_ptr<const SweepSnapshot> latest_sweep() const;
  bool busy() const { return busy_.load(std::memory_order_acquire); }
  // Seconds since the current run started (0 when idle).
  double elapsed_s() const;
  // The latest finished snapshot (nullptr before the first) and a counter that changes with it.
  std::shared_ptr<const RunSnapshot> latest() const;
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  std::string running_what() const;

 private:
  std::thread thread_;
  std::atomic<bool> busy_{false};
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> started_ns_{0};
  mutable std::mutex mutex_;  // guards latest_ and what_
  std::shared_ptr<const RunSnapshot> latest_;
  std::shared_ptr<const SweepSnapshot> latest_sweep_;
  std::atomic<bool> cancel_{false};
  std::string what_;
};

}  // namespace warplab::app
