// --threads and the progress line's timing figures (commands.h).
#include <algorithm>
#include <cstdio>
#include <thread>

#include "lab/report.h"
#include "ui/cli/commands.h"

namespace warplab::cli {

void add_threads_option(CLI::App* sub, int& threads) {
  sub->add_option("--threads", threads,
                  "Host threads per simulated launch (timing mode; default: all cores; 1 = the "
                  "one-thread loop). Results are identical for any number")
      ->check(CLI::NonNegativeNumber);
}

void add_sampled_option(CLI::App* sub, bool& sampled) {
  sub->add_flag(
      "--sampled", sampled,
      "Timing mode: for grids of many waves, simulate a sample of the waves in detail and "
      "fast-forward the rest functionally (outputs exact; cycles and counters "
      "extrapolated; see sim/timing/sampling.h for where that errs); grids of long blocks, "
      "of any number of waves, may instead extrapolate from the issue rate once it is "
      "steady (sim/timing/rate_sampler.h); results say 'sampled' with the fraction "
      "simulated");
}

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string format_timing_progress(const TimingProgressView& p) {
  std::string s = p.phase ? std::string(p.phase) + ":" : "cycle " + lab::group_thousands(p.cycle);
  if (p.blocks_total > 0) {
    const double done = double(p.blocks_done) / double(p.blocks_total);
    char b[96];
    std::snprintf(b, sizeof b, "%s %.0f%% of blocks done", p.phase ? "" : ",", 100 * done);
    s += b;
    if (p.blocks_done > 0 && done < 1) {
      const double left = p.seconds * (1 - done) / done;
      std::snprintf(b, sizeof b, ", about %.0f s left", std::max(1.0, left));
      s += b;
    }
  }
  return s;
}

}  // namespace warplab::cli
