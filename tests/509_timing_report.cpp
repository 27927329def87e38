// Reports in timing mode: the sweep table's timing columns, the side-by-side rows, and the
// choice between bit-exact and tolerant GPU comparisons (.approx detection). No GPU needed.
#include <doctest/doctest.h>

#include "lab/backends.h"
#include "lab/experiment.h"
#include "lab/metrics_json.h"
#include "lab/report.h"
#include "lab/runner.h"
#include "sim/ptx/parser.h"

using namespace warplab;

TEST_CASE("509 sweep in timing mode: a table with cycles, us and the memory metrics") {
  auto exp = lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/vec_add_ptx.toml");
  REQUIRE(exp.has_value());
  exp->sweep.push_back({"N", {lab::Value::integer(64), lab::Value::integer(256)}, 0});
  lab::Toolchain tc;
  lab::RunOptions opt;
  opt.mode = lab::SimMode::Timing;
  opt.resources = false;
  auto r = lab::Runner(tc, opt).run(*exp);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  REQUIRE(r->sweep.has_value());
  const std::string t = lab::format_sweep_table(*r->sweep);
  CHECK(t.find("cycles") != std::string::npos);
  CHECK(t.find("sim_us") != std::string::npos);
  CHECK(t.find("ld_sect/req") != std::string::npos);
  CHECK(t.find("DRAM_GB/s") != std::string::npos);
  CHECK(t.find("pass") != std::string::npos);
  CHECK(t.find("gpu_us") == std::string::npos);  // no GPU columns without a GPU
}

TEST_CASE("509 side by side: rows pair the simulator's and the GPU's counters by key") {
  nlohmann::json sim = {
      {"time_us", 10.0},
      {"kernel_time_us", 6.0},
      {"counters",
       {{"elapsed_cycles", 1000}, {"warp_instructions", 500}, {"global_load_sectors", 64}}}};
  nlohmann::json gpu = {
      {"time_us", 8.0},
      {"counters",
       {{"available", true},
        {"values",
         {{"elapsed_cycles", 2000}, {"gpu_time_ns", 5000}, {"warp_instructions", 500}}}}}};
  auto rows = lab::side_by_side_rows(sim, gpu, std::nullopt);
  auto find = [&](const std::string& m) -> const lab::SideBySideRow* {
    for (const auto& r : rows)
      if (r.metric.find(m) == 0) return &r;
    return nullptr;
  };
  REQUIRE(find("time") != nullptr);
  CHECK(*find("time")->sim == 10.0);
  CHECK(*find("time")->gpu == 8.0);
  CHECK(*find("kernel duration")->gpu == doctest::Approx(5.0));
  CHECK(*find("cycles")->gpu == 2000);
  CHECK(*find("warp instructions")->sim == 500);
  CHECK(*find("global load sectors")->sim == 64);
  CHECK_FALSE(find("global load sectors")->gpu.has_value());
}

TEST_CASE("509 both: kernels with .approx math are compared within a tolerance") {
  const char* ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry exact(.param .u64 p)
{
  .reg .f32 %f<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.f32 %f1, [%rd1];
  add.rn.f32 %f2, %f1, %f1;
  st.global.f32 [%rd1], %f2;
  ret;
}
.visible .entry approx(.param .u64 p)
{
  .reg .f32 %f<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.f32 %f1, [%rd1];
  ex2.approx.ftz.f32 %f2, %f1;
  st.global.f32 [%rd1], %f2;
  ret;
}
)";
  auto m = ptx::parse_module(ptx, "t.ptx");
  REQUIRE_MESSAGE(m.has_value(), m.error().to_string());
  CHECK_FALSE(lab::uses_approximate_math(*m, m->functions[0]));
  CHECK(lab::uses_approximate_math(*m, m->functions[1]));
}

namespace {

// Runs `exp` on the timing model with the L2 convention `l2` (no nvJitLink resource query).
lab::ExperimentResult run_timing_l2(const lab::Experiment& exp, lab::L2Start l2) {
  lab::Toolchain tc;
  lab::RunOptions opt;
  opt.mode = lab::SimMode::Timing;
  opt.resources = false;
  opt.l2 = l2;
  auto r = lab::Runner(tc, opt).run(exp);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  REQUIRE(r->run.has_value());
  return std::move(*r);
}

}  // namespace

TEST_CASE("509 --l2 cold (the default) and warm: what every timed launch finds in the L2") {
  // Both launches read x (300 floats = 1200 bytes, in 38 sectors of 32 bytes) twice per thread;
  // the L2 fetches DRAM in 64-byte sector pairs (h100-sxm l2.fetch_bytes), so a cold read of x
  // costs ceil(1200 / 64) * 64 = 1216 bytes from DRAM. The buffers start 256-byte aligned.
  auto exp = lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/vec_add_ptx.toml");
  REQUIRE(exp.has_value());
  auto run = [&](lab::L2Start l2) {
    auto r = run_timing_l2(*exp, l2);
    REQUIRE(r.run->launches.size() == 2);
    CHECK(r.l2 == lab::l2_start_name(l2));
    return *r.run;
  };
  CHECK(lab::RunOptions{}.l2 == lab::L2Start::Cold);
  const auto warm = run(lab::L2Start::Warm), cold = run(lab::L2Start::Cold);
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto& c = cold.launches[i].sim["memory"];
    const auto& w = warm.launches[i].sim["memory"];
    // Cold: every launch pays DRAM for all of x.
    CHECK(cold.launches[i].sim["l2"] == "cold");
    CHECK(c["dram_bytes_read"] == 1216);
    CHECK(c["l2_read_sector_hits"] == 0);
    // Warm: every launch, the first too, follows its own warm-up and finds x in the L2.
    CHECK(warm.launches[i].sim["l2"] == "warm");
    CHECK(w["dram_bytes_read"] == 0);
    CHECK(w["l2_read_sector_hits"] == 38);
    CHECK(w["l2_read_sector_misses"] == 0);
    CHECK(warm.launches[i].sim["cycles"] < cold.launches[i].sim["cycles"]);
  }
  CHECK(warm.passed());
  CHECK(cold.passed());
}

TEST_CASE("509 --l2 warm: the simulator's warm-up launch leaves device memory as it found it") {
  // x = x + x in place; with the warm-up's writes kept, x would end as 4 x0 and fail the check.
  auto exp =
      lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/in_place_ptx.toml");
  REQUIRE_MESSAGE(exp.has_value(), exp.error().to_string());
  for (lab::L2Start l2 : {lab::L2Start::Cold, lab::L2Start::Warm}) {
    auto r = run_timing_l2(*exp, l2);
    CAPTURE(r.l2);
    CHECK(r.run->passed());
  }
}
