#include "lab/bench.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "lab/install_dirs.h"

namespace warplab::lab {

#ifndef WARPLAB_SOURCE_DIR
#define WARPLAB_SOURCE_DIR "."
#endif

std::string bench_dir() {
  // Beside the executable (a build folder in the source tree, an installed prefix's
  // share/warplab/bench: lab/install_dirs.h), the source tree it was built from, else ./bench.
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const fs::path& root : resource_roots())
    if (fs::exists(root / "bench" / "vec_add.toml", ec)) return (root / "bench").string();
  const std::string built = std::string(WARPLAB_SOURCE_DIR) + "/bench";
  if (fs::exists(built + "/vec_add.toml", ec)) return built;
  return (fs::current_path(ec) / "bench").string();
}

std::vector<BenchWorkload> bench_workloads() {
  return {
      {"vec_add_2^24", "vec_add.toml", {"N=16777216"}, SimMode::Functional},
      {"matmul_tiled_512", "matmul_tiled.toml", {"n=512"}, SimMode::Functional},
      // The timing model, single-threaded: cost should grow linearly with the work.
      {"vec_add_2^20", "vec_add.toml", {"N=1048576"}, SimMode::Timing},
      {"vec_add_2^22", "vec_add.toml", {"N=4194304"}, SimMode::Timing},
      {"vec_add_2^24", "vec_add.toml", {"N=16777216"}, SimMode::Timing},
      {"matmul_tiled_512", "matmul_tiled.toml", {"n=512"}, SimMode::Timing},
  };
}

Expected<BenchResult> run_bench(const BenchWorkload& w, const Toolchain& toolchain, int threads,
                                bool adapt, bool profile) {
  BenchResult out;
  out.workload = w;
  out.threads = w.mode == SimMode::Timing ? threads : 1;
  auto exp = load_experiment(bench_dir() + "/" + w.experiment);
  if (!exp) return exp.error();
  for (const std::string& s : w.set)
    if (auto st = set_param(*exp, s); !st) return st.error();
  if (exp->source_kind == Experiment::SourceKind::Cuda && !toolchain.has_nvrtc()) {
    std::filesystem::path ptx = std::filesystem::path(exp->source).replace_extension(".ptx");
    if (!std::filesystem::exists(ptx))
      return Error{exp->path, exp->source_line, toolchain.why_no_nvrtc()};
    exp->source = ptx.string();
    exp->source_kind = Experiment::SourceKind::Ptx;
    out.used_checked_in_ptx = true;
  }
  RunOptions opt;
  opt.mode = w.mode;
  opt.resources = false;
  opt.count_lines = false;
  opt.threads = threads;
  opt.adapt_threads = adapt;
  opt.profile_loop = profile;
  Runner runner(toolchain, opt);
  auto r = runner.run_once(*exp);
  if (!r) return r.error();
  for (const LaunchRecord& l : r->launches) {
    if (l.fault)
      return Error{exp->path, 0, "bench workload " + w.name + " faulted: " + l.fault->message};
    if (l.stats) {
      out.warp_instructions += l.stats->warp_instructions;
      out.thread_instructions += l.stats->thread_instructions;
    }
    out.seconds += l.sim_wall_seconds;
    if (l.timing) {
      const timing::TimingResult& t = *l.timing;
      out.cycles += t.cycles;
      out.parallel_cycles += t.parallel_cycles;
      out.parallel_sm_ticks += t.parallel_sm_ticks;
      out.turn_sm_ticks += t.turn_sm_ticks;
      out.held_l2_reads += t.held_l2_reads;
      out.turn_l2_reads += t.turn_l2_reads;
      out.held_l2_writes += t.held_l2_writes;
      out.turn_l2_writes += t.turn_l2_writes;
      out.loop.add(t.loop_profile);
    }
  }
  return out;
}

std::string bench_line(const BenchResult& r) {
  char b[256];
  const std::string threads =
      r.workload.mode == SimMode::Timing ? " threads=" + std::to_string(r.threads) : "";
  std::snprintf(b, sizeof b, "BENCH mode=%s workload=%s%s warp_inst_per_s=%.0f",
                std::string(mode_name(r.workload.mode)).c_str(), r.workload.name.c_str(),
                threads.c_str(), r.warp_inst_per_s());
  return b;
}

std::string speedup_line(const BenchResult& many, const BenchResult& one) {
  char b[256];
  const bool same = many.cycles == one.cycles && many.warp_instructions == one.warp_instructions;
  std::snprintf(
      b, sizeof b, "SPEEDUP mode=%s workload=%s threads=%d over_1_thread=%.2f same_cycles=%s",
      std::string(mode_name(many.workload.mode)).c_str(), many.workload.name.c_str(), many.threads,
      one.warp_inst_per_s() > 0 ? many.warp_inst_per_s() / one.warp_inst_per_s() : 0,
      same ? "yes" : "no");
  return b;
}

std::string turns_line(const BenchResult& r) {
  char b[320];
  std::snprintf(b, sizeof b,
                "# turns: parallel_cycles=%" PRIu64 " sm_ticks=%" PRIu64 " turn_ticks=%" PRIu64
                " l2_reads_held=%" PRIu64 " l2_reads_in_turn=%" PRIu64 " l2_writes_held=%" PRIu64
                " l2_writes_in_turn=%" PRIu64,
                r.parallel_cycles, r.parallel_sm_ticks, r.turn_sm_ticks, r.held_l2_reads,
                r.turn_l2_reads, r.held_l2_writes, r.turn_l2_writes);
  return b;
}

std::string loop_line(const BenchResult& r) {
  const timing::LoopProfile& p = r.loop;
  const double c = p.pool_cycles ? double(p.pool_cycles) : 1;
  char b[640];
  std::snprintf(b, sizeof b,
                "# loop: ms loop=%.0f dispatch=%.0f due=%.0f pool=%.0f one=%.0f after=%.0f | "
                "cycles pool=%" PRIu64 " one=%" PRIu64 " dispatches=%" PRIu64
                " | us/pool-cycle pool=%.2f wake=%.2f span=%.2f own=%.2f end_wait=%.2f met=%.2f "
                "flush=%.2f work/threads=%.2f launch_max=%.2f | launches=%" PRIu64
                " us/launch=%.2f steals=%" PRIu64,
                p.loop_ns / 1e6, p.dispatch_ns / 1e6, p.due_ns / 1e6, p.pool_ns / 1e6,
                p.one_ns / 1e6, p.after_ns / 1e6, p.pool_cycles, p.one_cycles, p.dispatches,
                p.pool_ns / c / 1e3, p.wake_ns / c / 1e3, p.span_ns / c / 1e3, p.own_ns / c / 1e3,
                p.end_wait_ns / c / 1e3, p.met_ns / c / 1e3, p.flush_ns / c / 1e3,
                p.work_ns / c / 1e3 / std::max(r.threads, 1), p.launch_max_ns / c / 1e3, p.launches,
                p.launches ? p.launch_ns / double(p.launches) / 1e3 : 0.0, p.steals);
  return b;
}

}  // namespace warplab::lab
