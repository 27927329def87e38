// The app's run path (ui/app/model/run_worker.h, run_snapshot.h): an experiment runs on the
// worker thread in the timing model with the trace on, and arrives as one immutable snapshot.
// Needs NVRTC to compile the lesson's kernel; skipped without it.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "70x_app.h"
#include "ui/app/model/run_worker.h"
#include "ui/app/model/trace_index.h"

using namespace warplab;

TEST_CASE("704 a small coalesced copy runs on the worker and arrives with its trace") {
  auto exp = test::copy_experiment("N=8192");
  if (!exp) return;
  app::RunWorker worker;
  app::RunRequest req;
  req.experiment = *exp;
  req.use_gpu = false;
  REQUIRE(worker.start(req));
  CHECK_FALSE(worker.start(req));  // one run at a time (refused while busy, or already done)
  while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(worker.generation() == 1);
  auto snap = worker.latest();
  REQUIRE(snap);
  INFO(snap->error);
  REQUIRE(snap->ok());
  REQUIRE(snap->launches.size() == 1);
  const app::LaunchView& l = snap->launches[0];
  REQUIRE(l.timing);
  CHECK(l.timing->cycles > 0);
  CHECK(l.timing->stats.warp_instructions ==
        256 * 20);  // 20 PTX instructions per warp, as `warplab run` counts
  CHECK_FALSE(l.timing->trace.spans.empty());
  CHECK_FALSE(l.timing->trace.accesses.empty());
  REQUIRE(snap->checks.size() == 1);
  CHECK(snap->checks[0].passed);
  // Every span is a whole number of cycles and the index sees the traced SM only.
  const app::TraceIndex ix = app::build_trace_index(l.timing->trace);
  REQUIRE_FALSE(ix.rows.empty());
  for (const auto& r : ix.rows) CHECK(r.sm == 0);
  CHECK(ix.last_cycle <= l.timing->cycles + 1);
  // The kernel's source lines carry the instruction counts.
  CHECK_FALSE(snap->source_line_stats().empty());
  CHECK(snap->ptx_text.count(l.timing->trace.accesses[0].ptx_line) == 1);
}

TEST_CASE("704 Cancel stops a single run at once, with the error 'cancelled'") {
  // 2^24 elements: tens of seconds in the timing model, so the run is still going when cancelled.
  auto exp = test::copy_experiment("N=16777216");
  if (!exp) return;
  app::RunWorker worker;
  app::RunRequest req;
  req.experiment = *exp;
  req.use_gpu = false;
  REQUIRE(worker.start(req));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(worker.busy());
  const auto t0 = std::chrono::steady_clock::now();
  worker.cancel();
  while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited < 5.0);  // within a few simulated cycles; the bound leaves room for a loaded machine
  auto snap = worker.latest();
  REQUIRE(snap);
  CHECK_FALSE(snap->ok());
  CHECK(snap->error.find("cancelled") != std::string::npos);
  CHECK(snap->cancelled);  // the app keeps the last finished run on screen
  // The next run starts afresh (the flag is cleared).
  auto small = test::copy_experiment("N=8192");
  REQUIRE(small);
  req.experiment = *small;
  REQUIRE(worker.start(req));
  while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  INFO(worker.latest()->error);
  CHECK(worker.latest()->ok());
  CHECK_FALSE(worker.latest()->cancelled);
}

TEST_CASE("704 a sweep's Cancel stops the running point too, within a second; no half point kept") {
  if (!lab::Toolchain().has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return;
  }
  auto exp = lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) +
                                  "/lessons/02-coalescing/stride-sweep.toml");
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, "N=16777216"));  // each point tens of seconds in the timing model
  app::RunWorker worker;
  app::RunRequest req;
  req.experiment = *exp;
  req.use_gpu = false;
  REQUIRE(worker.start_sweep(req));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(worker.busy());
  const auto t0 = std::chrono::steady_clock::now();
  worker.cancel();
  while (worker.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(waited < 1.0);  // the first point was still running: it stops, not finishes
  auto sw = worker.latest_sweep();
  REQUIRE(sw);
  CHECK(sw->cancelled);
  CHECK(sw->done);
  CHECK(sw->points.empty());  // the point that was stopped is not drawn as a result
  CHECK(sw->total == 7);
}
