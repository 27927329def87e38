// Whole experiment runs through the runner and reports (lab/runner.h, lab/report.h).
#include <doctest/doctest.h>

#include "lab/report.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {
std::string data(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}
}  // namespace

TEST_CASE("506 run: a PTX experiment runs without the CUDA toolkit") {
  auto exp = load_experiment(data("vec_add_ptx.toml"));
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  Toolchain tc;
  RunOptions opt;
  opt.resources = false;
  Runner runner(tc, opt);
  auto r = runner.run(*exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  REQUIRE(r->run);
  CHECK(r->passed());
  REQUIRE(r->run->launches.size() == 2);
  const LaunchRecord& l = r->run->launches[0];
  REQUIRE(l.stats);
  CHECK(l.stats->threads == 384);
  CHECK(l.stats->warps == 12);
  CHECK(l.stats->warp_instructions > 0);
  // z = x + x exactly.
  const HostBuffer& x = r->run->buffers[0];
  const HostBuffer& z = r->run->buffers[1];
  for (uint64_t i = 0; i < x.count; ++i) REQUIRE(z.at(i) == 2 * x.at(i));
  nlohmann::json j = experiment_json(*exp, *r);
  CHECK(j["schema"] == "warplab.run/1");
  CHECK(j["launches"].size() == 2);
  CHECK(j["launches"][0]["grid"] == nlohmann::json::array({3, 1, 1}));
  CHECK(j["launches"][0]["backend"] == "sim");
  CHECK(j["launches"][0]["warp_instructions"].get<uint64_t>() == l.stats->warp_instructions);
  CHECK(j["checks"][0]["passed"] == true);
  CHECK(j["checks"][0]["max_abs_error"] == 0.0);
}

TEST_CASE("506 run: a CUDA experiment with checks, resources and a sweep") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  auto exp = load_experiment(data("vec_add.toml"));
  REQUIRE(exp.has_value());
  Runner runner(tc, RunOptions{});
  auto r = runner.run(*exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  CHECK(r->passed());
  REQUIRE(r->run->checks.size() == 2);
  CHECK(r->run->checks[0].passed);
  CHECK(r->run->checks[1].passed);
  const LaunchRecord& l = r->run->launches[0];
  REQUIRE(l.resources);
  CHECK(l.resources->registers > 0);
  REQUIRE(l.stats);
  CHECK_FALSE(l.stats->by_src_line.empty());  // -lineinfo reached the counts
  // A sweep: every combination runs; compiled once.
  exp->sweep.push_back(
      SweepAxis{"block", {Value::integer(64), Value::integer(128), Value::integer(1024)}});
  exp->sweep.push_back(SweepAxis{"N", {Value::integer(100), Value::integer(1000)}});
  exp->checks.erase(exp->checks.begin());  // the .npy holds 1000 elements
  auto s = runner.run(*exp);
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().to_string()));
  REQUIRE(s->sweep);
  CHECK(s->sweep->runs.size() == 6);
  CHECK(s->sweep->runs[1].params[0].second.i == 1000);  // the last axis varies fastest
  CHECK(s->passed());
  std::string table = format_sweep_table(*s->sweep);
  CHECK(table.find("block") != std::string::npos);
  CHECK(table.find("L0 vec_add warp_inst") != std::string::npos);
  nlohmann::json j = experiment_json(*exp, *s);
  CHECK(j["sweep"]["rows"].size() == 6);
  CHECK(j["sweep"]["params"] == nlohmann::json::array({"block", "N"}));
}

TEST_CASE("506 run: an out-of-bounds store is a fault report, and nothing is lost") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  auto exp = load_experiment(data("oob.toml"));
  REQUIRE(exp.has_value());
  Runner runner(tc, RunOptions{});
  auto r = runner.run(*exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  CHECK_FALSE(r->passed());
  REQUIRE(r->run->faulted());
  REQUIRE(r->run->launches.size() == 1);  // the launch after the fault did not run
  const LaunchRecord& l = r->run->launches[0];
  REQUIRE(l.fault);
  CHECK(l.fault->is_write);
  CHECK(l.fault->ptx_line > 0);
  CHECK(l.fault->src_line == 4);
  std::string text = format_fault(l);
  CHECK(text.find("KERNEL FAULT") != std::string::npos);
  CHECK(text.find("vec_add.cu:4") != std::string::npos);
  // The buffers came back (written before the fault).
  CHECK(r->run->buffers[1].at(0) == 0.0);
  CHECK(r->run->buffers[1].at(5) == 10.0);
  nlohmann::json j = experiment_json(*exp, *r);
  CHECK(j["faulted"] == true);
  CHECK(j["launches"][0]["fault"]["kind"] == "out_of_bounds");
}

TEST_CASE("506 run: unknown kernel and signature mismatch are errors at file:line") {
  Toolchain tc;
  std::string text = R"([experiment]
ptx = "../../bench/vec_add.ptx"
[params]
N = 64
[[buffers]]
name = "x"
type = "f32"
count = "N"
[[launches]]
kernel = "KERNEL"
grid = 1
block = 64
args = ARGS
)";
  auto make = [&](const std::string& kernel, const std::string& args) {
    std::string t = text;
    t.replace(t.find("KERNEL"), 6, kernel);
    t.replace(t.find("ARGS"), 4, args);
    auto e = parse_experiment(t, data("inline.toml"));
    REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
    return *e;
  };
  Runner runner(tc, RunOptions{});
  auto bad_kernel = runner.run(make("vec_ad", "[\"x\", \"x\", \"x\", \"N\"]"));
  REQUIRE_FALSE(bad_kernel.has_value());
  CHECK(bad_kernel.error().line == 10);
  CHECK(bad_kernel.error().message.find("unknown kernel 'vec_ad'") != std::string::npos);
  auto bad_type = runner.run(make("vec_add", "[\"x\", \"x\", \"x\", \"x\"]"));
  REQUIRE_FALSE(bad_type.has_value());
  CHECK(bad_type.error().line == 13);
  CHECK(bad_type.error().message.find("args[3]") != std::string::npos);
  auto bad_count = runner.run(make("vec_add", "[\"x\", \"x\", \"N\"]"));
  REQUIRE_FALSE(bad_count.has_value());
  CHECK(bad_count.error().message.find("3 argument(s) given") != std::string::npos);
  RunOptions timing;
  timing.mode = SimMode::Timing;
  Runner no_timing(tc, timing);
  auto t = no_timing.run(make("vec_add", "[\"x\", \"x\", \"x\", \"N\"]"));
  if (!t) CHECK(t.error().message.find("timing") != std::string::npos);
}
