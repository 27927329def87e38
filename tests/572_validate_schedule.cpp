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

TEST_CASE("572 dispatch: every run once, never more threads than the host's, plan order") {
  std::vector<PlannedRun> plan;
  for (int t : {3, 1, 2, 1, 1, 4, 1, 2}) plan.push_back({plan.size(), t});
  std::mutex m;
  std::vector<size_t> started;
  std::atomic<int> in_use{0}, peak{0}, entered{0};
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
    if (r.run <= 1) {  // runs 0 (3 threads) and 1 (1) must run side by side: each waits for both
      ++entered;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (entered.load() < 2 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    in_use -= r.threads;
  });
  CHECK(peak.load() <= 4);
  CHECK(peak.load() == 4);  // runs 0 and 1 together
  for (int c : calls) CHECK(c == 1);
  // On one host thread the runs go one at a time, in the plan's order (on more, two runs that
  // start back to back may enter `run` in either order).
  std::vector<size_t> serial;
  dispatch_runs(plan, 1, [&](const PlannedRun& r) { serial.push_back(r.run); });
  REQUIRE(serial.size() == plan.size());
  for (size_t k = 0; k < serial.size(); ++k) CHECK(serial[k] == k);
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

TEST_CASE("572 costs: a path that is not a regular file is an error, not a read") {
  // (before, --costs /dev/zero read forever)
  for (const char* path : {"/dev/zero", "/nonexistent/sim-cost.tsv", "/tmp"}) {
    auto c = load_costs(path);
    REQUIRE_FALSE(c);
    CHECK(c.error().file == path);
    CHECK(c.error().message.find("costs file") != std::string::npos);
  }
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
  // Lesson 5 at 2048^3 is in it: by far the longest runs, they must start first.
  CHECK(costs->count("l5.matmul_naive.ref") == 1);
  CHECK(costs->count("l5.matmul_tiled.ref") == 1);
}

TEST_CASE("572 heavy points with their own launches run alone: same cycles as run together") {
  // Lesson 5's matmul at 64^3: the naive and the tiled launch as two points. Marked heavy, each
  // runs alone (its launch timed, the other functional); light, both share one run. With costs
  // that give the first point all 4 threads. Every simulated figure must agree.
  auto corpus = [&](bool heavy) {
    std::string text;
    for (const char* k : {"matmul_naive", "matmul_tiled"})
      text += std::string("[[point]]\nid = \"") + k + "\"\nexperiment = \"" +
              src("lessons/05-shared-memory-tiling/matmul.toml") +
              "\"\nset = [\"M=64\", \"N=64\", \"K=64\"]\nlaunch = [\"" + k +
              "\"]\nmechanism = \"m\"\n" + (heavy ? "heavy = true\n" : "");
    auto pts = parse_corpus(text, "/abs.toml");
    REQUIRE(pts);
    return *pts;
  };
  ValidateOptions o;
  o.jobs = 2;
  o.threads = 2;
  const std::vector<SimPoint> together = simulate_corpus(corpus(false), o);
  o.cost_s = {{"matmul_tiled", 100}, {"matmul_naive", 1}};
  // Host threads 2 x 2 = 4: the tiled point, 100 of 101 s, gets ceil(3.96) = 4 threads and goes
  // first; the naive one ceil(0.04) = 1, raised to the 2 asked for.
  std::vector<std::string> plan_ids;
  std::vector<int> plan_threads;
  o.plan = [&](const std::vector<std::string>& ids, const std::vector<int>& threads,
               const std::vector<double>&, unsigned host) {
    plan_ids = ids;
    plan_threads = threads;
    CHECK(host == 4);
  };
  const std::vector<SimPoint> alone = simulate_corpus(corpus(true), o);
  CHECK(plan_ids == std::vector<std::string>{"matmul_tiled", "matmul_naive"});
  CHECK(plan_threads == std::vector<int>{4, 2});
  REQUIRE(together.size() == 2);
  REQUIRE(alone.size() == 2);
  // One run serves both light points (one wall time); the heavy ones ran apart.
  CHECK(together[0].wall_s == together[1].wall_s);
  CHECK(alone[0].wall_s != alone[1].wall_s);
  for (size_t i = 0; i < 2; ++i) {
    REQUIRE(together[i].ok);
    REQUIRE(alone[i].ok);
    CHECK(together[i].cycles > 0);
    CHECK(alone[i].cycles == together[i].cycles);
    CHECK(alone[i].time_us == together[i].time_us);
    CHECK(alone[i].counters == together[i].counters);
  }
}
