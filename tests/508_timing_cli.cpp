// `warplab run` in timing mode (the default), --config, --sched, --trace, `warplab configs`, and the GPU
// backend's missing-device path. Tiny inputs (300 elements) so the suite stays fast.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "50x_cli.h"
#include "gpu/backend.h"
#include "lab/experiment.h"
#include "lab/runner.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using warplab::test::warplab_binary;
std::string data(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}
fs::path temp_dir(const std::string& tag) {
  fs::path d = fs::temp_directory_path() / ("warplab_508_" + tag + "_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

using Outcome = warplab::test::CliOutcome;

Outcome run(const std::string& args) { return warplab::test::run_warplab(args, "508"); }

bool have_binary() {
  if (fs::exists(warplab_binary())) return true;
  MESSAGE("skipped: " << warplab_binary() << " is not built (ninja warplab)");
  return false;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

TEST_CASE("508 runner: timing mode fills the sim object of every launch") {
  using namespace warplab::lab;
  auto exp = load_experiment(data("vec_add_ptx.toml"));
  REQUIRE(exp.has_value());
  Toolchain tc;
  RunOptions opt;
  opt.mode = SimMode::Timing;
  opt.resources = false;
  Runner runner(tc, opt);
  auto r = runner.run(*exp);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  CHECK(r->passed());
  CHECK(r->config == "h100-sxm");
  REQUIRE(r->run->launches.size() == 2);
  for (const LaunchRecord& l : r->run->launches) {
    const json& s = l.sim;
    CHECK(s["mode"] == "timing");
    CHECK(s["cycles"].get<uint64_t>() > 0);
    CHECK(s["time_us"].get<double>() > 0);
    CHECK(s.contains("ipc"));
    CHECK(s["occupancy"].contains("theoretical"));
    CHECK(s["occupancy"].contains("achieved"));
    CHECK(s["occupancy"].contains("limiter"));
    CHECK(s["warp_states"]["total"].contains("stall_long_scoreboard"));
    CHECK(s["warp_states"]["by_ptx_line"].is_array());
    CHECK(s["memory"]["global_load"]["requests"].get<uint64_t>() > 0);
    // 300 floats, warps of 32 consecutive floats: every full warp load is 4 sectors.
    CHECK(s["memory"]["global_load"]["sectors_per_request"].get<double>() <= 4.0);
    CHECK(s["counters"]["warp_instructions"] == l.stats->warp_instructions);
  }
}

TEST_CASE("508 runner: unknown --config and --trace without timing are bad input") {
  using namespace warplab::lab;
  auto exp = load_experiment(data("vec_add_ptx.toml"));
  REQUIRE(exp.has_value());
  Toolchain tc;
  RunOptions opt;
  opt.mode = SimMode::Timing;
  opt.config = "no-such-gpu";
  auto r = Runner(tc, opt).run(*exp);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("unknown GPU config 'no-such-gpu'") != std::string::npos);
  CHECK(r.error().message.find("h100-sxm") != std::string::npos);  // lists the presets
  RunOptions fopt;
  fopt.mode = SimMode::Functional;
  fopt.trace = TraceCapture{};
  fopt.trace->launch = 0;
  fopt.trace->path = "/tmp/x.json";
  auto t = Runner(tc, fopt).run(*exp);
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().message.find("--trace") != std::string::npos);
  // A trace file holds one launch: a path without a launch named is refused before running.
  RunOptions nopt;
  nopt.mode = SimMode::Timing;
  nopt.trace = TraceCapture{};
  nopt.trace->path = "/tmp/x.json";
  auto n = Runner(tc, nopt).prepare_backends();
  REQUIRE_FALSE(n.has_value());
  CHECK(n.error().message.find("--trace-launch") != std::string::npos);
}

TEST_CASE("508 runner: the trace and the timing result stay in the launch records") {
  using namespace warplab::lab;
  auto exp = load_experiment(data("vec_add_ptx.toml"));
  REQUIRE(exp.has_value());
  Toolchain tc;
  RunOptions opt;
  opt.mode = SimMode::Timing;
  opt.resources = false;
  opt.trace = TraceCapture{};
  opt.trace->launch = 1;  // in memory only: no path
  auto r = Runner(tc, opt).run(*exp);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  REQUIRE(r->run->launches.size() == 2);
  for (const LaunchRecord& l : r->run->launches) {
    REQUIRE(l.timing);  // every timing-mode launch keeps the model's result
    CHECK(l.timing->cycles == l.sim["cycles"].get<uint64_t>());
    CHECK(l.timing->stats.warp_instructions == l.stats->warp_instructions);
    CHECK_FALSE(l.sim.contains("trace_file"));
  }
  CHECK(r->run->launches[0].timing->trace.spans.empty());  // not the traced launch
  CHECK_FALSE(r->run->launches[1].timing->trace.spans.empty());
  CHECK(r->run->launches[1].sim.contains("trace_truncated"));
  // Unset launch: every launch is traced.
  opt.trace->launch.reset();
  auto all = Runner(tc, opt).run(*exp);
  REQUIRE(all.has_value());
  for (const LaunchRecord& l : all->run->launches) CHECK_FALSE(l.timing->trace.spans.empty());
  // Functional mode keeps no timing result.
  RunOptions fopt;
  auto f = Runner(tc, fopt).run(*exp);
  REQUIRE(f.has_value());
  for (const LaunchRecord& l : f->run->launches) CHECK_FALSE(l.timing);
}

TEST_CASE("508 cli: timing is the default mode; JSON carries the timing objects") {
  if (!have_binary()) return;
  fs::path dir = temp_dir("json");
  Outcome o = run("run " + data("vec_add_ptx.toml") + " --json " + (dir / "r.json").string());
  CHECK(o.status == 0);
  CHECK(o.out.find("mode timing") != std::string::npos);
  CHECK(o.out.find("cycles") != std::string::npos);
  CHECK(o.out.find("occupancy: theoretical") != std::string::npos);
  CHECK(o.out.find("warp states") != std::string::npos);
  CHECK(o.out.find("sectors/req") != std::string::npos);
  json j = read_json(dir / "r.json");
  REQUIRE(j.is_object());
  CHECK(j["mode"] == "timing");
  CHECK(j["config"] == "h100-sxm");
  const json& s = j["launches"][0]["sim"];
  for (const char* k : {"cycles", "time_us", "ipc", "occupancy", "warp_states", "memory"})
    CHECK_MESSAGE(s.contains(k), k);
  CHECK(s["cycles"].get<uint64_t>() > 0);
  Outcome f = run("run " + data("vec_add_ptx.toml") + " --mode functional --json -");
  CHECK(f.status == 0);
  CHECK(f.out.find("\"mode\": \"functional\"") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("508 cli: --config errors and a config file") {
  if (!have_binary()) return;
  Outcome bad = run("run " + data("vec_add_ptx.toml") + " --config nosuch");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("unknown GPU config 'nosuch'") != std::string::npos);
  fs::path dir = temp_dir("cfg");
  std::ofstream(dir / "broken.toml") << "base = \"h100-sxm\"\n[core]\nsm_count = 4\nbogus = 1\n";
  Outcome broken =
      run("run " + data("vec_add_ptx.toml") + " --config " + (dir / "broken.toml").string());
  CHECK(broken.status == 2);
  CHECK(broken.err.find("broken.toml:4") != std::string::npos);
  std::ofstream(dir / "small.toml")
      << "base = \"h100-sxm\"\nname = \"small\"\n[core]\nsm_count = 2\n";
  Outcome small =
      run("run " + data("vec_add_ptx.toml") + " --config " + (dir / "small.toml").string());
  CHECK(small.status == 0);
  CHECK(small.out.find("config small") != std::string::npos);
  Outcome teach = run("run " + data("vec_add_ptx.toml") + " --config teaching");
  CHECK(teach.status == 0);
  fs::remove_all(dir);
}

TEST_CASE("508 cli: --trace writes Chrome trace-event JSON") {
  if (!have_binary()) return;
  fs::path dir = temp_dir("trace");
  const fs::path trace = dir / "t.json";
  Outcome o =
      run("run " + data("vec_add_ptx.toml") + " --trace " + trace.string() + " --trace-launch 1");
  CHECK(o.status == 0);
  CHECK(o.out.find("trace of launch 1 written") != std::string::npos);
  json t = read_json(trace);
  REQUIRE(t.is_object());
  REQUIRE(t["traceEvents"].is_array());
  CHECK(t["traceEvents"].size() > 0);
  size_t complete = 0;
  for (const json& e : t["traceEvents"]) {
    CHECK(e.contains("ph"));
    CHECK(e.contains("pid"));
    CHECK(e.contains("name"));
    if (e["ph"] != "M") {  // metadata events carry no timestamp in the format
      CHECK(e.contains("ts"));
      CHECK(e.contains("tid"));
    }
    complete += e["ph"] == "X";
  }
  CHECK(complete > 0);
  Outcome none =
      run("run " + data("vec_add_ptx.toml") + " --trace " + trace.string() + " --trace-launch 9");
  CHECK(none.status == 0);
  CHECK(none.out.find("no trace written") != std::string::npos);
  CHECK(run("run " + data("vec_add_ptx.toml") + " --mode functional --trace " + trace.string())
            .status == 2);
  fs::remove_all(dir);
}

TEST_CASE("508 cli: configs lists and shows presets") {
  if (!have_binary()) return;
  Outcome l = run("configs");
  CHECK(l.status == 0);
  CHECK(l.out.find("h100-sxm") != std::string::npos);
  CHECK(l.out.find("teaching") != std::string::npos);
  Outcome s = run("configs show h100-sxm");
  CHECK(s.status == 0);
  CHECK(s.out.find("[core]") != std::string::npos);
  CHECK(s.out.find("sm_count") != std::string::npos);
  CHECK(s.out.find("132") != std::string::npos);
  CHECK(s.out.find("clock_mhz") != std::string::npos);
  CHECK(run("configs show nosuch").status == 2);
}

// --sched: the warp scheduling policy in place of the preset's (h100-sxm: lrr). On one SM the 32
// warps of N = 4096 share four schedulers, so the policy decides the issue order: lrr must give
// the preset's cycles exactly, gto others, with the same (checked) results; an unknown policy is
// bad input before anything runs.
TEST_CASE("508 cli: --sched lrr|gto picks the warp scheduler, an unknown one exits 2") {
  if (!have_binary()) return;
  fs::path dir = temp_dir("sched");
  std::ofstream(dir / "one.toml") << "base = \"h100-sxm\"\nname = \"one-sm\"\n[core]\nsm_count = 1\n";
  auto cycles = [&](const std::string& sched) -> int64_t {
    const fs::path out = dir / ("r" + sched + ".json");
    Outcome o = run("run " + data("vec_add_ptx.toml") + " --set N=4096 --threads 1 --config " +
                    (dir / "one.toml").string() + (sched.empty() ? "" : " --sched " + sched) +
                    " --json " + out.string());
    CHECK(o.status == 0);
    if (!sched.empty())
      CHECK(o.out.find("warp scheduler: " + sched + " (--sched") != std::string::npos);
    const json j = read_json(out);
    if (!j.is_object() || !j["passed"].get<bool>()) return -1;
    return j["launches"][0]["sim"]["cycles"].get<int64_t>();
  };
  const int64_t preset = cycles(""), lrr = cycles("lrr"), gto = cycles("gto");
  CHECK(preset > 0);
  CHECK(lrr == preset);
  CHECK(gto > 0);
  CHECK(gto != lrr);
  Outcome bad = run("run " + data("vec_add_ptx.toml") + " --sched fifo");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--sched: unknown warp scheduling policy 'fifo' (lrr, gto)") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("508 cli: --backend gpu|both without a GPU exits 2 with the reason") {
  if (!have_binary()) return;
  if (auto g = warplab::gpu::Backend::open()) {
    MESSAGE("skipped: a GPU is present here (" << g->device().name << ")");
    return;
  }
  const std::string why = warplab::gpu::Backend::open().error().message;
  for (const char* b : {"both", "gpu"}) {
    Outcome o = run("run " + data("vec_add_ptx.toml") + " --backend " + b);
    CHECK(o.status == 2);
    CHECK(o.err.find("the real GPU is not available") != std::string::npos);
    CHECK_MESSAGE(o.err.find(why) != std::string::npos, o.err);
  }
  Outcome c = run("configs --from-gpu /tmp/warplab_508_never.toml");
  CHECK(c.status == 2);
  CHECK(c.err.find("no GPU") != std::string::npos);
  CHECK_FALSE(fs::exists("/tmp/warplab_508_never.toml"));
}

TEST_CASE("508 cli: bench lists the timing workloads") {
  if (!have_binary()) return;
  Outcome l = run("bench --list");
  CHECK(l.status == 0);
  for (const char* w : {"vec_add_2^20  mode=timing", "vec_add_2^22  mode=timing",
                        "vec_add_2^24  mode=timing", "matmul_tiled_512  mode=timing"})
    CHECK_MESSAGE(l.out.find(w) != std::string::npos, w);
  CHECK(run("bench --mode sideways").status == 2);
}
