// validate's run plan (lab/validate_schedule.h): the order and thread counts for made-up costs,
// worked out by hand below; the dispatcher's start order and its bound on threads in use; the
// cost file's reader and its errors; the committed validation/sim-cost.tsv against the corpus.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lab/validate.h"
#include "lab/validate_schedule.h"

using namespace warplab::lab;

namespace {

std::string src(const std::string& rel) { return std::string(WARPLAB_SOURCE_DIR) + "/" + rel; }

RunCost cost(double s, bool heavy = false) {
  RunCost r;
  r.cost_s = s;
  r.heavy = heavy;
  return r;
}

}  // namespace

TEST_CASE("572 plan: longest first, threads by share, unmeasured runs at their kind's mean") {
  // Heavy measured: 100, 50 (mean 75); light measured: 10, 2 (mean 6). So the unmeasured light
  // run counts 6 s and the unmeasured heavy one 75 s: total 100 + 75 + 50 + 10 + 6 + 2 = 243 s.
  // On 16 threads: 100 -> ceil(16 x 100/243 = 6.58) = 7; 75 -> ceil(4.94) = 5;
  // 50 -> ceil(3.29) = 4; 10 -> ceil(0.66) = 1; 6 and 2 -> 1.
  const std::vector<RunCost> runs = {cost(10),       cost(100, true), cost(-1),
                                     cost(-1, true), cost(50, true),  cost(2)};
  const auto plan = plan_runs(runs, 16, 1);
  REQUIRE(plan.size() == 6);
  const std::vector<size_t> order = {1, 3, 4, 0, 2, 5};
  const std::vector<int> threads = {7, 5, 4, 1, 1, 1};
  for (size_t k = 0; k < plan.size(); ++k) {
    CHECK(plan[k].run == order[k]);
    CHECK(plan[k].threads == threads[k]);
  }
  // At least the threads asked for per run; at most the host's.
  const auto four = plan_runs(runs, 16, 4);
  CHECK(four[0].threads == 7);
  CHECK(four[1].threads == 5);
  CHECK(four[2].threads == 4);
  CHECK(four[3].threads == 4);
  CHECK(plan_runs({cost(5)}, 8, 1)[0].threads == 8);  // one run: the whole host
  // A share of exactly 1/4 on 4 threads is 1 thread, not 2.
  for (const PlannedRun& p : plan_runs({cost(2), cost(2), cost(2), cost(2)}, 4, 1))
    CHECK(p.threads == 1);
  // Nothing measured: all alike; heavy first, then the corpus's order, on the threads asked for.
  const auto plain = plan_runs({cost(-1), cost(-1, true), cost(-1), cost(-1, true)}, 4, 1);
  CHECK(plain[0].run == 1);
  CHECK(plain[1].run == 3);
  CHECK(plain[2].run == 0);
  CHECK(plain[3].run == 2);
  for (const PlannedRun& p : plain) CHECK(p.threads == 1);
  // min_threads 0: the runner's default for every run (the plan only orders).
  for (const PlannedRun& p : plan_runs(runs, 16, 0)) CHECK(p.threads == 0);
}

TEST_CASE("572 dispatch: plan order, never more threads than the host's") {
  std::vector<PlannedRun> plan;
  for (int t : {3, 1, 2, 1, 1, 4, 1, 2}) plan.push_back({plan.size(), t});
  std::mutex m;
  std::vector<size_t> started;
  std::atomic<int> in_use{0}, peak{0};
  std::vector<int> calls(plan.size(), 0);
  dispatch_runs(plan, 4, [&](const PlannedRun& r) {
    {
      std::lock_guard<std::mutex> lock(m);
      started.push_back(r.run);
      ++calls[r.run];
    }
    const int now = in_use += r.threads;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    if (r.run == 0) {  // the first run (3 threads) waits for the second (1) to start beside it
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (std::chrono::steady_clock::now() < give_up) {
        {
          std::lock_guard<std::mutex> lock(m);
          if (started.size() >= 2) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    in_use -= r.threads;
  });
  CHECK(peak.load() <= 4);
  CHECK(peak.load() == 4);  // runs 0 and 1 together
  for (int c : calls) CHECK(c == 1);
  for (size_t k = 0; k < started.size(); ++k) CHECK(started[k] == k);
}

TEST_CASE("572 costs: the reader and its errors") {
  auto c = parse_costs("# comment\n\na.b 1.5\n  c 20 # trailing\n", "f.tsv");
  REQUIRE(c);
  CHECK(c->size() == 2);
  CHECK(c->at("a.b") == doctest::Approx(1.5));
  CHECK(c->at("c") == doctest::Approx(20));
  auto bad = [](const std::string& text) {
    auto r = parse_costs(text, "f.tsv");
    REQUIRE(!r);
    return r.error();
  };
  CHECK(bad("a 1\nb\n").line == 2);
  CHECK(bad("a 1 2\n").line == 1);
  CHECK(bad("a x\n").to_string().find("'x' is not a time") != std::string::npos);
  CHECK(bad("a -3\n").line == 1);
  CHECK(bad("a 1s\n").line == 1);
  const auto dup = bad("a 1\n\na 2\n");
  CHECK(dup.line == 3);
  CHECK(dup.file == "f.tsv");
}

TEST_CASE("572 the committed cost file names only corpus points") {
  auto costs = load_costs(src("validation/sim-cost.tsv"));
  REQUIRE(costs);
  auto corpus = load_corpus(src("validation/corpus.toml"));
  REQUIRE(corpus);
  for (const auto& [id, s] : *costs)
    CHECK_MESSAGE(std::any_of(corpus->begin(), corpus->end(),
                              [&](const CorpusPoint& p) { return p.id == id; }),
                  id);
}
