// One resident thread block (CTA), stepped one warp instruction at a time.
//
// This is the seam between the functional and the timing layers: the timing model decides *when*
// a warp issues; Cta::step executes that warp's next instruction *functionally* (at issue time) and
// describes what it did (StepInfo) so the timing model can charge pipelines, coalesce the lanes'
// addresses into sectors and walk the memory hierarchy. Results therefore stay bit-identical to
// functional mode for race-free kernels.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/func/executor.h"

namespace warplab::func {

enum class WarpStatus : uint8_t {
  Ready,      // has a next instruction to issue
  AtBarrier,  // waiting at bar.sync for the rest of the block
  Exited,     // every lane has exited
};

// A range of global memory an instruction's asynchronous copy moves (a TMA tensor copy's rows).
struct GlobalRange {
  uint64_t address = 0;
  uint32_t bytes = 0;
};

// What one issued warp instruction did.
struct StepInfo {
  const ptx::Instruction* inst = nullptr;  // the IR instruction (op, types, ptx_line, loc)
  int32_t pc = 0;                          // instruction index within its function
  int32_t function = 0;                    // index into Module::functions
  uint32_t active_mask = 0;                // lanes that were active at issue (SIMT mask)
  uint32_t exec_mask = 0;  // lanes that executed it (active and guard predicate true)
  // Memory: ld/st/atom/red/ldu/prefetch (their lanes' addresses are `addr`, below).
  bool is_memory = false;
  ptx::Space space = ptx::Space::None;  // resolved space (generic accesses resolved per warp;
                                        // if lanes mix spaces, the global lanes are reported)
  bool is_store = false, is_atomic = false;
  uint32_t access_bytes = 0;  // bytes per lane (vector width included, e.g. 16 for ld.v4.f32)
  // Registers: destination and source register indices (function-local), for the scoreboard.
  std::array<int32_t, 8> dst_regs{};
  int dst_count = 0;
  std::array<int32_t, 12> src_regs{};  // mma.sync reads 10 registers
  int src_count = 0;
  bool is_branch = false;   // bra/call/ret/exit
  bool diverged = false;    // a branch split the warp (or a path ended and another resumed)
  bool is_barrier = false;  // bar.sync/bar.arrive/bar.red
  // Asynchronous copies and mbarriers (exec_async.cpp), for the timing model's units
  // (sim/timing/async_copy.h): the mbarrier an mbarrier instruction or a global->shared bulk
  // copy names (shared offset, first executing lane), the bytes of a bulk copy, and whether an
  // mbarrier test/try_wait found its phase still running.
  uint64_t mbarrier = 0;
  uint32_t bulk_bytes = 0;
  bool wait_failed = false;
  // A TMA tensor copy or prefetch (exec_tma.cpp): the global ranges its box touches inside the
  // tensor (held by the block until it is reset); nullptr for every other instruction.
  const std::vector<GlobalRange>* tma_ranges = nullptr;
  // The tensor map a TMA tensor copy, tensor prefetch or prefetch.tensormap names, or the one
  // tensormap.cp_fenceproxy writes (first executing lane): its address, bit 63 set for a map in
  // parameter or constant memory (the TMA unit's descriptor cache, sim/timing/tma.h); 0: none.
  uint64_t tma_map = 0;
  // Memory: per-lane byte addresses (state-space relative for shared/local; device addresses
  // for global), valid for lanes in exec_mask. Last, so that the fields above share the first
  // cache lines: the timing model keeps windows of these and reads the addresses only when a
  // memory instruction issues.
  std::array<uint64_t, 32> addr{};
};

class CtaImpl;
class ClusterState;

class Cta {
 public:
  // Creates block `block_index` of `launch` (shared memory zeroed, registers zeroed, params set).
  // `sm_id` is what %smid reads. Errors as for run_functional's launch checks.
  static Expected<Cta> create(const Program& program, DeviceMemory& memory,
                              const LaunchConfig& launch, Dim3 block_index, uint32_t sm_id);
  // Makes this object block `block_index` of the same launch on the same SM, exactly as create
  // would, keeping its storage (the timing model runs block after block in one block slot).
  Status relaunch(Dim3 block_index);
  // Makes this block rank `rank` of cluster `cluster` (sim/func/cluster.h; it must outlive the
  // block), starting it afresh. Blocks of a launch without clusters never call it.
  void join_cluster(ClusterState* cluster, uint32_t rank);
  Cta(Cta&&) noexcept;
  Cta& operator=(Cta&&) noexcept;
  ~Cta();

  int warp_count() const;
  WarpStatus status(int warp) const;
  // A host-cache hint, with no effect on the results: starts loading what step(warp) will read
  // (the registers of its next instruction), for a caller that knows the step comes soon.
  void prefetch_step(int warp) const;
  // Whether warp `warp`'s next instruction is barrier.cluster: the timing model fetches it only
  // when it is about to issue, since it acts on the other blocks when it runs (cluster.h).
  bool next_is_cluster_barrier(int warp) const;
  // Whether warp `warp`'s next instruction reads %clock, %clock64 or %globaltimer: the timing
  // model fetches it (runs it) only when it is about to issue, so that it reads its issue cycle.
  bool next_reads_clock(int warp) const;
  // The cycle to run warp `warp`'s next instruction at, fetched at `now` to issue at `ready` or
  // later: `ready` if it reads the clock (its issue cycle, as on the GPU), else `now`.
  uint64_t step_clock(int warp, uint64_t now, uint64_t ready) const {
    return ready > now && next_reads_clock(warp) ? ready : now;
  }
  // Whether step(warp) may read or write what other blocks share: device memory (global,
  // generic or constant space, asynchronous copies) or the printf buffer (calls). False only
  // when it touches nothing but the block's own state (registers, shared and local memory,
  // parameters). The timing model's parallel loop (sim/timing/parallel_loop.h) orders these.
  bool next_touches_device(int warp) const;
  // Executes warp `warp`'s next instruction. Requires status(warp) == Ready. Returns false when
  // the kernel faulted (fault() is then set and the block must stop). `stats` is the launch's:
  // one object for all of the block's steps (the block remembers its per-line entries).
  bool step(int warp, StepInfo& info, LaunchStats& stats, uint64_t clock);
  // True when every warp has exited.
  bool done() const;
  const std::optional<LaunchFault>& fault() const;
  // synccheck/racecheck findings of this block so far (LaunchConfig turns them on).
  const std::vector<Hazard>& hazards() const;
  std::vector<Hazard> take_hazards();
  // Instructions warp `warp` has issued (the hang limit counts these).
  uint64_t issued(int warp) const;
  // Stops the block at an outside limit (the timing model's cycles; `what` says which): a
  // Deadlock fault when every live warp waits at a barrier, else a Hang fault naming the loop
  // the busiest ready warp is stuck in. Returns the block's fault (unset if nothing runs).
  const std::optional<LaunchFault>& stop(const std::string& what);
  // Livelock watch (the timing model's, when nothing has written memory for a while): on, each
  // warp's state is compared at its loop head across one iteration; looping() is true when
  // every live warp came back unchanged (or waits at a barrier). Turning it off forgets all.
  void watch_loops(bool on);
  bool looping() const;

 private:
  explicit Cta(std::unique_ptr<CtaImpl> impl);
  std::unique_ptr<CtaImpl> impl_;
};

// Whether an instruction of this opcode, in this state space, may touch what blocks share: device
// memory (global, generic or constant space, asynchronous copies, tensor maps) or the printf buffer
// (calls). Cta::next_touches_device and the timing model's deferred launches (sm_launch.cpp) ask it.
bool touches_device(ptx::Opcode op, ptx::Space space);

}  // namespace warplab::func
