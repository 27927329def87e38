// The parallel loop: see parallel_loop.h.
#include "sim/timing/parallel_loop.h"

#include <algorithm>
#include <chrono>

#if defined(__linux__)
#include <sched.h>
#endif

namespace warplab::timing {

namespace {
// The SM this host thread is ticking inside ParallelTicks::tick, and whether it has had its turn
// at shared state yet in this tick. A thread ticks one SM at a time, and the shared units
// (L2, device memory) learn who asks from here, not from their callers.
struct Turn {
  const ParallelTicks* owner = nullptr;
  uint32_t position = 0;
  bool passed = false;
  bool touch = false;  // the turn was taken at a functional device touch
};
thread_local Turn current_turn;

// How long a wait spins before it sleeps (wait_for): on a core of its own, a time budget between
// these (longer than a cycle's ticks and the loop's work between cycles); otherwise a few pause
// rounds.
constexpr int64_t kSpinMaxNs = 500'000, kSpinFloorNs = 50'000;
constexpr uint32_t kSpinsShared = 64;
// The loop thread's early flush (tick, step 3) gives up after this many pause rounds (tens of
// microseconds) without an SM to hand over; the wait_for after it then spins or sleeps by its
// budget (a loaded host: spinning longer here took the core from the workers, 4x slower cycles
// on the 2-core dev host).
constexpr uint32_t kEarlyFlushSpins = 1u << 10;
// A thread that has ticked its own SMs takes one from another thread's queue only when that
// queue has at least this many left (the thread is busy with an earlier one and would tick this
// one after another): a stolen SM's state moves to the thief's core and back (perf20-1, device
// host, vec_add_2^24 on 16 threads, stealing from any queue with one left: 1.48M of 7.22M ticks
// stolen, work per thread 5.31 -> 7.89 us a pool cycle, the span no shorter).
constexpr uint32_t kStealFrom = 1;

int64_t clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The host CPUs this process may run on.
int usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
  return static_cast<int>(std::thread::hardware_concurrency());
}

// Returns `word`'s value once `ready` holds for it (loaded with acquire): spins, checking it
// between pause instructions, then sleeps until a notify_all of the word.
// How long it spins: with `own_core` (no more threads than the process may run on) a time
// budget per host thread, between kSpinFloorNs and kSpinMaxNs: a wait that the spin answered
// doubles it, one that had to sleep halves it. A wake-up from sleep costs tens of
// microseconds (more in a virtual machine, whose halted CPU must be woken by the host), and a
// parallel cycle's waits are shorter than that (int39 on the device host: a budget that went
// down to 64 pause rounds put a wake-up on nearly every wait, and matmul_tiled_512 ran 2.1x on
// 16 threads against 4.9x with spinning), so on cores of its own a thread keeps spinning. A
// host whose cores are busy with other work (ctest -j 2 on two cores) halves the budget down to
// the floor, and the loop's timed trials then pick one thread (TimingOptions::adapt_threads);
// without `own_core` the spin is kSpinsShared pause rounds (tests/704: Cancel within a second).
template <class Ready>
uint32_t wait_for(const std::atomic<uint32_t>& word, Ready ready, bool own_core) {
  uint32_t v = word.load(std::memory_order_acquire);
  if (ready(v)) return v;
  thread_local int64_t budget_ns = kSpinMaxNs;
  if (own_core) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      for (int i = 0; i < 32 && !ready(v); ++i) {
        pause();
        v = word.load(std::memory_order_acquire);
      }
      if (ready(v)) break;
      if (std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                               start)
              .count() > budget_ns)
        break;
    }
    budget_ns = ready(v) ? std::min(kSpinMaxNs, budget_ns * 2) : std::max(kSpinFloorNs, budget_ns / 2);
  } else {
    for (uint32_t i = 0; !ready(v) && i < kSpinsShared; ++i) {
      pause();
      v = word.load(std::memory_order_acquire);
    }
  }
  while (!ready(v)) {
    word.wait(v, std::memory_order_acquire);
    v = word.load(std::memory_order_acquire);
  }
  return v;
}
}  // namespace

ParallelTicks::ParallelTicks(int threads)
    : threads_(threads < 1 ? 1 : threads),
      own_core_(threads_ <= usable_cpus()),
      begins_(threads_ + 1),
      counts_(threads_) {
  workers_.reserve(threads_ - 1);
  for (int t = 1; t < threads_; ++t)
    workers_.emplace_back([this, t] {
      uint32_t seen = 0;
      for (;;) {
        seen = wait_for(
            start_, [seen](uint32_t v) { return v != seen; }, own_core_);
        if (stop_) return;
        if (profile_) counts_[t].begin_ns = clock_ns();
        work(t);
        if (profile_) counts_[t].end_ns = clock_ns();
        running_.fetch_sub(1, std::memory_order_acq_rel);
        running_.notify_all();
      }
    });
}

ParallelTicks::~ParallelTicks() {
  stop_ = true;
  start_.fetch_add(1, std::memory_order_release);
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ParallelTicks::tick(std::vector<Sm>& sms, const std::vector<uint32_t>& due, uint64_t now,
                         std::vector<SmGlance>& glances) {
  // 1. Publish the cycle's work; moving start_ (release) orders these writes before the
  //    workers read them.
  const int64_t t0 = profile_ ? clock_ns() : 0;
  faulted_.store(false, std::memory_order_relaxed);
  running_.store(static_cast<uint32_t>(threads_ - 1), std::memory_order_relaxed);
  if (home_.size() != sms.size()) {
    home_.resize(sms.size());
    for (size_t i = 0; i < sms.size(); ++i) home_[i] = static_cast<uint16_t>(home_of(int(i)));
  }
  const uint32_t n = static_cast<uint32_t>(due.size());
  if (ended_size_ < sms.size()) {
    ended_at_ = std::make_unique<Ended[]>(sms.size());
    ended_size_ = sms.size();
  }
  ++cycle_;
  prefix_.store(0, std::memory_order_relaxed);
  // Each thread's queue: its home SMs' positions in the order (a counting sort by home).
  order_.resize(n);
  uint32_t* begin = begins_.data();
  std::fill(begins_.begin(), begins_.end(), 0);
  for (uint32_t i = 0; i < n; ++i) ++begin[home_[due[i]] + 1];
  for (int t = 0; t < threads_; ++t) begin[t + 1] += begin[t];
  for (int t = 0; t < threads_; ++t)
    counts_[t].queue.store(uint64_t{begin[t + 1]} << 32 | begin[t], std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) order_[begin[home_[due[i]]]++] = i;
  flushed_ = 0;
  sms_ = sms.data();
  glances_ = glances.data();
  due_ = &due;
  now_ = now;
  // The touch log's new cycle (its stamp, and shadow words for buffers bound since: a module
  // variable bound by the launch's first block) before any thread can log a touch in it.
  if (touches_) touches_->begin_cycle();
  start_.fetch_add(1, std::memory_order_release);
  start_.notify_all();
  // 2. Every thread ticks its SMs; 3. the cycle ends when every worker has left its work (its
  //    ticks' writes then visible here).
  if (profile_) counts_[0].begin_ns = clock_ns();
  work(0);
  if (profile_) counts_[0].end_ns = clock_ns();
  // 3. While the others still tick, hand the held requests of the SMs that have ended, in the
  //    order, to the L2 (what the cycle's end would do, off its path); an SM that takes its turn
  //    meanwhile has the L2 to itself (own_l2). Then wait for the last worker.
  if (own_core_) {
    uint32_t idle = 0;
    while (running_.load(std::memory_order_acquire) != 0 && flushed_ < n &&
           idle < kEarlyFlushSpins) {
      const uint32_t p = ended_prefix();
      if (p > flushed_ && !l2_owned_.exchange(true, std::memory_order_acquire)) {
        flush_until(p);
        l2_owned_.store(false, std::memory_order_release);
        idle = 0;
      } else {
        pause();
        ++idle;
      }
    }
  }
  wait_for(
      running_, [](uint32_t v) { return v == 0; }, own_core_);
  const int64_t t_all = profile_ ? clock_ns() : 0;
  // The functional touches logged in the cycle: a meeting of two SMs is a fault (touch_log.h).
  if (touches_ && touches_->met(due)) faulted_.store(true, std::memory_order_relaxed);
  const int64_t t_met = profile_ ? clock_ns() : 0;
  // 4. The L2 requests held back and not yet handed over go to the L2, SM by SM in the order.
  //    (The glances, taken after each tick, read nothing of their answers: l2_queue.h.)
  flush_until(static_cast<uint32_t>(due.size()));
  if (profile_) {
    LoopProfile& p = *profile_;
    int64_t wake = 0, span = 0, launch_max = 0;
    for (int t = 0; t < threads_; ++t) {
      Counts& c = counts_[t];
      if (t > 0) wake = std::max(wake, c.begin_ns - t0);
      span = std::max(span, c.end_ns - t0);
      p.work_ns += double(c.end_ns - c.begin_ns);
      p.launch_ns += double(c.launch_ns);
      launch_max = std::max(launch_max, c.launch_ns);
      p.launches += c.launches;
      p.steals += c.steals;
      c.launch_ns = 0, c.launches = 0, c.steals = 0;
    }
    p.wake_ns += double(wake), p.span_ns += double(span), p.launch_max_ns += double(launch_max);
    p.own_ns += double(counts_[0].end_ns - counts_[0].begin_ns);
    p.end_wait_ns += double(t_all - counts_[0].end_ns);
    p.met_ns += double(t_met - t_all);
    p.flush_ns += double(clock_ns() - t_met);
  }
  return !faulted_.load(std::memory_order_relaxed);
}

void ParallelTicks::work(int thread) {
  const uint32_t n = static_cast<uint32_t>(due_->size());
  for (uint32_t i = claim(thread); i < n; i = claim(thread)) {
    // The SM the thread will likely tick next (its queue's front, unless another thread takes
    // it) starts loading while this one ticks (Sm::prefetch_tick: a hint, nothing is read).
    const uint64_t q = counts_[thread].queue.load(std::memory_order_relaxed);
    if (uint32_t(q) < uint32_t(q >> 32)) sms_[(*due_)[order_[uint32_t(q)]]].prefetch_tick();
    tick_one(thread, i);
  }
}

uint32_t ParallelTicks::claim(int thread) {
  const uint32_t none = static_cast<uint32_t>(due_->size());
  // 1. The first position left in the thread's own queue.
  std::atomic<uint64_t>& own = counts_[thread].queue;
  for (uint64_t q = own.load(std::memory_order_relaxed);;) {
    const uint32_t front = uint32_t(q), back = uint32_t(q >> 32);
    if (front >= back) break;
    if (own.compare_exchange_weak(q, q + 1, std::memory_order_acq_rel)) return order_[front];
  }
  // 2. The last left in the queue that has the most left (that thread is busy with an earlier
  //    one: it would tick this one last). A position whose turn it has to wait for is still
  //    worth taking: every earlier position is being ticked or waits in a queue whose thread
  //    ticks it first, so the wait ends (no thread waits on itself).
  for (;;) {
    int victim = -1;
    uint32_t most = 0;
    for (int t = 0; t < threads_; ++t) {
      if (t == thread) continue;
      const uint64_t q = counts_[t].queue.load(std::memory_order_relaxed);
      const uint32_t left = uint32_t(q >> 32) - std::min(uint32_t(q >> 32), uint32_t(q));
      if (left > most) most = left, victim = t;
    }
    if (victim < 0 || most < kStealFrom) return none;
    std::atomic<uint64_t>& other = counts_[victim].queue;
    uint64_t q = other.load(std::memory_order_relaxed);
    while (uint32_t(q) < uint32_t(q >> 32))
      if (other.compare_exchange_weak(q, q - (uint64_t{1} << 32), std::memory_order_acq_rel)) {
        if (profile_) ++counts_[thread].steals;
        return order_[uint32_t(q >> 32) - 1];
      }
  }
}

void ParallelTicks::tick_one(int thread, uint32_t i) {
  const std::vector<uint32_t>& due = *due_;
  Sm& sm = sms_[due[i]];
  current_turn = Turn{this, i, false};
  // The answers to what it held last time (sm_held.cpp), the blocks placed on it in this
  // cycle (sm_launch.cpp), then the tick.
  sm.fill_held();
  if (sm.launches_pending()) {
    const int64_t t0 = profile_ ? clock_ns() : 0;
    if (profile_) ++counts_[thread].launches;
    if (!sm.run_launches()) faulted_.store(true, std::memory_order_relaxed);
    if (profile_) counts_[thread].launch_ns += clock_ns() - t0;
  }
  if (!sm.tick(now_) || sm.fault()) faulted_.store(true, std::memory_order_relaxed);
  if (current_turn.passed) l2_owned_.store(false, std::memory_order_release);
  ++counts_[thread].ticks;
  counts_[thread].turns += current_turn.passed;
  counts_[thread].touch_turns += current_turn.touch;
  current_turn = Turn{};
  glances_[due[i]].look(sm);
  finish(i);
}

void ParallelTicks::finish(uint32_t position) {
  // Publish that the tick has ended (its position's own cache line); wake the SMs waiting for
  // their turn, if any (seq_cst, with wait_turn: one of the two sees the other).
  ended_at_[position].cycle.store(cycle_);
  if (waiters_.load() > 0) {
    ended_.fetch_add(1);
    ended_.notify_all();
  }
}

uint32_t ParallelTicks::ended_prefix() {
  // The smallest position not yet ended, from the last prefix found (it only grows in a cycle;
  // a reader that stores an older, smaller one only makes the next reader look further).
  const uint32_t n = static_cast<uint32_t>(due_->size());
  const uint32_t from = prefix_.load(std::memory_order_relaxed);
  uint32_t p = from;
  while (p < n && ended_at_[p].cycle.load() == cycle_) ++p;
  if (p != from) prefix_.store(p, std::memory_order_relaxed);
  return p;
}

void ParallelTicks::wait_turn() {
  Turn& t = current_turn;
  if (t.owner != this || t.passed) return;
  // Every SM before this one in the order has ended its tick: wait until the prefix reaches us.
  waiters_.fetch_add(1);
  for (;;) {
    const uint32_t seen = ended_.load();
    if (ended_prefix() >= t.position) break;
    wait_for(
        ended_, [seen](uint32_t v) { return v != seen; }, own_core_);
  }
  waiters_.fetch_sub(1);
  t.passed = true;
  // The shared units are this SM's until its tick ends (the loop's thread may be handing the
  // earlier SMs' held requests over: own_l2).
  own_l2();
  // What the SMs before it, and this SM itself, held back goes to the L2 first (and this SM's
  // answers into its state at once: the rest of its tick may read them).
  flush_until(t.position + 1);
  sms_[(*due_)[t.position]].fill_held();
}

bool ParallelTicks::before_turn() const {
  const Turn& t = current_turn;
  return t.owner == this && !t.passed;
}

bool ParallelTicks::in_parallel_cycle() const { return current_turn.owner == this; }

uint64_t ParallelTicks::sm_ticks() const {
  uint64_t n = 0;
  for (const Counts& c : counts_) n += c.ticks;
  return n;
}

uint64_t ParallelTicks::turn_ticks() const {
  uint64_t n = 0;
  for (const Counts& c : counts_) n += c.turns;
  return n;
}

bool ParallelTicks::before_touch() {
  Turn& t = current_turn;
  if (t.owner != this) return false;
  if (touches_) return true;
  t.touch = t.touch || !t.passed;
  wait_turn();
  return false;
}

void ParallelTicks::touched(const func::StepInfo& step) {
  const Turn& t = current_turn;
  touches_->add((*due_)[t.position], t.position, t.passed, step);
}

uint64_t ParallelTicks::touch_turns() const {
  uint64_t n = 0;
  for (const Counts& c : counts_) n += c.touch_turns;
  return n;
}

void ParallelTicks::own_l2() {
  while (l2_owned_.exchange(true, std::memory_order_acquire)) pause();
}

void ParallelTicks::flush_until(uint32_t end) {
  // The answers go into each SM's state on its own thread, before its next tick (fill_held).
  for (; flushed_ < end; ++flushed_) sms_[(*due_)[flushed_]].ask_l2();
}

}  // namespace warplab::timing
