// The parallel loop: one cycle's SM ticks on several host threads, with the one-thread results.
//
// What the hardware does: the SMs of a GPU run at the same time and meet only where they share
// something: the L2 slices and DRAM behind them, device memory itself, and the block scheduler.
// A simulator can run them at the same time too, on the host's cores, if it keeps the order in
// which they meet: the same input must give the same cycles, counters and results for any
// number of threads (bit-identical JSON), and one thread must give exactly the one-thread loop.
//
// What is modelled (how the order is kept): gpu_model's loop ticks, every cycle, the SMs that
// have something to do in a fixed order (SM 131 first, SM 0 last), and an SM's tick reads and
// writes the shared units directly (an L1 miss asks the L2 and gets the cycle its data is back
// at once; a load runs functionally on device memory when the warp fetches it). So one SM's
// request can change another's answer within the same cycle: the L2 queues them one after the
// other, and a load sees a store made earlier in the cycle. No lookahead window is safe here
// (the L2's answer is used in the very tick that asks: the L1 books the fill, a second miss to
// the line merges with it, and the MSHR count limits the next issue).
// Instead, within one cycle:
//   1. the SMs due this cycle are numbered in the one-thread order; thread k starts with those
//      whose SM number is k modulo the thread count (their home: the SM's state stays in that
//      core's caches from one cycle to the next), in that order; a thread that has ticked its
//      own takes the last SM still waiting in the queue of the thread with the most left
//      (work stealing, below: a cycle's due SMs and launches are
//      uneven over the homes, perf17-1's slowest thread did ~3x the average on vec_add_2^24
//      and ~1.8x on matmul_tiled_512). Each
//      SM keeps its own instruction counts and per-line warp states (its LaunchContext), summed
//      at the end, so which thread ticked it changes no result;
//   2. an SM runs its own work (warps, scheduler, pipelines, L1, shared memory, registers) at
//      once, in parallel with the others;
//   3. before its first touch of anything shared (an L2 request, a functional step that reads or
//      writes device memory, a printf), it waits for its turn (TurnGate): until every SM before
//      it in the order has finished its tick. From then on it is the only SM touching shared
//      state, until its tick ends. So every shared unit sees exactly the one-thread sequence.
//      Except: an L2 request whose answer the tick does not read (a plain store: l2_queue.h)
//      waits in the SM's L1 instead, and does not take the turn. Taking the turn hands over
//      what the SMs before it and the SM itself held back, in that order (the L2 still sees the
//      one-thread sequence). And a functional plain load or store of global memory, in a
//      launch whose kernel touches device memory in no other way, runs at once and is logged;
//      two SMs that met on the same bytes make the cycle a fault (touch_log.h);
//   4. the cycle ends when every due SM is done, and what is still held goes to the L2, SM by SM
//      in the order; the block scheduler's decisions, the end-of-cycle checks (done, deadlock,
//      livelock, limits) and the clock's jump stay on one thread, as before. The launches'
//      own work (a kept Cta's reset, the warps' first fetch) runs on the SM's thread before its
//      tick (sm_launch.cpp; perf14: on the 2-core dev host, vec_add 2^20's dispatch took 290 ms
//      of the loop's thread on one thread and 57 ms with 2).
// The one-thread loop (and a cycle the loop runs on one thread) asks the L2 at once: the same
// sequence of requests, the same answers, written to the same places before the cycle ends.
// An SM's own work before its first shared touch overlaps with the others' (compute and shared
// memory: a tiled matmul's inner loop); a cycle whose SMs all start with a global load runs in
// turn, about as fast as on one thread. Cycles with few SMs due run on one thread (waking the
// others would cost more than it saves), and so do stretches of cycles where a timed trial
// found the threads slower than one (a busy host: a thread that must wait for a descheduled one
// loses its time slice; TimingOptions::adapt_threads). Since both ways give the same results,
// which one runs a cycle is free to change at any time.
// How the threads wait (what a cycle costs beyond its ticks): a cycle's SMs pass the turn from
// one to the next, so a wait that puts a thread to sleep puts the kernel's wake-up (microseconds,
// and tens of microseconds from an idle core's sleep state) on the path of every cycle, once per
// SM that waits: on an idle 16-core host, 16 threads gained nothing over one (0.9-1.1x on the
// bench's matmul and stream). So each wait (a worker for the next cycle, an SM for its turn, the
// loop for the cycle's end) first spins on the word it waits for, checking it between pause
// instructions, and sleeps (atomic wait) only when that takes long: between launches, and in
// stretches that the loop runs on one thread. The spin is a time budget per thread (50-500
// microseconds, wait_for in parallel_loop.cpp), not a count of pause rounds: a count that
// shrank after each sleep (stop 38) sank to a few microseconds on the device host (a virtual
// machine, where waking a halted CPU costs more still), and nearly every wait then slept
// (stop 39, int39: matmul_tiled_512 2.1x on 16 threads, 4.9x with a long spin). A thread that
// may not have a core of its own (more threads than the process may run on) spins only briefly.
// Work stealing and the launches (stop 42, perf20; record: scripts/microbench/
// h200-host-loopprof-perf20-2026-11-28.txt, device host, 16 threads, identical JSON):
//   - Built: the trials of adapt_threads back off while the pool wins by 2x (gpu_model.cpp: a
//     one-thread trial every 32 stretches was 16-23% of the 16-thread loop); a slot's first
//     Cta::create runs on the SM's thread when the kernel references no module variable
//     (sm_launch.cpp); the block scheduler reads the glances (sm_glance.h) before an SM.
//     matmul_tiled_512: 4.073 -> 2.974 s (1.37x; 8 threads 1.41x), 6.41x over one thread.
//   - Stealing from any queue with one SM left balanced the threads but moved each stolen SM's
//     state between cores: on vec_add_2^24, 1.48M of 7.22M ticks stolen, work per thread 5.31
//     -> 7.89 us a pool cycle, a launch 9.16 -> 11.67 us, the span no shorter (15.0 -> 15.8 us)
//     and the run no faster (3.379 -> 3.383 s); on matmul it gained nothing either (3.009 s
//     without it). perf20-2 (one run each): base 3.954 s, stealing from any queue 3.181 s, from
//     queues with 2+ left 3.746 s: kept from any (kStealFrom = 1).
//   - Not done: the stream's cycle is its slowest thread's launch (9 us, launch_max 3.7-4.8 us
//     a pool cycle) plus its ticks; a launch ticked first in its thread (the others then
//     stolen) would shorten it, but a thread that ticks out of order may wait for a turn that
//     its own queue holds, so that needs a turn-free cycle known in advance.
// Held to the cycle's end (l2_queue.h; stop 38): the exact form of the quantum for Q = 1, a cycle.
// Built: an SM's plain stores before its turn (their answer only raises the warp's drain time).
// In test 350's streaming and multi-wave vec_add on 2 and 5 threads, 9,500 of 26,560 store
// requests to the L2 were held (the others came after the SM's turn, or on one thread).
// Built in stop 39, the two steps a streaming kernel needs to tick without its turn (each alone
// gains nothing there: the tick that issues a load also fetches the next, a device touch).
// Together, the bench's vec_add 2^22 and 2^24 took no turn at all on 16 threads (comb-1 on the
// device host: turn_ticks=0 of 1,642,256 SM ticks); what a cycle then costs is its slowest
// thread and the waits (wait_for):
//   1. Built (stop 39): loads' L1 misses in l2_queue.h, each load's answer a held one (L2Queue::
//      kHeld + an index) until the flush fills it in: the L1's fill times of the missed
//      sectors (a later load of the tick that hits one waits for that miss's answer too), the
//      MSHR queue (the count at once; can_accept_global's earliest return when full: exact at
//      once when a known miss comes back before any held one can, L2::read_floor, else the SM
//      takes its turn), the scoreboard, hoisted loads' and vector members' ready (sm_held.cpp;
//      read in later ticks only). Not held: cp.async's loads, traced ones. The SM's glance
//      reads none of them (a tick that issues a load wakes the SM next cycle). Plain and strong
//      ld/ldu alike. warplab bench --no-adapt (the counts are the same for 2 and 5 threads):
//      vec_add 2^22, 217,498 of 262,140 L2 reads held, SM ticks that took the turn 269,087 ->
//      186,940 of 1,642,256; matmul_tiled_512, 711,454 of 1,048,576 reads held, turn ticks
//      523,322 -> 277,892 of 8,464,189. Neither took a turn for a full MSHR queue or for a
//      load asked at once (a temporary counter): the turns left are the functional steps'
//      device touches (a tick that issues a load also fetches the next: item 2).
//   2. Built (touch_log.h; stop 39): functional plain ld/st of global and constant memory
//      without the turn, in a launch whose kernel touches device memory in no other way (a
//      static look, once a launch): each step logs the sectors and bytes it touched; two SMs
//      on the same bytes, a store among them and the later one before its turn, make the
//      cycle a fault (run_timing's redo on one thread). A fault stays a fault (redo).
//      The bench's vec_add 2^22 and matmul_tiled_512 (2 or 5 threads, every cycle with 8 or
//      more SMs due on the threads): 168,239 and 243,759 SM ticks took the turn at a functional
//      touch, none now; ticks that took the turn at all, 269,087 -> 129,568 of 1,642,256 and
//      523,322 -> 370,576 of 8,464,189 (the rest: L2 loads, item 1, built beside it); no launch
//      redone.
//   3. Atomics, the TMA's L2 requests (tma.cpp asks l2_->read/write), dsmem, printf stay on the
//      turn; the sampled mode's replay (fast_forward.cpp) runs between cycles on one thread.
// Not done (evaluated for issue 26): a cycle quantum, so that an SM runs Q cycles without waiting.
// Its L1 misses would be queued and handed to the L2 at the quantum's end, and each SM's
// functional global accesses logged, a conflict between SMs (same bytes, a write among them)
// sending the launch to the one-thread redo. What that changes, and why it is not built yet:
//   - When the L1 learns a fill's cycle: at the quantum's end instead of in the tick that
//     missed. Today that cycle is used at once: the warp's scoreboard (write_pending), the
//     MSHR queue's earliest return (can_accept_global's wake), a later miss to the same
//     sector merging with the fill (set_fill), a vector load's members (vector_issued), the
//     compiler schedule's "is that load's data back" (loaded_operands_ready), an exited warp's
//     drain. With Q no longer than the shortest L1->L2->L1 trip (277 cycles on the H100
//     preset; per preset, the L2 hit and atomic latencies bound it), none of these can change
//     inside the quantum (nothing sent in it comes back in it), so each could hold a pending
//     reference filled at the quantum's end, and the cycles stay exactly today's IF the L2
//     takes the quantum's requests in (cycle, SM order) order, which is the one-thread loop's
//     order: the one-thread loop can then use the same rule and every thread count gives
//     today's JSON. That is many places in sm.cpp / sm_compiler.cpp / l1tex.cpp that read a
//     `ready` the moment they ask for it: a change of the SM's structure, not of this unit.
//   - In SM order (all of SM 131's requests of the quantum, then SM 130's ...), as proposed,
//     the cycles change: a slice's queue is one "free from" time per path (l2.h: occupy),
//     right only for requests arriving in time order; a request from cycle q+3 handed after
//     one from q+90 waits behind it, up to Q cycles of queueing that the hardware does not
//     have, and the DRAM's open rows see another order (row hits, activations). Bandwidth-bound
//     points (the stream, the L2-bound corpus points) would move, and the corpus would have to
//     be validated again (validation/data/validate-2026-11-27-stop33.txt is the reference).
//   - Device memory: a launch whose blocks talk through global memory (atomics whose returned
//     values steer the threads: test 350's histogram, tickets, a decoupled look-back scan, spin
//     flags) conflicts in nearly every quantum, so it would always be simulated twice (slower
//     than today); a sound version needs a rollback per quantum, not per launch.
//   - The block scheduler places blocks in the cycle an SM has room (block_scheduler.h, on
//     the loop's thread): an SM whose block ends inside a quantum would have to stop there
//     (or the placement wait until the quantum's end, another change of cycles).
// What the exact form (pending references, (cycle, SM) order) would gain besides threads: one
// core spends its time on first touches of per-warp state (the registers, 8 bytes a lane, and
// 512-byte window entries of 132 x 64 warps, each visited once a cycle: scripts/microbench/
// h100-host-bench-threads-par5-2026-11-27.txt); an SM ticked Q cycles in a row keeps its own
// state in the core's caches.
// Simplified: a fault inside a parallel cycle (the one-thread loop would have stopped at that SM
// and not ticked the later ones) is not reproduced in place: run_timing simulates that launch
// again on one thread from the same starting memory (gpu_model.cpp). A traced launch, one with
// synccheck/racecheck, and one on a kept (warm) L2 run on one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "sim/timing/loop_profile.h"
#include "sim/timing/sm.h"
#include "sim/timing/sm_glance.h"
#include "sim/timing/touch_log.h"
#include "sim/timing/turn_gate.h"

namespace warplab::timing {

class ParallelTicks final : public TurnGate {
 public:
  // `threads` host threads in all, the caller's included (threads - 1 are started here and sleep
  // between cycles). SM `id`'s home is thread id % threads (it may be ticked by another: above).
  explicit ParallelTicks(int threads);
  ~ParallelTicks();
  ParallelTicks(const ParallelTicks&) = delete;
  ParallelTicks& operator=(const ParallelTicks&) = delete;

  int threads() const { return threads_; }
  // The thread that ticks SM `id` first in each cycle, unless another takes it (above).
  int home_of(int sm_id) const { return sm_id % threads_; }
  // Ticks the SMs sms[due[0]], sms[due[1]], ... (in the one-thread loop's order) at cycle
  // `now`, and refreshes their glances. False when one faulted: the cycle then differs from the
  // one-thread loop's (see above).
  bool tick(std::vector<Sm>& sms, const std::vector<uint32_t>& due, uint64_t now,
            std::vector<SmGlance>& glances);
  void wait_turn() override;
  bool before_turn() const override;
  bool in_parallel_cycle() const override;
  // SM ticks in the cycles this pool ran, and of them those that took the turn (all threads).
  uint64_t sm_ticks() const;
  uint64_t turn_ticks() const;
  // A launch whose functional device touches are logged (touch_log.h) instead of taking the
  // turn; nullptr: they take the turn. A cycle whose log met() is then treated as a fault.
  void log_touches(TouchLog* log) { touches_ = log; }
  bool before_touch() override;
  void touched(const func::StepInfo& step) override;
  // SM ticks of parallel cycles that took the turn at a functional device touch (measurement).
  uint64_t touch_turns() const;
  // Where the pool's cycles spend host time (loop_profile.h); nullptr: not measured. Set
  // between launches only.
  void profile(LoopProfile* p) { profile_ = p; }

 private:
  void work(int thread);
  // The next position `thread` ticks: the first left in its own queue, else the last left in
  // the queue with the most left (another thread's); n (the due count) when none is left.
  uint32_t claim(int thread);
  void tick_one(int thread, uint32_t position);
  void finish(uint32_t position);
  // Positions [0, ended_prefix()) have all ended their ticks in this cycle.
  uint32_t ended_prefix();
  // Hands the L2 requests held back by the due SMs at positions [flushed_, end) to the L2, in
  // the order (l2_queue.h); called by the SM holding the turn, and after the cycle's ticks.
  void flush_until(uint32_t end);
  // Takes l2_owned_ (spinning): an SM in its turn, until its tick ends.
  void own_l2();

  int threads_;
  bool own_core_;               // a core for each thread: waits spin longer (wait_for)
  std::vector<uint16_t> home_;  // per SM: home_of(id), looked up (a division per SM per cycle)
  // The cycle's positions, each thread's home SMs' together in the order (Counts::queue says
  // which part of it is still the thread's to tick).
  std::vector<uint32_t> order_;
  std::vector<uint32_t> begins_;  // tick(): where each thread's queue begins in order_
  std::vector<std::thread> workers_;
  // The cycle's work (written by the caller before it moves start_, read by the workers after).
  Sm* sms_ = nullptr;
  SmGlance* glances_ = nullptr;
  const std::vector<uint32_t>* due_ = nullptr;
  uint64_t now_ = 0;
  bool stop_ = false;
  std::atomic<uint32_t> start_{0};    // cycles handed out: a worker starts when it moves
  std::atomic<uint32_t> running_{0};  // workers still inside the cycle's work
  // Which ticks have ended: per position, the number of the cycle in which it last ended (its
  // own cache line, written once a tick; stop 39 kept one shared prefix, moved by a
  // compare-and-swap after every tick, a cache line every thread wrote 132 times a cycle);
  // prefix_: a position below which all have ended (moved on by whoever reads them).
  uint32_t cycle_ = 0;
  struct alignas(64) Ended {
    std::atomic<uint32_t> cycle{0};
  };
  std::unique_ptr<Ended[]> ended_at_;
  size_t ended_size_ = 0;
  std::atomic<uint32_t> prefix_{0};
  std::atomic<uint32_t> waiters_{0};  // SMs in wait_turn
  std::atomic<uint32_t> ended_{0};    // moved after a tick ends while one waits (its futex word)
  std::atomic<bool> faulted_{false};
  // Positions [0, flushed_) have handed their held L2 requests over (written and read only
  // by whoever holds l2_owned_, and by the loop after the cycle's ticks: ordered by ended_prefix).
  uint32_t flushed_ = 0;
  // Whoever touches the L2 and flushed_ inside a cycle: the SM holding the turn (until its tick
  // ends), or the loop's thread handing over the ended SMs' held requests while others tick.
  std::atomic<bool> l2_owned_{false};
  struct alignas(64) Counts {  // per thread, its own cache line
    uint64_t ticks = 0, turns = 0;
    uint64_t touch_turns = 0;  // turns taken at a functional device touch (touch_turns())
    int64_t begin_ns = 0, end_ns = 0;  // profile_: this cycle's work, on the host's steady clock
    int64_t launch_ns = 0;  // ... and of it, its SMs' launches (sm_launch.cpp), and how many
    uint64_t launches = 0;  // SMs ran them (both moved to the profile at the cycle's end)
    uint64_t steals = 0;    // SMs it took from another thread's queue (moved likewise)
    // The thread's queue: order_[front, back) (front in the low half), taken from the front by
    // the thread, from the back by the others (compare-and-swap).
    std::atomic<uint64_t> queue{0};
  };
  std::vector<Counts> counts_;
  TouchLog* touches_ = nullptr;
  LoopProfile* profile_ = nullptr;
};

}  // namespace warplab::timing
