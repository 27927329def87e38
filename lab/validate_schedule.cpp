// validate's run plan: longest first, threads by share, dispatched from a pool of host threads.
#include "lab/validate_schedule.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>

#include "sim/common/input_file.h"

namespace warplab::lab {

std::vector<PlannedRun> plan_runs(const std::vector<RunCost>& runs, unsigned host_threads,
                                  int min_threads) {
  const unsigned host = std::max(1u, host_threads);
  // An unmeasured run counts as the mean of the measured runs of its kind (heavy or light), or
  // of all measured runs, or 1 s when none is measured.
  double sum[2] = {0, 0}, count[2] = {0, 0};
  for (const RunCost& r : runs)
    if (r.cost_s >= 0) {
      sum[r.heavy] += r.cost_s;
      ++count[r.heavy];
    }
  auto mean = [&](bool heavy) {
    if (count[heavy] > 0) return sum[heavy] / count[heavy];
    if (count[0] + count[1] > 0) return (sum[0] + sum[1]) / (count[0] + count[1]);
    return 1.0;
  };
  std::vector<double> cost(runs.size());
  double total = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    total += cost[i] = runs[i].cost_s >= 0 ? runs[i].cost_s : mean(runs[i].heavy);
  // 1. Order: the longest first; among equal costs heavy first, then the corpus's order.
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (cost[a] != cost[b]) return cost[a] > cost[b];
    return runs[a].heavy && !runs[b].heavy;
  });
  // 2. Threads: ceil(share x host), between min_threads and host.
  std::vector<PlannedRun> plan;
  for (size_t i : order) {
    PlannedRun p;
    p.run = i;
    p.cost_s = cost[i];
    if (min_threads <= 0) {
      p.threads = 0;
    } else {
      const double share = total > 0 ? cost[i] / total : 0;
      // (less a hair: a share of exactly k/host is k threads, not k + 1)
      const int by_share = static_cast<int>(std::ceil(share * host - 1e-9));
      p.threads = std::max(min_threads, std::min(by_share, static_cast<int>(host)));
    }
    plan.push_back(p);
  }
  return plan;
}

void dispatch_runs(const std::vector<PlannedRun>& plan, unsigned host_threads,
                   const std::function<void(const PlannedRun&)>& run) {
  const unsigned host = std::max(1u, host_threads);
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0;     // the next run a worker takes
  size_t started = 0;  // runs started so far (they start in the plan's order)
  unsigned free = host;
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (next < plan.size()) {
      const size_t k = next++;
      const unsigned need = std::min(host, static_cast<unsigned>(std::max(1, plan[k].threads)));
      changed.wait(lock, [&] { return started == k && free >= need; });
      free -= need;
      ++started;
      changed.notify_all();  // the next run in the plan may fit beside this one
      lock.unlock();
      run(plan[k]);
      lock.lock();
      free += need;
      changed.notify_all();
    }
  };
  const size_t workers = std::min<size_t>(host, plan.size());
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
}

Expected<std::map<std::string, double>> parse_costs(const std::string& text,
                                                    const std::string& path) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string id, seconds, extra;
    if (!(fields >> id)) continue;  // blank or a comment
    if (!(fields >> seconds) || (fields >> extra))
      return Error{path, number, "expected 'ID SECONDS', got '" + line + "'"};
    double s = 0;
    size_t used = 0;
    try {
      s = std::stod(seconds, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != seconds.size() || !std::isfinite(s) || s < 0)
      return Error{path, number, "point " + id + ": '" + seconds + "' is not a time in seconds"};
    if (!out.emplace(id, s).second) return Error{path, number, "duplicate point id '" + id + "'"};
  }
  return out;
}

Expected<std::map<std::string, double>> load_costs(const std::string& path) {
  auto text = read_input_file(path, "costs file");  // (a directory, a FIFO or /dev/zero: an error)
  if (!text) return text.error();
  return parse_costs(*text, path);
}

}  // namespace warplab::lab
