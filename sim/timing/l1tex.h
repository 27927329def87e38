// L1TEX: one SM's load/store unit, L1 data cache and shared-memory pipe.
//
// Hardware: a warp's memory instruction goes from the scheduler into the LSU (MIO) queue. Global
// and local accesses pass the coalescer and then the L1 "t-stage", which resolves one 128-byte
// line's tags per cycle: a coalesced access takes one cycle there, a fully scattered one 32.
// Sectors that hit return after the L1 hit latency; missing sectors take an MSHR and go to the L2
// (one MSHR per missing line; later requests for a sector already on its way merge with it).
// When the LSU queue or the MSHRs are full the warp cannot issue another memory instruction:
// Nsight Compute calls that stall_lg_throttle. Shared memory uses the same unit's banks: one
// wavefront per cycle, a bank conflict adding wavefronts (stall_mio_throttle when backed up).
//
// Modelled: the t-stage as a queue of line lookups, L1 write-through without allocation (a store
// invalidates its sectors in L1), loads allocate in L1, a bounded number of line misses in flight
// (a time-ordered queue of their return cycles), atomics bypass the L1 to the L2, shared memory
// wavefront queue, and the Nsight-style counters.
// Strong loads bypass the L1 too: the L1 is not coherent between SMs, so a volatile load
// (ptxas: LDG.E.STRONG.SYS), a relaxed or acquire one (STRONG.GPU) and ld.global.cg / .cv
// (cache at the L2 only: __ldcg is LDG.E.STRONG.GPU) are served by the L2 every time and
// allocate nothing in the L1. atomics.cu on the H200 (scripts/microbench/h200-latency-2026-11-
// 27.csv): a dependent chain of __ldcg loads of L2-resident words takes 340 cycles a link, an
// L2 round trip, where a plain load of a line the L1 holds takes 39 (chains.cu ldg_l1).
// Fences: a warp's fence waits for its own stores and atomics to be acknowledged. A sequentially
// consistent one of GPU scope (__threadfence(): membar.gl, ptxas's MEMBAR.SC.GPU, followed by
// CCTL.IVALL) takes far longer, about two L2 round trips, whether or not stores are pending:
// latency/flags.cu on the H100 (scripts/microbench/h100-flags-2026-11-27.tsv) runs a loop of
// __threadfence() at 618 cycles an iteration and of a volatile store + __threadfence() at 623,
// where the store alone takes 6.5.
// A fence and its SM (scripts/microbench/h100-fence-drain-2026-11-27.md): the SM's stores leave
// for the L2 one after another at 32 bytes a cycle (l1.store_sectors_per_cycle), and a fence goes
// out behind the stores queued there, whichever warp issued them: with 7 warps streaming line
// stores it takes ~300 cycles more (the queue, l1.store_queue_sectors, at which the warps' global
// accesses throttle); a warp alone never queues (one line per 12.8 cycles). (Built, off in the
// presets: at a sector a cycle for every store, Triton's wide epilogue stores drain too late.) Fences of one SM end
// at least l1.fence_spacing (~440) apart: a fence issued D cycles after another warp's takes
// max(0, ~400 - D) more; fences going out together (l1.fence_join_cycles) end together, so eight
// warps fencing in step cost about one fence each (656-703 on the H100).
// Simplified: the scope is not read (a .cta-scope relaxed load would be allowed to hit). The store
// path's queue is one depth for any number of warps (the H100's is deeper with 31: +450-560), and
// the L2's own backlog does not reach back into it (a GPU-wide store stream slows a fence by 385
// cycles on the H100, not in the model); atomics do not use the store path.
// Simplified: the queue limits are checked before an instruction issues (one instruction may
// overshoot them); the texture path and ld.global.nc's separate cache are not modelled.
#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "sim/timing/cache.h"
#include "sim/timing/coalescer.h"
#include "sim/timing/config.h"
#include "sim/timing/l2.h"
#include "sim/timing/l2_queue.h"
#include "sim/timing/shared_banks.h"
#include "sim/timing/trace.h"
#include "sim/ptx/isa.h"

namespace warplab::timing {

// Per-launch memory counters, named after the Nsight Compute metric they correspond to.
struct MemoryCounters {
  uint64_t global_ld_requests = 0;   // l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  uint64_t global_ld_sectors = 0;    // l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  uint64_t global_ld_sector_hits = 0;// l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
  uint64_t global_st_requests = 0;   // l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  uint64_t global_st_sectors = 0;    // l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  uint64_t local_requests = 0, local_sectors = 0;
  uint64_t atomic_requests = 0;      // l1tex__t_requests_pipe_lsu_mem_global_op_atom/red
  uint64_t line_lookups = 0;         // t-stage cycles of work (lines)
  uint64_t shared_ld_requests = 0;   // smsp__inst_executed_op_shared_ld.sum
  uint64_t shared_st_requests = 0;   // smsp__inst_executed_op_shared_st.sum
  uint64_t shared_ld_wavefronts = 0; // l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  uint64_t shared_st_wavefronts = 0; // l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  uint64_t shared_bank_conflicts = 0;  // of loads and stores (..._shared_op_ld + _op_st)
  void add(const MemoryCounters& o);
};

// What one global access did, for the trace (a request's journey).
struct AccessJourney {
  uint64_t issue = 0, tag_stage = 0, ready = 0;
  int lines = 0, sectors = 0, l1_hit_sectors = 0, l1_miss_sectors = 0, dram_sectors = 0;
  // When set (tracing), each line the access touches is appended here with its sector mask and
  // where each sector was served (trace.h). Null: nothing is recorded (the fast path).
  std::vector<AccessLine>* lines_out = nullptr;
};

class L1Tex {
 public:
  L1Tex(const GpuConfig& config, L2& l2);

  // Whether a global/local memory instruction can enter the LSU at `now`; if not, `wake` is the
  // earliest cycle it might.
  bool can_accept_global(uint64_t now, uint64_t& wake);
  bool can_accept_shared(uint64_t now, uint64_t& wake) const;

  // A load (global or local): returns the cycle its data can be used.
  // `strong`: a load served by the L2 whatever the L1 holds (bypasses_l1).
  // `may_hold` (untraced: j->lines_out null), inside a parallel cycle before the SM's turn: its
  // misses wait for the flush (l2_queue.h), and when its answer needs theirs (or a fill they
  // bring) it returns a held answer (L2Queue::is_held), held_answer() once flushed.
  uint64_t load(const CoalescedAccess& a, bool local, uint64_t now, AccessJourney* j = nullptr,
                bool strong = false, bool may_hold = false);
  // A held answer of load() after the flush that followed it: the cycle its data can be used
  // (valid until the next held load after that flush).
  uint64_t held_answer(uint64_t held) const { return loads_[held - L2Queue::kHeld]; }
  static bool bypasses_l1(const ptx::Modifiers& m) {
    return m.volatile_ || m.relaxed_or_acquire || m.cache == ptx::CacheOp::Cg ||
           m.cache == ptx::CacheOp::Cv;
  }
  // A store: returns the cycle it is complete in the L2 (what a draining warp waits for).
  // With `drain` (the warp's drain time), it raises *drain to that cycle itself, and inside a
  // parallel cycle before the SM's turn it holds the L2 requests back (l2_queue.h): *drain then
  // rises when the loop hands them over, and the returned cycle is a lower bound (`now`).
  uint64_t store(const CoalescedAccess& a, bool local, uint64_t now, AccessJourney* j = nullptr,
                 uint64_t* drain = nullptr);
  // Hands the loads and stores held back in this cycle to the L2 (the parallel loop, in its
  // order) and fills in their answers: the L1's fill times, the misses in flight, held_answer.
  void flush_l2() {
    if (holds()) ask_l2(), fill_held();
  }
  // flush_l2's two halves: the L2 requests (on the loop's order), and the answers written into
  // the L1's own state (SM-local: the parallel loop runs it on the SM's thread, before its next
  // tick, sm_held.cpp).
  void ask_l2() { held_.flush(l2_); }
  void fill_held();
  bool holds() const { return !held_.empty(); }
  // An atomic or reduction, resolved at the L2: returns the cycle the old values are back
  // (`returns`: an ATOMG whose old value is read, l2.atomic_return_latency later than a RED).
  uint64_t atomic(const CoalescedAccess& a, const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                  uint64_t now, AccessJourney* j = nullptr, bool float_add = false,
                  bool returns = false);
  // A shared-memory access costing `cost`: returns the cycle its data can be used.
  // An atomic's extra passes (lanes on one word) are not bank conflicts: the hardware's
  // l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st counts loads and stores only.
  uint64_t shared(const SharedAccessCost& cost, bool is_store, bool atomic, uint64_t now);

  const MemoryCounters& counters() const { return counters_; }
  const L2QueueCounts& queue_counts() const { return held_.counts(); }

  // Cycles a fence holds its warp from its issue (the warp also waits for its stores' acks, as
  // any fence does): l1.fence_sc_latency for a sequentially consistent fence of GPU or system
  // scope (membar.gl/.sys, fence.sc.gpu/.sys), 1 for the others.
  static uint64_t fence_cycles(const L1Config& c, const ptx::Instruction& i);
  // A fence issued at `now`: the cycle it releases its warp (before its own stores' acks, which
  // the caller adds). An SC fence of GPU or system scope goes out behind the stores the SM has
  // queued for the L2 (l1.store_sectors_per_cycle) and then takes fence_cycles, ending at least
  // l1.fence_spacing after the SM's previous one (or with it, if it went out within
  // l1.fence_join_cycles of it).
  uint64_t fence(const ptx::Instruction& i, uint64_t now);

 private:
  uint64_t tag_stage(int lines, uint64_t now);

  const GpuConfig& config_;
  L2& l2_;
  L2Queue held_;  // stores and loads' misses held back to the end of the cycle (l2_queue.h)
  // The held misses (index: L2Queue's read index): the L1 way and sectors each will fill (they
  // hold L2Queue::kHeld + the index as their fill time till then; none for a strong load).
  struct HeldMiss {
    int64_t way;
    uint32_t fill_mask;
  };
  std::vector<HeldMiss> held_misses_;
  uint64_t held_floor_ = ~uint64_t{0};  // the earliest their answers can be (L2::read_floor)
  // Held loads (index: the held answer - kHeld): the known part of each one's answer, and after
  // the flush the answer; held_waits_: (load, miss) pairs, the misses each load's answer waits
  // for (its own, and fills it hit).
  std::vector<uint64_t> loads_;
  std::vector<std::pair<uint32_t, uint32_t>> held_waits_;
  bool loads_flushed_ = false;  // loads_ holds answers of a past flush
  SectoredCache l1_;
  double tag_free_ = 0;        // cycle the t-stage is free again
  double shared_free_ = 0;     // cycle the shared-memory pipe is free again
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> misses_;  // return cycles
  double store_free_ = 0;      // cycle the SM's store path to the L2 has sent all queued stores
  uint64_t fence_out_ = 0, fence_end_ = 0;  // the SM's last SC fence: when it went out, ended
  bool fenced_ = false;                     // whether there was one
  MemoryCounters counters_;
};

}  // namespace warplab::timing
