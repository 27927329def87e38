// Sweeps in the app (ui/app/model/sweep.h): every point runs on the worker, points arrive as
// they finish, and the chart's curves hold each point's time against the swept value, in order.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "lab/compile.h"
#include "ui/app/model/run_estimate.h"
#include "ui/app/model/run_worker.h"
#include "ui/app/model/sweep.h"

using namespace warplab;

TEST_CASE("709 sweep_points: every combination, first axis slowest") {
  lab::Experiment e;
  e.sweep.push_back({"a", {lab::Value::integer(1), lab::Value::integer(2)}, 0});
  e.sweep.push_back(
      {"b", {lab::Value::integer(10), lab::Value::integer(20), lab::Value::integer(30)}, 0});
  const auto p = app::sweep_points(e);
  REQUIRE(p.size() == 6);
  CHECK(p[0][0].second.i == 1);
  CHECK(p[0][1].second.i == 10);
  CHECK(p[2][1].second.i == 30);
  CHECK(p[3][0].second.i == 2);
  CHECK(app::sweep_points(lab::Experiment{}).empty());
}

TEST_CASE(
    "709 sweep_curves: one simulator curve per launch, in ascending x, failed points left out") {
  app::SweepSnapshot s;
  s.axes = {"bins"};
  for (double x : {256.0, 16.0, 1.0}) {
    auto r = std::make_shared<app::RunSnapshot>();
    app::LaunchView l;
    l.kernel = "histogram_global";
    auto t = std::make_shared<timing::TimingResult>();
    t->time_us = 1000.0 / x;
    l.timing = t;
    r->launches.push_back(l);
    s.points.push_back({{{"bins", std::to_string(int(x))}}, x, r});
  }
  auto bad = std::make_shared<app::RunSnapshot>();
  bad->error = "compile error";
  s.points.push_back({{{"bins", "4"}}, 4, bad});
  const auto c = app::sweep_curves(s);
  REQUIRE(c.size() == 1);
  CHECK(c[0].name == "sim: histogram_global");
  CHECK_FALSE(c[0].gpu);
  CHECK(c[0].x == std::vector<double>{1, 16, 256});
  CHECK(c[0].y[0] == doctest::Approx(1000));
  CHECK(c[0].point == std::vector<int>{2, 1, 0});
}

TEST_CASE("709 a stride sweep runs point by point on the worker") {
  if (!lab::Toolchain().has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return;
  }
  auto exp = lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) +
                                  "/lessons/02-coalescing/stride-sweep.toml");
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, "N=4096"));
  exp->sweep.front().values = {lab::Value::integer(1), lab::Value::integer(8),
                               lab::Value::integer(32)};
  app::RunWorker worker;
  app::RunRequest req;
  req.experiment = *exp;
  req.use_gpu = false;
  REQUIRE(worker.start_sweep(req));
  while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto sw = worker.latest_sweep();
  REQUIRE(sw);
  CHECK(sw->done);
  CHECK(sw->total == 3);
  REQUIRE(sw->points.size() == 3);
  for (const auto& p : sw->points) {
    REQUIRE(p.run);
    INFO(p.run->error);
    CHECK(p.run->ok());
  }
  CHECK(sw->points[1].values[0].second == "8");
  const auto c = app::sweep_curves(*sw);
  REQUIRE(c.size() == 1);
  CHECK(c[0].x == std::vector<double>{1, 8, 32});
  // A wider stride touches more sectors per request: the simulated time cannot fall.
  CHECK(c[0].y[2] > c[0].y[0]);
  // Each point is a whole run: its launch has the sectors of its own stride.
  CHECK(sw->points[2].run->launches[0].timing->memory.global_ld_sectors_per_request() >
        sw->points[0].run->launches[0].timing->memory.global_ld_sectors_per_request());
}

TEST_CASE("709 group totals: launches of a group summed, GPU only when it timed them all") {
  app::RunSnapshot r;
  auto add = [&](const char* group, double us, uint64_t dram, std::optional<double> gpu_us) {
    app::LaunchView l;
    l.group = group;
    auto t = std::make_shared<timing::TimingResult>();
    t->time_us = us;
    t->memory.dram_bytes_read = dram;
    t->memory.dram_bytes_written = dram / 2;
    t->stats.warp_instructions = 100;
    l.timing = t;
    if (gpu_us) {
      app::GpuLaunchView g;
      g.time_us = gpu_us;
      l.gpu = g;
    }
    r.launches.push_back(l);
  };
  add("nine kernels", 7, 1000, 8.0);
  add("", 3, 10, std::nullopt);  // not in any group
  add("nine kernels", 5, 2000, 6.0);
  add("fused", 6, 400, std::nullopt);
  const auto g = app::group_totals(r);
  REQUIRE(g.size() == 2);
  CHECK(g[0].name == "nine kernels");
  CHECK(g[0].launches == 2);
  CHECK(g[0].sim_time_us == doctest::Approx(12));
  CHECK(g[0].sim_dram_bytes == doctest::Approx(4500));
  CHECK(g[0].sim_warp_instructions == doctest::Approx(200));
  REQUIRE(g[0].gpu_time_us);
  CHECK(*g[0].gpu_time_us == doctest::Approx(14));
  CHECK_FALSE(g[1].gpu_time_us);  // the GPU did not time the fused launch
  CHECK(app::group_totals(app::RunSnapshot{}).empty());
}

TEST_CASE(
    "709 run size and estimate: threads and bytes from the experiment, time scaled by threads") {
  auto exp = lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) +
                                  "/lessons/01-threads-and-warps/vec_add.toml");
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, "N=1000"));
  const app::RunSize a = app::run_size(*exp);
  CHECK(a.error.empty());
  CHECK(a.threads == 1024);               // cdiv(1000, 256) = 4 blocks of 256
  CHECK(a.buffer_bytes == 4 * 1000 * 4);  // x, y, z, expected: 1000 f32 each
  REQUIRE(lab::set_param(*exp, "N=100000"));
  const app::RunSize b = app::run_size(*exp);
  CHECK(b.threads == 391 * 256);
  const auto est = app::estimate_wall_s(b, a, 0.5);
  REQUIRE(est);
  CHECK(*est == doctest::Approx(0.5 * 391 * 256 / 1024.0));
  CHECK_FALSE(app::estimate_wall_s(b, app::RunSize{}, 0.5));
  CHECK(app::host_memory_bytes() > 0);
}
