// The state of one resident block and the step loop that executes its warps.
//
// On the GPU a block (CTA) is resident on one SM: its warps share the block's shared memory and
// barriers, each thread has private local memory, and the SM's warp schedulers pick one ready warp
// per cycle per scheduler. Here CtaImpl holds that state; step() is one warp instruction: fetch at
// the SIMT stack's pc, evaluate the guard predicate, count it, call the decoded handler, advance
// the stack (reconverging where paths meet). Which warp steps when is the caller's choice:
// run_functional runs each warp until it blocks, the timing model follows its schedulers.
// Address spaces: global addresses are DeviceMemory addresses; shared and local are offsets in the
// block's / thread's own arrays; in the generic space they appear in two disjoint windows
// (kSharedWindow, kLocalWindow) below the device-memory range, as cvta maps them.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "sim/func/async_copies.h"
#include "sim/func/barrier.h"
#include "sim/func/cluster.h"
#include "sim/func/cta.h"
#include "sim/func/decoded.h"
#include "sim/func/exec.h"
#include "sim/func/hazard.h"
#include "sim/func/racecheck.h"
#include "sim/func/warp.h"

namespace warplab::func {

// The kernel parameter block's generic window (cvta.param: a __grid_constant__ parameter's
// address, e.g. a CUtensorMap's, as a TMA copy names it).
inline constexpr uint64_t kParamWindow = 0x00007c0000000000ull;
inline constexpr uint64_t kLocalWindow = 0x00007d0000000000ull;   // generic local window
inline constexpr uint64_t kSharedWindow = 0x00007e0000000000ull;  // generic shared window
inline constexpr uint64_t kWindowSize = 1ull << 32;
inline constexpr uint64_t kReservedSmemBytes = 1024;  // shared memory reserved per block (sm_80+)

// Per-pc counters of a launch (one slot per decoded instruction), turned into LaunchStats at
// the end so that counting costs two adds per warp instruction.
struct PcCounters {
  std::vector<uint64_t> warp, thread;
  void reset(size_t n) {
    warp.assign(n, 0);
    thread.assign(n, 0);
  }
};

class CtaImpl {
 public:
  // Binds the block to a program, memory and launch; checks the launch and sizes the storage.
  Status bind(const Program& program, DeviceMemory& memory, const LaunchConfig& launch,
              uint32_t sm_id);
  // Makes this the fresh block `block_index` (registers, shared and local memory zeroed).
  void reset(Dim3 block_index);
  // Executes warp `w`'s next instruction. False when the kernel faulted (see `fault`).
  bool step(Warp& w, StepInfo* info, uint64_t clock);

  // ---- used by handlers ----
  // Host pointer for a lane's access of `size` bytes at `addr` in `space` (Generic resolved by
  // window), or nullptr after raising the fault. Sets `resolved` to the concrete space.
  uint8_t* access(Exec& x, const DInst& d, int lane, uint64_t addr, uint32_t size, bool write,
                  ptx::Space space, ptx::Space& resolved);
  void raise(Exec& x, const DInst& d, LaunchFault::Kind kind, int lane, uint64_t addr,
             uint32_t size, bool write, ptx::Space space, const std::string& what);
  // synccheck: lane `lane` of x.w executed `d` in a way the GPU leaves undefined (`what` says
  // how). Recorded in `hazards` when checks.synccheck is on; the launch goes on.
  void sync_hazard(Exec& x, const DInst& d, int lane, const std::string& what,
                   Hazard::Kind kind = Hazard::Kind::WarpSyncMask);
  // racecheck: the access of lane `lane` of warp `warp` at `pc` races with the earlier access of
  // (other_warp, other_lane) at other_pc (RaceChecker calls this).
  void race_hazard(Hazard::Kind kind, int32_t pc, int warp, int lane, int32_t other_pc,
                   int other_warp, int other_lane, uint64_t addr, ptx::Space space);
  // A hazard of this kind between these PTX lines is already in `hazards`: count it (true).
  // Saves building the report of every repeat.
  bool count_known(Hazard::Kind kind, int32_t ptx_line, int32_t other_ptx_line);
  // Hang limit: warp `w` went past a limit (`what` says which). Runs it a little further to find
  // the loop it is stuck in (PTX and CUDA lines) and raises a Hang fault there.
  void hang(Warp& w, const std::string& what);
  // Livelock watch (the timing model turns it on when no thread has written memory, exited or
  // passed a barrier for a while): each warp's complete state is copied when it is about to run
  // the instruction at one pc and compared when it is about to run it again; the same state
  // twice, with memory unchanged in between, repeats forever (the executor is deterministic).
  // Complete: registers, predicates, SIMT stack, exited lanes, per-lane .param area and saved
  // call frames; a hash would let two different states pass for one.
  struct WarpState {
    std::vector<uint64_t> R;
    std::vector<uint32_t> P;
    std::vector<SimtEntry> stack;
    uint32_t exited = 0;
    std::vector<uint8_t> lane_params;
    CallFrames frames;
  };
  struct LoopWatch {
    uint8_t state = 0;  // 0: no snapshot, 1: snapshot taken, 2: came back in the same state
    int32_t pc = -1;
    WarpState seen;        // the warp's state at the snapshot (state 1)
    uint32_t steps = 0;    // since the snapshot (state 1), or to wait before the next (state 0)
    uint32_t backoff = 1;  // steps to wait after a changed state (doubles, at most 4096)
  };
  void watch_loops(bool on);
  // After w's step, its pc advanced: the next instruction it runs is the SIMT stack's top pc.
  void watch_step(Warp& w);
  void save_state(const Warp& w, WarpState& s) const;
  bool same_state(const Warp& w, const WarpState& s) const;
  // Every live warp came back to its loop head unchanged or waits at a barrier (and one loops).
  bool looping() const;
  // Every live warp waits at a barrier, so none can ever be released (a barrier deadlock).
  bool stalled() const { return live_warps > 0 && bars.waiting_total() == live_warps; }
  // Raises the Deadlock fault for a stalled block: which warps wait where, which exited.
  void deadlock();
  // Barrier arrival of warp x.w at bar.* instruction d (handler side of exec_warp/control).
  void barrier(Exec& x, const DInst& d, int id, uint32_t expected, bool waits, BarrierUnit::Red red,
               uint32_t pred);
  // Bookkeeping after every lane of `w` exited (barriers stop waiting for it, its asynchronous
  // copies land).
  void after_exit(Warp& w);
  // Asynchronous copies (exec_async.cpp): delivers what is in flight toward the mbarrier at
  // shared offset `mbar` (its copies land, its arrive-ons and tx bytes are applied).
  void deliver_async(uint64_t mbar);
  void apply_async(const AsyncCopies::MbarrierEvent& e);
  // An mbarrier changed: a warp spinning on it may see something new (the livelock watch and
  // functional mode's mbarrier-deadlock check start again).
  void mbarrier_changed();
  // Raises the Deadlock fault for a block whose live warps all wait, in vain, on mbarriers or
  // at barriers (functional mode's run_block finds it).
  void mbarrier_deadlock();
  // Wakes the warps that barrier `id` released (writing bar.red results).
  void release(int id);
  Dim3 thread_of(int warp, int lane) const;
  // Lane `lane` of warp `w`: its per-lane .param area (device-function calls), lane_param_bytes.
  uint8_t* lane_param_area(const Warp& w, int lane) const {
    return w.lane_params + static_cast<size_t>(lane) * k->lane_param_bytes;
  }

  const DecodedModule* mod = nullptr;
  const DecodedKernel* k = nullptr;
  DeviceMemory* mem = nullptr;
  Dim3 grid, block, block_idx;
  uint32_t dyn_shared = 0, sm_id = 0;
  std::vector<uint8_t> params;        // the kernel parameter block
  std::vector<uint64_t> global_addr;  // per Module::variables index: device address
  std::vector<uint64_t> regs;
  std::vector<uint32_t> preds;
  std::vector<uint8_t> shared, lane_params;
  // regs, preds, shared and lane_params hold only zeros (bind has just made them): the first
  // reset after bind need not fill them again (a block slot's first block, issue 26).
  bool zeroed = false;
  // Local memory per warp (32 lanes * local_bytes), allocated at the warp's first local access:
  // 512 KB a thread of every resident block would be gigabytes that most kernels never touch.
  std::vector<std::vector<uint8_t>> local;
  uint64_t shared_bytes = 0;   // the kernel's shared memory (+ the reserved region, if read)
  uint64_t reserved_smem = 0;  // offset of the driver-reserved region (uses_reserved_smem)
  std::vector<Warp> warps;
  BarrierUnit bars;
  AsyncCopies async;              // cp.async / cp.async.bulk in flight (async_copies.h)
  // The global byte ranges of each tensor copy the block issued (exec_tma.cpp), for the timing
  // model's TMA unit: StepInfo::tma_ranges points at one entry, which stays where it is until the
  // block is reset (a deque keeps its elements in place as it grows), however far ahead of the
  // timing model's issue the functional steps ran.
  std::deque<std::vector<GlobalRange>> tma_ranges;
  // wgmma convergence (exec_wgmma.cpp): per warpgroup, the PTX lines of its wgmma.mma_async in
  // the order the first warp to reach each executed them; per warp, how many it executed.
  std::vector<std::vector<int32_t>> wgmma_pcs;
  std::vector<uint32_t> wgmma_count;
  uint64_t mbarrier_changes = 0;  // mbarrier updates in this block (mbarrier_changed)
  // Thread-block cluster (cluster.h): the cluster this block belongs to and its rank there;
  // nullptr: a cluster of one, `solo`. `last_clock`: the clock of the latest step.
  ClusterState* cluster = nullptr;
  ClusterState solo;
  uint32_t cluster_rank = 0;
  uint64_t last_clock = 0;
  // setmaxnreg (exec_setmaxnreg.cpp): per warp its registers per thread (0: not known), and the
  // registers returned to the block's pool.
  std::vector<uint32_t> warp_regs;
  int64_t reg_pool = 0;
  ClusterState& cluster_state() { return cluster ? *cluster : solo; }
  const ClusterState& cluster_state() const { return cluster ? *cluster : solo; }
  // Joins block rank `rank` of `c` (nullptr: a cluster of one).
  void join_cluster(ClusterState* c, uint32_t rank);
  // A shared::cluster address (rank bits above kClusterRankShift) of another block: its host
  // pointer, or nullptr after raising the fault.
  uint8_t* cluster_access(Exec& x, const DInst& d, int lane, uint64_t addr, uint32_t size,
                          bool write);
  int live_warps = 0;
  std::optional<LaunchFault> fault;
  CheckOptions checks;          // which checkers run (set by the caller after bind)
  std::vector<Hazard> hazards;  // what they found in this block (merged: merge_hazard)
  RaceChecker race;             // racecheck's shadow memory (sized only when it runs)
  uint64_t max_steps = 0;       // per-warp instruction limit (0 = none); see LaunchConfig
  bool in_hang = false;         // hang() is running a stuck warp on to find its loop
  bool watching = false;        // the livelock watch is on (watch_loops)
  std::vector<LoopWatch> loop_watch;
  PcCounters* counters = nullptr;  // per-pc counts (may be null)
  // Cta::step's per-line counts: per pc, the entries of line_stats's by_ptx_line and
  // by_src_line it adds to (nullptr: not looked up yet in this block; a map's entries stay put).
  LaunchStats* line_stats = nullptr;
  std::vector<std::pair<LineCounts*, LineCounts*>> line_counts;
  // The last global buffer touched, [g_lo, g_hi) at host pointer g_base: most accesses of a warp
  // instruction hit the same buffer, so this check replaces the search.
  uint64_t g_lo = 0, g_hi = 0;
  uint8_t* g_base = nullptr;
};

// Allocates (once per DeviceMemory) the module's .global/.const variables a kernel uses and
// returns each variable's device address (indexed like Module::variables; 0 for others).
Status bind_module_globals(const DecodedModule& mod, const DecodedKernel& k, DeviceMemory& mem,
                           std::vector<uint64_t>& addr);

}  // namespace warplab::func
