// The streaming multiprocessor (SM): where warps are scheduled and instructions issue.
//
// Hardware: an SM holds up to 64 warps from up to 32 blocks. Its four sub-partitions each own a
// quarter of the warps and one warp scheduler that issues at most one instruction per cycle. A
// warp can issue when its next instruction is fetched, its source and destination registers are
// not waiting for an earlier result (the scoreboard), and the functional-unit pipeline it needs
// (FP32, INT, FP64, SFU, load/store, branch ...) can accept it. Results come back after a fixed
// latency (ALU pipes) or a variable one (memory). With enough ready warps, the scheduler always
// finds one to issue while the others wait: that is how GPUs hide latency.
//
// Modelled: per-warp scoreboard of pending register writes (scoreboard.h; kind: fixed latency,
// MIO, L1TEX), per-sub-partition pipelines with latency and issue interval, branch resolution and divergence
// (each serialized path issues its own instructions), bar.sync, exited warps draining their
// stores, the L1TEX unit (l1tex.h), one warp state per resident warp per cycle. The SM runs a
// cycle only when something can happen: when no warp can issue, it sleeps until the earliest
// cycle one could (the simulation cost follows the work, not the cycle count). Within a cycle only
// the warps whose wake cycle has come are looked at; a stalled warp keeps its state (and its
// cycles are counted in one step) until then, since what stalls it cannot clear any earlier.
// The compiler's schedule: the GPU runs ptxas's SASS, not the PTX. ptxas unrolls loops (4x on
// top of NVVM's own unrolling) and hoists independent loads above their uses, so a warp issues a
// whole unrolled body's loads back to back and keeps them all in flight (matmul_naive: 32 LDGs per
// body). The model does the same to the PTX as it runs: while a warp's next instruction waits on
// its scoreboard, the warp may issue a later plain load of its window instead, provided that
// (1) the load's address comes from address arithmetic alone, or from an earlier load's result
// that is back (an ldmatrix's address from the last one's, t.ldmatrix), and no register it needs
// is still being written, (2) no atomic, barrier, fence, call, exit, volatile or ordered access,
// warp-splitting branch, conditional branch that stays in the SASS (ptxas does not speculate
// loads: lesson 17's peeled copy loop), or store to the load's own state space (or to a generic
// address) lies between (a shared store does not hold back a global load: matmul_tiled's SASS issues the LDG of
// the B tile before the STS of the A tile), (3) it belongs to the same unrolled body (at most
// compiler.unroll iterations of a loop: taken backward branches counted from the waiting
// instruction), (4) fewer than compiler.max_hoisted_loads loads are already ahead, and (5) the
// registers holding results of the warp's loads (issued ahead, or reached but not yet read by
// any instruction) are fewer than compiler.load_register_share of the kernel's registers: ptxas
// keeps about half of them for loads in flight (matmul_naive, 32 registers: at most 16 LDG
// results outstanding in its SASS), so a 32-load body takes two or more round trips. Shared loads that read, lane by lane, the bytes right after an earlier shared load
// within one aligned 16-byte piece join it as one vector load (ptxas's LDS.128: matmul_tiled
// reads its A tile row 16 bytes at a time) and take no issue slot or wavefront of their own.
// Loads leave in program order; the result joins the scoreboard when the warp reaches
// the load in program order, so every result is what PTX order gives (the functional executor
// already ran it). Counts stay with each instruction's own PTX and CUDA line.
// A branch reads a compare's predicate later than an ALU instruction would: ptxas gives ISETP a
// stall of pipes.predicate_branch_latency (13 on the H100) before a dependent BRA, and fills it
// with the block's other work where it can, so a short rolled loop pays it on every iteration
// (predicate_branch_ready).
// Simplified: the functional executor runs each instruction when the warp *fetches* it (ahead of
// issue, by up to compiler.window instructions while looking for a load to hoist), which keeps
// results identical for race-free kernels; the address arithmetic that ptxas folds into the
// loads' immediate offsets still issues here; no instruction cache; a single dispatch port per
// sub-partition.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/func/cta.h"
#include "sim/timing/async_copy.h"
#include "sim/timing/config.h"
#include "sim/timing/dsmem.h"
#include "sim/timing/issue_pipe.h"
#include "sim/timing/l1tex.h"
#include "sim/timing/occupancy.h"
#include "sim/timing/scoreboard.h"
#include "sim/timing/trace.h"
#include "sim/timing/turn_gate.h"
#include "sim/timing/warp_scheduler.h"
#include "sim/timing/warp_state.h"
#include "sim/timing/wgmma_pipe.h"

namespace warplab::timing {

inline constexpr uint64_t kNever = ~0ull;

// What every SM of one launch shares.
// LaunchContext::compiler_marks' bits.
enum CompilerMark : uint8_t { kUnrolledBranch = 1, kSerialCopyStore = 2 };

struct LaunchContext {
  const GpuConfig& config;
  const func::Program& program;
  func::DeviceMemory& memory;
  const func::LaunchConfig& launch;
  const Occupancy& occupancy;
  func::LaunchStats& stats;
  L2& l2;
  Trace* trace = nullptr;                     // nullptr: no detail recording
  std::vector<WarpStateCycles>& by_ptx_line;  // indexed by PTX line
  uint64_t next_access_id = 0;
  std::vector<func::Hazard> hazards;  // synccheck/racecheck, from finished blocks
  // Events after which a stuck-looking launch may move again: stores and atomics, exits,
  // barrier releases, block launches (the livelock watch restarts on each).
  uint64_t changes = 0;
  // Per function of the module, per instruction: what ptxas does there (CompilerMark bits):
  // kUnrolledBranch at a loop's backward branch that ptxas unrolls (schedule.h: unrolls(); the
  // compiler schedule hoists loads across its iterations), kSerialCopyStore at a store of a
  // loop's first peeled copy (schedule.h: serial_copy_stores; a fence for find_hoist).
  std::vector<std::vector<uint8_t>> compiler_marks;
  // Per function, per instruction: a shared load's vector bytes (schedule.h: shared_vector_bytes).
  std::vector<std::vector<uint8_t>> vector_bytes;
  // The parallel loop (parallel_loop.h): a functional step that touches device memory waits for
  // the SM's turn first. nullptr on one thread.
  TurnGate* gate = nullptr;
};

class Sm {
 public:
  Sm(int id, LaunchContext& ctx);
  Sm(Sm&&) noexcept;
  ~Sm();

  bool has_room() const;
  bool busy() const { return resident_blocks_ > 0; }
  int resident_blocks() const { return resident_blocks_; }
  // Places block `index` (linear index `linear`) on this SM at cycle `now`; as block rank
  // `rank` of `cluster` when not nullptr (sim/func/cluster.h).
  Status launch_block(func::Dim3 index, uint64_t linear, uint64_t now,
                      func::ClusterState* cluster = nullptr, uint32_t rank = 0);
  // The block scheduler's way in (sm_launch.cpp): launch_block at once, or with `defer` (the
  // parallel loop's cycles) only recorded when the block's slot keeps a Cta from an earlier
  // block: has_room(), busy() and next_wake() then answer as after the launch, and
  // run_launches() does launch_block's work later, on the thread that ticks the SM, before its
  // tick in the same cycle. Deferred launches run before one made at once (their order stays).
  // Which launches place_block may defer: none, those into a slot that keeps a Cta, or all
  // (also a slot's first, whose Cta::create then runs on the SM's thread: may_defer_creates).
  enum class Defer : uint8_t { None, Kept, All };
  Status place_block(func::Dim3 index, uint64_t linear, uint64_t now, Defer defer);
  Status run_launches();
  bool launches_pending() const { return !deferred_.empty(); }
  uint64_t launches_deferred() const { return launches_deferred_; }  // place_block's, in all
  // Whether a launch of `kernel` may be deferred: its first instruction, which launch_block
  // runs functionally for every warp, touches no device memory (its order among the cycle's
  // SMs would matter).
  static bool may_defer_launches(const ptx::Function& kernel);
  // Whether a block's Cta::create may run on the SM's thread: `kernel` references no module
  // variables (the first block's create binds them, allocating device memory).
  static bool may_defer_creates(const func::Program& program, const std::string& kernel);
  // Simulates cycle `now` (requires now >= next_wake()). Returns false when the kernel faulted.
  bool tick(uint64_t now);
  // Starts loading from the host's memory what tick() reads first (the SM's own fields from
  // warps_ on: 8 lines; its slots' wake cycles and due/ready/MIO bits), so that the one-thread
  // loop, or a pool thread, can ask for the next SM's while it ticks this one. A hint only: it
  // changes nothing, and reads only where those lines are (its vectors' data and wake_'s size).
  void prefetch_tick() const;
  uint64_t next_wake() const { return next_wake_; }
  // Accounts warp states up to `now` (end of the run).
  void flush(uint64_t now);

  int id() const { return id_; }
  uint64_t instructions() const { return instructions_; }
  uint64_t changes() const { return ctx_.changes; }  // its LaunchContext's (the livelock watch)
  uint64_t active_cycles() const { return active_cycles_; }
  uint64_t resident_warp_cycles() const { return resident_warp_cycles_; }
  uint64_t blocks_completed() const { return blocks_completed_; }
  // Each warp of the resident blocks: its key (block's linear index x 64 + warp index, with bit
  // 63 set once it has exited) and the warp instructions it has issued, in slot order (within-
  // wave rates' drain: rate_sampler.h).
  void warp_progress(std::vector<std::pair<uint64_t, uint64_t>>& out) const;
  const WarpStateCycles& state_cycles() const { return state_cycles_; }
  const L1Tex& l1tex() const { return l1tex_; }
  // Hands the L2 requests its L1 held back in this cycle to the L2 (parallel_loop.h), and fills
  // the answers of its held loads in where the tick put them (sm_held.cpp).
  void flush_l2() { ask_l2(), fill_held(); }
  // Its two halves (sm_held.cpp): ask_l2 hands the held requests to the L2 (in the loop's order,
  // any thread); fill_held writes the answers into the SM's own state (the L1's fills and
  // misses, the warps' scoreboards), on the thread that ticks it, before its next tick (and
  // before anything else reads that state: the loop calls it before a tick, a launch, the
  // sampler's snapshot and the results).
  void ask_l2();
  void fill_held();
  const std::optional<func::LaunchFault>& fault() const { return fault_; }
  // Stops the SM's resident blocks at an outside limit (`what`): the first block's Deadlock or
  // Hang fault (func::Cta::stop), which also becomes fault(). False when no block is resident.
  bool stop(const std::string& what);
  // Hands the hazards of the blocks still resident (a stopped launch) to ctx.hazards.
  void collect_hazards();
  // The livelock watch of every resident block (func::Cta::watch_loops); looping(): every
  // resident block loops unchanged (and there is one).
  void watch_loops(bool on);
  bool looping() const;

 public:
  using Pending = PendingWrite;  // a register write not yet visible (scoreboard.h)

 private:
  struct Ahead;
  struct Window;
  struct Warp;
  struct Block;

  // Warp `w` of sub-partition `sp`: its state this cycle, and the cycle it must be looked at again.
  // Inline (sm_warp.h): a warp whose next instruction has cleared its scoreboard goes straight to
  // pipe_state (the usual case of ready and throttled warps); the others to evaluate_stalled.
  WarpState evaluate(Warp& w, int sp, uint64_t now, uint64_t& wake);
  WarpState evaluate_stalled(Warp& w, int sp, uint64_t now, uint64_t& wake);
  // Whether nothing holds w but a pipe or a queue (its next instruction is known and clear of
  // the scoreboard, fetched, and it is neither exited nor at a barrier): pipe_state answers.
  bool clear_to_issue(const Warp& w, uint64_t now) const;
  // Warps held by a full MIO queue (sm_mio_wait.h): whether w, in `state` after a full look,
  // is one; and the wake cycles of those of `held` (slots 64 * wd + bit) while it stays full.
  bool waits_on_mio(const Warp& w, WarpState state, uint64_t now) const;
  void mio_wait(int sp, int wd, uint64_t held, uint64_t now, uint64_t& wake_min);
  // Ready warps kept from the last look (sm_ready.h): of `kept` (slots 64 * wd + bit), those
  // whose pipe and queue still take them now; and look(), the tick's full look at warp slot s
  // (its state, wake cycle and accounting; sets its bit in `go` when it is ready). False: a
  // fault.
  struct Keep;
  uint64_t still_ready(int sp, int wd, uint64_t kept, uint64_t now);
  bool look(int s, int sp, uint64_t now, uint64_t& wake_min, uint64_t& go);
  // Steps 2 and 3 of evaluate() (sm_warp.h): a warp whose next instruction is clear to issue.
  WarpState pipe_state(Warp& w, int sp, uint64_t now, uint64_t& wake);
  // Fills w's summary of its next instruction, win.first (Warp::next_*).
  void learn_next(Warp& w);
  bool issue(int slot, uint64_t now);
  // Appends the warp's next instruction to its window (runs it functionally). False: it faulted.
  bool fetch(Warp& w, uint64_t now);
  void drop_unrolled(Warp& w, Ahead& e);
  void guarded_branch(Ahead& e) const;
  // Whether instruction k of `function` is the branch closing an innermost loop ptxas unrolls.
  bool unrolled_branch(int32_t function, size_t k) const;
  // The cycle a branch may read the predicate that the compare `in` of warp `w` writes.
  uint64_t predicate_branch_ready(const Warp& w, const func::StepInfo& in) const;
  // The compiler's schedule (CompilerConfig): a later load of the window that could issue now
  // while win.at(0) waits; 0 when none. May fetch further ahead (sets fault_ if that faults).
  // Inline (sm_warp.h): what an earlier look decided answers at once (w.hoist_at); only a warp
  // without that answer has its window scanned (scan_hoist, sm_compiler.cpp).
  int find_hoist(Warp& w, int sp, uint64_t now, uint64_t& wake);
  int scan_hoist(Warp& w, int sp, uint64_t now, uint64_t& wake);
  uint64_t loaded_operands_ready(const Warp& w, const Ahead& e, size_t k) const;
  void depend(Warp& w, Ahead& e, bool arithmetic, bool slow_path);
  bool returns_value(const func::StepInfo& in);
  std::vector<std::vector<int8_t>> returns_;  // per function and pc: -1 not known yet
  // find_hoist's load win.at(w.hoist_at): w.hoist_at when the load/store pipe and its LSU queue
  // take it now, else 0 (and `wake` lowered to when they might). Inline (sm_warp.h).
  int hoist_now(Warp& w, int sp, uint64_t now, uint64_t& wake);
  // l1tex_.can_accept_shared(now, wake), asked once a cycle: the answer holds until a shared
  // access enters the MIO queue (access() forgets it), however many warps ask (sm_warp.h).
  bool mio_accepts(uint64_t now, uint64_t& wake);
  // Registers of loaded results: held from the load until an instruction reads them (or writes
  // them again); they bound how many loads the compiler's schedule keeps in flight. Kernel
  // parameters hold none: ptxas reads them from the constant bank as operands (c[0x0][...]),
  // so an ld.param read only at the end (the output pointer) keeps no register from the loads.
  static void hold_loaded(Warp& w, const func::StepInfo& in);
  static void read_loaded(Warp& w, const func::StepInfo& in);
  // ptxas's vector loads: a shared load that reads, in every lane, the bytes right after an
  // earlier one's within one aligned 16-byte piece joins that load (LDS.64/LDS.128).
  void vectorize(Warp& w, Ahead& e);
  // win.at(k) issued with data back at `ready`: the loads that joined it get that time.
  void vector_issued(Warp& w, size_t k, uint64_t ready);
  // The memory side of issuing `in` (coalescer, L1TEX, trace): when its data is back, and which
  // scoreboard waits for it.
  uint64_t access(int slot, const func::StepInfo& in, uint64_t now, WarpState& kind,
                  bool vector_leader = false);
  // An ld/ldu's L1TEX load (sm_held.cpp): may be held to the cycle's end (l2_queue.h), its
  // answer then a held one until flush_l2 fills it in (held_slots_: the warps that have one).
  uint64_t load(int slot, const CoalescedAccess& a, bool local, uint64_t now, AccessJourney& j,
                const ptx::Instruction& inst);
  std::vector<int> held_slots_;
  bool unfilled_ = false;  // ask_l2 ran and fill_held not yet
  // Records an issue in the trace.
  void trace_issue(int slot, const func::StepInfo& in, uint64_t now);
  // win.at(0) issued: drop it, pass over loads already issued ahead (their results join the
  // scoreboard now, in program order), and fetch when the window is empty.
  bool advance(Warp& w, uint64_t now);
  void exit_warp(int slot, uint64_t now);
  void try_release_barrier(Block& b, uint64_t now);
  void free_warp(int slot, uint64_t now);  // now: the cycle the slot is free
  void account(Warp& w, int slot, uint64_t now);

  int id_;
  LaunchContext& ctx_;
  L1Tex l1tex_;
  AsyncCopyUnit async_;  // cp.async groups, the TMA unit, mbarrier waits (async_copy.h)
  WgmmaPipe wgmma_;      // warpgroup MMA (wgmma_pipe.h)
  DsmemUnit dsmem_;      // other blocks' shared memory, barrier.cluster (dsmem.h)
  // (prefetch_tick loads the fields from warps_ up to state_cycles_: those tick() reads first
  // stay between them.)
  std::vector<Warp> warps_;  // warp slots
  // Per slot: the cycle the warp must be looked at again (kNever: free slot, or asleep until an
  // event sets it). Kept apart from Warp so that the per-cycle scan touches one small array.
  std::vector<uint64_t> wake_;
  int slot_end_ = 0;  // 1 + the highest slot in use (a block takes the lowest free slots)
  std::vector<uint64_t> age_;  // per slot: its warp's launch order (lower = older), for the policy
  // The tick's slots whose wake cycle has come, one bit per slot (64 a word), and per
  // sub-partition the bits of its slots: the tick visits only these instead of every slot.
  std::vector<uint64_t> due_;
  std::vector<std::vector<uint64_t>> sp_slots_;
  std::vector<uint64_t> mio_wait_;  // per slot, a bit: held by a full MIO queue (sm_mio_wait.h)
  std::vector<uint64_t> ready_;     // per slot, a bit: ready and not picked, kept (sm_ready.h)
  std::vector<Keep> keep_;          // per slot: what keeps such a warp ready
  std::vector<Block> blocks_;  // block slots
  std::vector<std::unique_ptr<WarpSchedulerPolicy>> schedulers_;
  std::vector<std::array<uint64_t, 14>> pipe_free_;  // [sub-partition][UnitClass, IMAD, MATCH]
  std::vector<uint64_t> issue_free_;  // [sub-partition]: busy issuing an expanded instruction
  IssuePipes issue_pipes_;  // each instruction's unit and issue pipe (issue_pipe.h)
  // Registers per thread that may hold results of loads in flight (CompilerConfig).
  int load_registers_;
  std::vector<uint64_t> ready_now_;  // tick(): the ready warps of one sub-partition (a bit a slot)
  uint64_t mio_asked_ = kNever;  // mio_accepts(): the cycle of the answer below (kNever: none)
  bool mio_ok_ = false;
  uint64_t mio_wake_ = kNever;
  int resident_blocks_ = 0;
  int resident_warps_ = 0;
  uint64_t next_wake_ = kNever;
  uint64_t release_wake_ = kNever;  // earliest barrier release set since the last tick
  uint64_t last_account_ = 0;
  uint64_t age_counter_ = 0;
  uint64_t instructions_ = 0, active_cycles_ = 0, resident_warp_cycles_ = 0, blocks_completed_ = 0;
  WarpStateCycles state_cycles_{};
  std::optional<func::LaunchFault> fault_;
  struct Deferred {  // place_block's launches not yet run (sm_launch.cpp)
    func::Dim3 index;
    uint64_t linear, now, wake_before;
    int warps;
  };
  std::vector<Deferred> deferred_;
  uint64_t launches_deferred_ = 0;
};

}  // namespace warplab::timing
