// The parallel loop: see parallel_loop.h.
#include "sim/timing/parallel_loop.h"

namespace warplab::timing {

namespace {
// The SM this host thread is ticking inside ParallelTicks::tick, and whether it has had its turn
// at shared state yet in this tick. A thread ticks one SM at a time, and the shared units
// (L2, device memory) learn who asks from here, not from their callers.
struct Turn {
  const ParallelTicks* owner = nullptr;
  uint32_t position = 0;
  bool passed = false;
};
thread_local Turn current_turn;
}  // namespace

ParallelTicks::ParallelTicks(int threads)
    : threads_(threads < 1 ? 1 : threads), start_(threads_), end_(threads_) {
  workers_.reserve(threads_ - 1);
  for (int t = 1; t < threads_; ++t)
    workers_.emplace_back([this, t] {
      for (;;) {
        start_.arrive_and_wait();
        if (stop_) return;
        work(t);
        end_.arrive_and_wait();
      }
    });
}

ParallelTicks::~ParallelTicks() {
  stop_ = true;
  start_.arrive_and_wait();
  for (std::thread& t : workers_) t.join();
}

bool ParallelTicks::tick(const std::vector<Sm*>& due, uint64_t now) {
  // 1. Publish the cycle's work; the barrier orders these writes before the workers read them.
  if (done_capacity_ < due.size()) {
    done_capacity_ = due.size();
    done_ = std::make_unique<std::atomic<uint8_t>[]>(done_capacity_);
  }
  for (size_t i = 0; i < due.size(); ++i) done_[i].store(0, std::memory_order_relaxed);
  prefix_.store(0);
  faulted_.store(false, std::memory_order_relaxed);
  due_ = &due;
  now_ = now;
  // 2. Every thread ticks its SMs; 3. the cycle ends when all have.
  start_.arrive_and_wait();
  work(0);
  end_.arrive_and_wait();
  return !faulted_.load(std::memory_order_relaxed);
}

void ParallelTicks::work(int thread) {
  const std::vector<Sm*>& due = *due_;
  for (uint32_t i = 0; i < due.size(); ++i) {
    Sm& sm = *due[i];
    if (thread_of(sm.id()) != thread) continue;
    current_turn = Turn{this, i, false};
    if (!sm.tick(now_) || sm.fault()) faulted_.store(true, std::memory_order_relaxed);
    current_turn = Turn{};
    finish(i);
  }
}

void ParallelTicks::finish(uint32_t position) {
  // Mark it ended, then move the prefix of ended positions as far as it goes (another thread
  // may be moving it too: each step is a compare-and-swap from the value it saw).
  done_[position].store(1);
  const uint32_t n = static_cast<uint32_t>(due_->size());
  bool moved = false;
  for (;;) {
    uint32_t p = prefix_.load();
    if (p >= n || !done_[p].load()) break;
    if (prefix_.compare_exchange_strong(p, p + 1)) moved = true;
  }
  if (moved) prefix_.notify_all();
}

void ParallelTicks::wait_turn() {
  Turn& t = current_turn;
  if (t.owner != this || t.passed) return;
  // Every SM before this one in the order has ended its tick: sleep until the prefix reaches us
  // (atomic wait: a short spin, then the kernel's futex; no core is kept busy).
  for (uint32_t p = prefix_.load(); p < t.position; p = prefix_.load()) prefix_.wait(p);
  t.passed = true;
}

}  // namespace warplab::timing
