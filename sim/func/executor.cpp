// Program loading and whole-grid functional execution.
//
// A real launch hands the grid to the GPU's block scheduler, which spreads blocks over SMs; their
// warps then run concurrently. Functionally (no time), any order that respects barriers gives the
// same results for race-free kernels, so run_functional runs blocks one after another in
// linear block order and, inside a block, each warp until it blocks at a barrier, exits, or finds
// the mbarrier phase it waits for still running (then the warps it waits for run first), then the
// next. Counts are kept per instruction (two adds per warp instruction) and folded into
// per-class, per-PTX-line and per-CUDA-line totals at the end.
#include "sim/func/executor.h"

#include <algorithm>
#include <bit>
#include <memory>

#include "sim/func/cluster.h"
#include "sim/func/cta_impl.h"
#include "sim/func/decode.h"

namespace warplab::func {

Expected<Program> Program::load(ptx::Module module) {
  auto decoded = decode_module(std::move(module));
  if (!decoded) return decoded.error();
  Program p;
  p.decoded_ = std::move(*decoded);
  return p;
}

const ptx::Module& Program::module() const { return decoded_->module; }

Status Program::check_kernel(const std::string& kernel) const {
  if (auto it = decoded_->kernel_errors.find(kernel); it != decoded_->kernel_errors.end())
    return it->second;
  return Ok{};
}

const ptx::Function* Program::kernel(const std::string& name) const {
  const ptx::Function* f = decoded_->module.find_function(name);
  return f && f->is_entry ? f : nullptr;
}

uint32_t Program::static_shared_bytes(const std::string& kernel) const {
  const DecodedKernel* k = decoded_->find(kernel);
  return k ? static_cast<uint32_t>(k->static_shared_bytes) : 0;
}

uint64_t Program::local_bytes(const std::string& kernel) const {
  const DecodedKernel* k = decoded_->find(kernel);
  return k ? k->local_bytes : 0;
}

namespace {

// Warp instructions a warp runs before the next warp's turn. Most warps block at a barrier or exit
// long before; the quantum lets a warp that spins on memory another warp will write (the
// barriers of cooperative-groups tiles wider than a warp, flags) see that write.
constexpr uint64_t kWarpQuantum = 4096;

// One turn of every warp of the block: each runs until it blocks at a barrier, exits, fails an
// mbarrier or cluster-barrier wait, or has run kWarpQuantum instructions.
enum class Round : uint8_t {
  Fault,    // cta.fault is set
  Done,     // every warp has exited
  Stalled,  // no warp could run: every live warp waits at bar.sync (a deadlock)
  Waited,   // warps ran, but each that ran ended at a failed wait
  Ran,      // some warp made progress
};
// Limits: `limit` counts warp instructions over the whole launch (`issued`), cta.max_steps each
// warp's own; past either, the warp is stopped with a Hang fault naming its loop.
Round run_round(CtaImpl& cta, uint64_t limit, uint64_t& issued) {
  const uint64_t per_warp = cta.max_steps;
  bool progress = false;
  bool only_waits = true;
  for (Warp& w : cta.warps) {
    bool ran = false;
    w.mbarrier_wait = false;
    for (uint64_t turn = 0;
         w.status == WarpStatus::Ready && turn < kWarpQuantum && !w.mbarrier_wait; ++turn) {
      if (per_warp && w.issued >= per_warp) {
        const bool others = cta.live_warps > 1;
        cta.hang(w, "went past " + std::to_string(per_warp) +
                        " instructions (the limit per warp: --max-instructions, or "
                        "max_instructions in the experiment)" +
                        (others ? std::string("; functional mode runs a block's warps in turns "
                                              "of 4096 instructions, so a warp that waits for "
                                              "another warp of its block spins meanwhile: if "
                                              "it waits for another warp of its block, try "
                                              "--mode timing")
                                : std::string()));
        return Round::Fault;
      }
      if (limit && issued >= limit) {
        cta.hang(w, "reached the launch's limit of " + std::to_string(limit) +
                        " warp instructions (FunctionalOptions::max_warp_instructions)");
        return Round::Fault;
      }
      if (!cta.step(w, nullptr, w.issued)) return Round::Fault;
      ++w.issued;
      ++issued;
      progress = ran = true;
    }
    if (ran && !w.mbarrier_wait) only_waits = false;
  }
  if (cta.live_warps == 0) return Round::Done;
  if (!progress) return Round::Stalled;
  return only_waits ? Round::Waited : Round::Ran;
}

// Runs every warp of the current block to completion. False on a fault (cta.fault is set).
bool run_block(CtaImpl& cta, uint64_t limit, uint64_t& issued) {
  int idle_rounds = 0;  // rounds in which every warp only waited on an mbarrier, in vain
  for (;;) {
    const uint64_t mbarrier_changes = cta.mbarrier_changes;
    const Round r = run_round(cta, limit, issued);
    if (r == Round::Fault) return false;
    if (r == Round::Done) return true;
    if (r == Round::Stalled) {
      // Every live warp waits at a barrier that cannot complete.
      cta.deadlock();
      return false;
    }
    // A warp whose mbarrier wait fails ends its turn (the warps it waits for run meanwhile).
    // Two whole rounds of nothing but failed waits, with no mbarrier changed, can never end:
    // what the waits test changes only through mbarrier operations.
    idle_rounds =
        r == Round::Waited && cta.mbarrier_changes == mbarrier_changes ? idle_rounds + 1 : 0;
    if (idle_rounds >= 2) {
      cta.mbarrier_deadlock();
      return false;
    }
  }
}

// Runs the blocks of one cluster (sim/func/cluster.h) to completion together: a round of each
// live block in rank order, again and again. A deadlock: a block whose warps all wait at bar.sync,
// or two rounds of every block in which nothing but failed waits ran and nothing changed.
bool run_cluster(std::vector<std::unique_ptr<CtaImpl>>& ctas, ClusterState& cluster, uint64_t limit,
                 uint64_t& issued, std::optional<LaunchFault>& fault) {
  int idle_rounds = 0;
  for (;;) {
    uint64_t changes = cluster.changes();
    for (const auto& c : ctas) changes += c->mbarrier_changes;
    bool all_done = true, only_waits = true;
    for (const auto& c : ctas) {
      if (c->live_warps == 0) continue;
      const Round r = run_round(*c, limit, issued);
      if (r == Round::Fault) {
        fault = c->fault;
        return false;
      }
      if (r == Round::Stalled) {
        c->deadlock();
        fault = c->fault;
        return false;
      }
      if (r != Round::Done) all_done = false;
      if (r == Round::Ran || r == Round::Done) only_waits = false;
    }
    if (all_done) return true;
    uint64_t after = cluster.changes();
    for (const auto& c : ctas) after += c->mbarrier_changes;
    idle_rounds = only_waits && after == changes ? idle_rounds + 1 : 0;
    if (idle_rounds >= 2) {
      for (const auto& c : ctas)
        if (c->live_warps > 0) {
          c->mbarrier_deadlock();
          fault = c->fault;
          return false;
        }
    }
  }
}

void fold_counts(const DecodedKernel& k, const PcCounters& c, bool lines, LaunchStats& s) {
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    const uint64_t w = c.warp[pc], t = c.thread[pc];
    if (!w) continue;
    const DInst& d = k.code[pc];
    s.warp_instructions += w;
    s.thread_instructions += t;
    s.warp_by_class[d.cls] += w;
    s.thread_by_class[d.cls] += t;
    if (!lines) continue;
    auto& pl = s.by_ptx_line[d.ir->ptx_line];
    pl.warp_instructions += w;
    pl.thread_instructions += t;
    if (d.ir->user_loc.line > 0) {
      auto& sl = s.by_src_line[{d.ir->user_loc.file, d.ir->user_loc.line}];
      sl.warp_instructions += w;
      sl.thread_instructions += t;
    }
  }
}

// run_functional for a launch with clusters of more than one block: cluster after cluster, the
// blocks of each together (run_cluster).
Expected<FunctionalResult> run_clusters(const Program& program, DeviceMemory& memory,
                                        const LaunchConfig& launch,
                                        const FunctionalOptions& options, Dim3 shape) {
  std::vector<std::unique_ptr<CtaImpl>> ctas;
  const uint32_t size = static_cast<uint32_t>(shape.count());
  for (uint32_t r = 0; r < size; ++r) {
    ctas.push_back(std::make_unique<CtaImpl>());
    if (auto s = ctas.back()->bind(program, memory, launch, 0); !s) return s.error();
  }
  PcCounters counters;
  counters.reset(ctas[0]->k->code.size());
  for (auto& c : ctas) c->counters = &counters;
  FunctionalResult result;
  ClusterState cluster;
  const bool explicit_cluster = true;  // a launch with a cluster shape is an explicit cluster
  uint64_t issued = 0, blocks_done = 0;
  const Dim3& g = launch.grid;
  const Dim3 n{g.x / shape.x, g.y / shape.y, g.z / shape.z};
  for (uint32_t cz = 0; cz < n.z && !result.fault; ++cz)
    for (uint32_t cy = 0; cy < n.y && !result.fault; ++cy)
      for (uint32_t cx = 0; cx < n.x && !result.fault; ++cx) {
        cluster.reset(shape, Dim3{cx, cy, cz}, static_cast<uint32_t>(launch.block.count()),
                      explicit_cluster);
        for (uint32_t r = 0; r < size; ++r) {
          const Dim3 in{r % shape.x, r / shape.x % shape.y, r / (shape.x * shape.y)};
          ctas[r]->block_idx = Dim3{cx * shape.x + in.x, cy * shape.y + in.y, cz * shape.z + in.z};
          ctas[r]->join_cluster(&cluster, r);
        }
        const bool ok =
            run_cluster(ctas, cluster, options.max_warp_instructions, issued, result.fault);
        for (auto& c : ctas) merge_hazards(result.hazards, std::move(c->hazards));
        if (!ok) break;
        blocks_done += size;
      }
  LaunchStats& s = result.stats;
  fold_counts(*ctas[0]->k, counters, options.count_lines, s);
  s.blocks = blocks_done;
  s.warps = blocks_done * ctas[0]->warps.size();
  s.threads = blocks_done * launch.block.count();
  return result;
}

}  // namespace

Expected<FunctionalResult> run_functional(const Program& program, DeviceMemory& memory,
                                          const LaunchConfig& launch,
                                          const FunctionalOptions& options) {
  const ptx::Function* kf = program.kernel(launch.kernel);
  const Dim3 shape = kf ? effective_cluster(launch, *kf) : Dim3{1, 1, 1};
  if (kf && shape.count() > 1) return run_clusters(program, memory, launch, options, shape);
  CtaImpl cta;
  if (auto s = cta.bind(program, memory, launch, 0); !s) return s.error();
  PcCounters counters;
  counters.reset(cta.k->code.size());
  cta.counters = &counters;
  FunctionalResult result;
  uint64_t issued = 0;
  uint64_t blocks_done = 0;
  const uint64_t end = std::min(options.end_block, launch.grid.count());
  for (uint64_t i = options.first_block; i < end; ++i) {
    cta.reset(Dim3{static_cast<uint32_t>(i % launch.grid.x),
                   static_cast<uint32_t>(i / launch.grid.x % launch.grid.y),
                   static_cast<uint32_t>(i / (uint64_t{launch.grid.x} * launch.grid.y))});
    const bool ok = run_block(cta, options.max_warp_instructions, issued);
    merge_hazards(result.hazards, std::move(cta.hazards));
    if (!ok) {
      result.fault = cta.fault;
      break;
    }
    ++blocks_done;
  }
  LaunchStats& s = result.stats;
  fold_counts(*cta.k, counters, options.count_lines, s);
  s.blocks = blocks_done;
  s.warps = blocks_done * cta.warps.size();
  s.threads = blocks_done * launch.block.count();
  return result;
}

}  // namespace warplab::func
