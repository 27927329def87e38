// `warplab bench`: simulator throughput on the built-in workloads (see lab/bench.h).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "lab/bench.h"
#include "lab/report.h"
#include "ui/cli/commands.h"

namespace warplab::cli {
namespace {

struct BenchArgs {
  std::vector<std::string> workloads;
  std::string mode;  // "" = every mode
  bool list = false;
  // Timing workloads: host threads per launch (0 = all cores); several: each after one thread.
  std::vector<int> threads{1};
  bool no_adapt = false;
  bool profile_loop = false;
};

int run(const BenchArgs& a) {
  std::vector<lab::BenchWorkload> table = lab::bench_workloads();
  if (a.list) {
    for (const lab::BenchWorkload& w : table)
      std::cout << w.name << "  mode=" << lab::mode_name(w.mode) << "  " << w.experiment << "\n";
    return kExitOk;
  }
  if (!a.mode.empty() && a.mode != "all")
    if (auto m = lab::parse_mode(a.mode); !m)
      return report_error(Error{"", 0, "--mode: " + m.error().message + " (or all)"});
  for (const std::string& name : a.workloads) {
    bool known = false;
    for (const lab::BenchWorkload& w : table) known = known || w.name == name;
    if (!known) return report_error(Error{"", 0, "unknown workload '" + name + "' (see --list)"});
  }
  lab::Toolchain toolchain;
  std::vector<int> counts;
  for (int t : a.threads) counts.push_back(resolve_threads(t));
  if (counts.empty()) counts.push_back(1);
  const bool several = counts.size() > 1 || counts.front() > 1;
  int ran = 0;
  bool differ = false;
  for (const lab::BenchWorkload& w : table) {
    if (!a.mode.empty() && a.mode != "all" && lab::mode_name(w.mode) != a.mode) continue;
    if (!a.workloads.empty() &&
        std::find(a.workloads.begin(), a.workloads.end(), w.name) == a.workloads.end())
      continue;
    // A timing workload on several threads runs on one thread first, for the speed-up.
    const bool compare = w.mode == lab::SimMode::Timing && several;
    std::vector<int> runs = compare ? std::vector<int>{1} : std::vector<int>{counts.front()};
    if (compare)
      for (int t : counts)
        if (t > 1) runs.push_back(t);
    std::optional<lab::BenchResult> one;
    for (int t : runs) {
      auto r = lab::run_bench(w, toolchain, t, !a.no_adapt, a.profile_loop);
      if (!r) return report_error(r.error());
      ++ran;
      char detail[256];
      std::snprintf(detail, sizeof detail,
                    "# %s: %s warp instructions, %s thread instructions in %.3f s%s",
                    w.name.c_str(), lab::group_thousands(r->warp_instructions).c_str(),
                    lab::group_thousands(r->thread_instructions).c_str(), r->seconds,
                    r->used_checked_in_ptx ? " (checked-in PTX: NVRTC unavailable)" : "");
      std::cout << detail << "\n" << lab::bench_line(*r) << "\n" << std::flush;
      if (r->parallel_cycles > 0) std::cout << lab::turns_line(*r) << "\n" << std::flush;
      if (a.profile_loop && w.mode == lab::SimMode::Timing)
        std::cout << lab::loop_line(*r) << "\n" << std::flush;
      if (compare && t == 1) {
        one = *r;
      } else if (one) {
        std::cout << lab::speedup_line(*r, *one) << "\n" << std::flush;
        differ =
            differ || r->cycles != one->cycles || r->warp_instructions != one->warp_instructions;
      }
    }
  }
  if (ran == 0) return report_error(Error{"", 0, "no workload matches"});
  if (differ) {
    std::cerr << "warplab: the cycles differ between 1 thread and several\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Measure simulator throughput (warp instructions per second) on the built-in "
      "workloads; prints 'BENCH mode=... workload=... [threads=N] warp_inst_per_s=...', and "
      "with --threads N > 1 each timing workload on 1 and N threads and a 'SPEEDUP' line");
  sub->add_option("--workload", args->workloads, "Run only this workload (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--mode", args->mode, "Which modes: functional, timing or all (default all)");
  sub->add_flag("--list", args->list, "List the workloads");
  sub->add_option("--threads", args->threads,
                  "Host threads per timing launch (default 1; 0 = all cores); above 1, each "
                  "timing workload also runs on one thread for the speed-up (repeatable: "
                  "--threads 4 --threads 16 runs one thread, then 4, then 16)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--no-adapt", args->no_adapt,
                "Tick every cycle with enough SMs due on the threads (no timed trials of one "
                "thread against several): the '# turns:' line's counts then depend on the input "
                "alone");
  sub->add_flag("--profile-loop", args->profile_loop,
                "Print a '# loop:' line per timing run: where the loop's host time went "
                "(dispatch, the pool's cycles, their waits, the flush; sim/timing/loop_profile.h)");
  return {sub, [args] { return run(*args); }};
}

}  // namespace warplab::cli
