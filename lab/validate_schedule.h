// How `warplab validate` spreads its runs over the host's threads (lab/validate.cpp's
// simulate_corpus; results never depend on it).
//
// A corpus is a few hundred simulator runs of very different lengths: most take seconds, some
// heavy ones minutes, and lesson 5's matmul at 2048^3 longer than the rest of the corpus together
// on one thread. Started in the corpus's order on one thread each, the longest runs start late
// and end alone on one core (2026-11-27, stop 35, 16 cores: 357 of 360 points done in 430 s, the
// three matmul points still running, each on one thread). A run can also use several threads
// (sim/timing/parallel_loop.h, same results), less efficiently than whole runs side by side
// (`warplab bench`, matmul_tiled_512 on the device host: 4.8x on 8 threads, 7.5x on 16), so:
//   1. Order: longest expected run first (a run with no measured cost is expected to cost the
//      mean of the measured runs of its kind, heavy or light); among equal costs heavy runs
//      first, then the corpus's order.
//   2. Threads: a run expected to cost a share s of the whole plan gets ceil(s x H) of the H
//      host threads (at least the threads asked for per run, at most H): about the share of the
//      host it would use over the plan's ideal wall time. Runs far shorter than the plan get
//      the threads asked for (one, by default).
//   3. Dispatch: runs start strictly in the plan's order; each takes its threads from a pool of
//      H when it starts and gives them back when it ends, and waits while too few are free.
//      Never more than H threads at once: the parallel loop spins at its barriers, and a thread
//      that shares a core with another run stalls every cycle of its own run.
// The expected costs are measured seconds on one thread (validation/sim-cost.tsv, read by
// load_costs). Simplified: they are not updated as the model gets faster (only their ratios
// matter), and a run's thread count is fixed when it starts (threads freed later by short runs
// are not lent to a long one already running).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::lab {

// A run's expected cost for the plan.
struct RunCost {
  double cost_s = -1;  // measured seconds on one thread (< 0: not measured)
  bool heavy = false;  // one of its points is heavy (corpus.toml)
};

// A run's place in the plan.
struct PlannedRun {
  size_t run = 0;     // index into the runs given to plan_runs
  int threads = 1;    // host threads it runs on (0: the runner's default, all cores)
  double cost_s = 0;  // expected (measured, or the mean of its kind's measured runs)
};

// The plan for `runs` on `host_threads` threads, `min_threads` per run at least (<= 0: every run
// on the runner's default, all cores; the plan then only orders them).
std::vector<PlannedRun> plan_runs(const std::vector<RunCost>& runs, unsigned host_threads,
                                  int min_threads);

// Runs the plan: `run` is called for each planned run, from up to `host_threads` worker threads
// (the caller's among them), starting them in the plan's order with at most `host_threads` of
// their threads at once (a run counted as its `threads`, 0 as 1, at most host_threads).
void dispatch_runs(const std::vector<PlannedRun>& plan, unsigned host_threads,
                   const std::function<void(const PlannedRun&)>& run);

// Measured costs per point id: a text file of "ID SECONDS" lines (blank lines and '#' comments
// skipped). Errors name file:line (a malformed line, a duplicate id, a negative time).
Expected<std::map<std::string, double>> parse_costs(const std::string& text,
                                                    const std::string& path);
Expected<std::map<std::string, double>> load_costs(const std::string& path);

}  // namespace warplab::lab
