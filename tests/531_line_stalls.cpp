// Per-line stall reasons (lab/line_stalls.h): CUPTI reason names onto the model's warp states,
// the model's per-line warp-cycles of a small kernel, GPU samples per PTX line onto CUDA source
// lines through .loc, and the JSON data file (round trip and errors naming the bad field).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "21x_sim.h"
#include "lab/experiment.h"
#include "lab/line_stalls.h"
#include "lab/runner.h"
#include "lab/stalls_report.h"
#include "lab/stalls_validate.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using lab::StallMix;

namespace {

// One load, its use and a store; .loc lines 10 (load), 11 (add) and 12 (store) of k.cu.
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.file 1 "k.cu"
.visible .entry k(.param .u64 p_in, .param .u64 p_out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [p_in];
  ld.param.u64 %rd2, [p_out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  .loc 1 10 0
  ld.global.u32 %r2, [%rd4];
  .loc 1 11 0
  add.s32 %r3, %r2, 1;
  .loc 1 12 0
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r3;
  ret;
}
)";

}  // namespace

TEST_CASE("531 CUPTI reasons: model names where the model has the state, CUPTI names otherwise") {
  CHECK(lab::model_reason_for_cupti("smsp__pcsamp_warps_issue_stalled_long_scoreboard") ==
        "stall_long_scoreboard");
  CHECK(lab::model_reason_for_cupti("smsp__pcsamp_warps_issue_stalled_selected") == "selected");
  CHECK(lab::model_reason_for_cupti("smsp__pcsamp_warps_issue_stalled_not_selected") ==
        "not_selected");
  CHECK(lab::model_reason_for_cupti("smsp__pcsamp_warps_issue_stalled_no_instructions") ==
        "stall_no_instruction");
  CHECK(lab::model_reason_for_cupti("barrier") == "stall_barrier");
  CHECK(lab::model_reason_for_cupti("smsp__pcsamp_warps_issue_stalled_tex_throttle") ==
        "smsp__pcsamp_warps_issue_stalled_tex_throttle");
  CHECK(lab::model_reason_for_cupti("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued") ==
        "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued");
  CHECK(lab::is_cupti_not_issued_reason("smsp__pcsamp_warps_issue_stalled_wait_not_issued"));
  CHECK_FALSE(lab::is_cupti_not_issued_reason("smsp__pcsamp_warps_issue_stalled_wait"));
}

TEST_CASE("531 agreement: top reason per line and total variation distance, weighted by samples") {
  lab::KernelLineStalls m, g;
  m.by_ptx_line = {{10, {{"stall_long_scoreboard", 90}, {"selected", 10}}},
                   {11, {{"stall_wait", 6}, {"selected", 4}}},
                   {12, {{"selected", 7}}}};
  g.by_ptx_line = {{10, {{"stall_long_scoreboard", 80}, {"selected", 20}}},
                   {11, {{"selected", 30}, {"stall_wait", 10}}},
                   {13, {{"smsp__pcsamp_warps_issue_stalled_misc", 10}}}};
  g.total = {{"stall_long_scoreboard", 80}, {"selected", 50}, {"stall_wait", 10},
             {"smsp__pcsamp_warps_issue_stalled_misc", 10}};
  auto a = lab::compare_line_stalls(m, g);
  REQUIRE(a.has_value());
  CHECK(a->lines == "ptx");
  CHECK(a->lines_compared == 2);  // 12 has no samples, 13 no model cycles
  CHECK(a->samples_compared == 140);
  CHECK(a->samples_total == 150);
  // Line 10 agrees (long scoreboard), 11 does not (model: wait, GPU: selected).
  CHECK(a->top_agreement == doctest::Approx(100.0 / 140));
  // TV distance: line 10 (|.9-.8| + |.1-.2|)/2 = 0.1; line 11 (|.6-.25| + |.4-.75|)/2 = 0.35.
  CHECK(a->distance == doctest::Approx((100 * 0.1 + 40 * 0.35) / 140));
  // Source lines win when both sides have them.
  m.by_source_line = {{"k.cu", 5, {{"stall_wait", 1}}}};
  g.by_source_line = {{"k.cu", 5, {{"smsp__pcsamp_warps_issue_stalled_misc", 3}}}};
  a = lab::compare_line_stalls(m, g);
  REQUIRE(a.has_value());
  CHECK(a->lines == "source");
  CHECK(a->top_agreement == 0);
  CHECK(a->distance == doctest::Approx(1.0));
  g.by_source_line[0].line = 6;
  CHECK_FALSE(lab::compare_line_stalls(m, g).has_value());
}

TEST_CASE("531 mixes: total, top reason (ties to the first name), add") {
  StallMix a{{"stall_wait", 3}, {"selected", 5}, {"stall_barrier", 5}};
  CHECK(lab::mix_total(a) == 13);
  CHECK(lab::mix_top(a) == "selected");  // "selected" < "stall_barrier"
  CHECK(lab::mix_top({}) == "");
  lab::mix_add(a, {{"stall_wait", 4}, {"stall_drain", 1}});
  CHECK(a["stall_wait"] == 7);
  CHECK(a["stall_drain"] == 1);
  CHECK(lab::mix_top(a) == "stall_wait");
}

TEST_CASE("531 the model's per-line warp states: every warp-cycle on a line, the load's use waits") {
  test::Sim s(kPtx, "k.ptx");
  const uint64_t in = s.buffer<uint32_t>("in", std::vector<uint32_t>(64, 7));
  const uint64_t out = s.zeros<uint32_t>("out", 64);
  auto cfg = timing::load_config("h100-sxm");
  REQUIRE(cfg.has_value());
  func::LaunchConfig lc{"k", {1, 1, 1}, {64, 1, 1}, 0, s.params("k", {in, out})};
  auto r = timing::run_timing(*s.program, s.mem, lc, *cfg);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  CHECK(s.read<uint32_t>(out, 64) == std::vector<uint32_t>(64, 8));

  lab::KernelLineStalls k = lab::kernel_stalls_from_timing(*r, s.program->module(), "k", 0);
  CHECK(k.kernel == "k");
  // Every warp-cycle is charged to the line of the instruction the warp waits to issue; a
  // finished warp's wait for its stores to drain goes to the kernel's one `ret`.
  uint64_t sum = 0;
  for (const auto& p : k.by_ptx_line) sum += lab::mix_total(p.mix);
  CHECK(k.unmapped == 0);
  CHECK(sum == lab::mix_total(k.total));
  const StallMix* ret = k.ptx_line(test::line_of(kPtx, "ret;"));
  REQUIRE(ret != nullptr);
  CHECK(ret->at("stall_drain") > 0);  // the store's trip to L2 after `ret`
  CHECK(ret->at("stall_drain") == k.total.at("stall_drain"));
  // Two warps, one issue each per instruction: 2 "selected" warp-cycles on every line.
  const int add_line = test::line_of(kPtx, "add.s32 %r3");
  const StallMix* add = k.ptx_line(add_line);
  REQUIRE(add != nullptr);
  CHECK(add->at("selected") == 2);
  // The add waits for the global load's result: a long-scoreboard stall, its top reason.
  CHECK(lab::mix_top(*add) == "stall_long_scoreboard");
  CHECK(add->at("stall_long_scoreboard") > 100);  // a DRAM round trip is hundreds of cycles
  // Source line 11 holds exactly the add's PTX line.
  const StallMix* src11 = k.source_line("k.cu", 11);
  REQUIRE(src11 != nullptr);
  CHECK(*src11 == *add);
  // The ret stands under `.loc 1 12`: line 12 has the drain too.
  CHECK(k.source_line("k.cu", 12)->at("stall_drain") == k.total.at("stall_drain"));
  // Lines before the first .loc have no source line; source rows sum to less than the total.
  uint64_t src_sum = 0;
  for (const auto& sl : k.by_source_line) src_sum += lab::mix_total(sl.mix);
  CHECK(src_sum < sum);
}

TEST_CASE("531 GPU samples per PTX line onto source lines; line 0 is unmapped") {
  auto m = ptx::parse_module(kPtx, "k.ptx");
  REQUIRE(m.has_value());
  const int ld = test::line_of(kPtx, "ld.global.u32");
  const int add = test::line_of(kPtx, "add.s32 %r3");
  const int st = test::line_of(kPtx, "st.global.u32");
  const int addr = test::line_of(kPtx, "add.s64 %rd5");
  std::map<int32_t, StallMix> samples = {
      {0, {{"smsp__pcsamp_warps_issue_stalled_misc", 2}}},
      {ld, {{"selected", 1}, {"stall_lg_throttle", 3}}},
      {add, {{"stall_long_scoreboard", 40}, {"selected", 1}}},
      {addr, {{"stall_wait", 2}}},
      {st, {{"stall_wait", 1}, {"selected", 1}}},
  };
  lab::KernelLineStalls k = lab::kernel_stalls_from_ptx_lines(samples, *m, "k", 3);
  CHECK(k.launch == 3);
  CHECK(k.unmapped == 2);
  CHECK(lab::mix_total(k.total) == 51);
  CHECK(k.by_ptx_line.size() == 4);  // line 0 has no row
  REQUIRE(k.source_line("k.cu", 10) != nullptr);
  CHECK(*k.source_line("k.cu", 10) == StallMix{{"selected", 1}, {"stall_lg_throttle", 3}});
  CHECK(*k.source_line("k.cu", 11) == StallMix{{"stall_long_scoreboard", 40}, {"selected", 1}});
  // Line 12 = the address add and the store together.
  CHECK(*k.source_line("k.cu", 12) == StallMix{{"stall_wait", 3}, {"selected", 1}});
  CHECK(k.source_line("k.cu", 9) == nullptr);
}

TEST_CASE("531 data file: round trip, and errors that name the file and the field") {
  lab::LineStalls g;
  g.source = "gpu";
  g.unit = "samples";
  g.device = "NVIDIA H100 80GB HBM3";
  g.driver = "580.159.04";
  g.date = "2026-11-26T16:00:00Z";
  g.method = "nvdisasm --print-line-info";
  g.sampling_period_log2 = 5;
  g.experiment = "lessons/02-coalescing/strided.toml";
  g.set = {"stride=32"};
  lab::KernelLineStalls k;
  k.kernel = "strided_copy";
  k.launch = 1;
  k.total = {{"stall_long_scoreboard", 90}, {"selected", 10}};
  k.by_ptx_line = {{21, {{"stall_long_scoreboard", 90}}}, {22, {{"selected", 10}}}};
  k.by_source_line = {{"strided.cu", 7, k.total}};
  k.dropped = 4;
  g.kernels.push_back(k);
  lab::LineStalls sim;
  sim.source = "sim";
  sim.unit = "warp_cycles";
  sim.device = "h100-sxm";

  const std::string path =
      (std::filesystem::temp_directory_path() / "warplab_531_line_stalls.json").string();
  REQUIRE(lab::write_line_stalls_file(path, {sim, g}));
  auto back = lab::read_line_stalls_file(path);
  REQUIRE_MESSAGE(back.has_value(), back.error().to_string());
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].source == "sim");
  const lab::LineStalls& b = (*back)[1];
  CHECK(b.device == g.device);
  CHECK(b.driver == g.driver);
  CHECK(b.date == g.date);
  CHECK(b.sampling_period_log2 == 5);
  CHECK(b.set == g.set);
  const lab::KernelLineStalls* bk = b.kernel("strided_copy");
  REQUIRE(bk != nullptr);
  CHECK(bk->launch == 1);
  CHECK(bk->dropped == 4);
  CHECK(bk->total == k.total);
  CHECK(*bk->ptx_line(21) == StallMix{{"stall_long_scoreboard", 90}});
  CHECK(*bk->source_line("strided.cu", 7) == k.total);
  CHECK(b.kernel("strided_copy", 0) == nullptr);

  // Bad input: the error names the file and the JSON path.
  nlohmann::json j = lab::to_json(g);
  j["kernels"][0]["by_ptx_line"][1]["states"]["selected"] = -1;
  auto bad = lab::line_stalls_from_json(j, "x.json");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().file == "x.json");
  CHECK(bad.error().message.find("kernels[0].by_ptx_line[1].states.selected") != std::string::npos);
  j = lab::to_json(g);
  j["source"] = "ncu";
  bad = lab::line_stalls_from_json(j, "x.json");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("\"sim\" or \"gpu\"") != std::string::npos);
  {
    std::ofstream f(path);
    f << R"({"schema": "warplab.run/1", "runs": []})";
  }
  auto wrong = lab::read_line_stalls_file(path);
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().message.find("warplab.line-stalls/1") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("531 validate --stalls: a GPU file holding the model's own mixes agrees at every point") {
  // The simulator's per-line stalls of lesson 2's sweep, relabelled as GPU data: validation must
  // re-simulate each sweep point (axes dropped, the point's value set) and find the same mixes.
  auto exp = lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) +
                                  "/lessons/02-coalescing/stride-sweep.toml");
  REQUIRE(exp.has_value());
  REQUIRE(lab::set_param(*exp, "N=4096"));
  exp->sweep[0].values.resize(2);  // strides 1 and 2
  lab::Toolchain tc;
  lab::RunOptions opt;
  opt.mode = lab::SimMode::Timing;
  auto r = lab::Runner(tc, opt).run(*exp);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  auto runs = lab::collect_line_stalls(*exp, *r, {"N=4096"});
  REQUIRE(runs.size() == 1);
  lab::LineStalls g = runs[0];
  CHECK(g.kernels.size() == 2);
  CHECK(g.kernels[1].point == "stride=2");
  g.source = "gpu";
  g.unit = "samples";
  // The second point's GPU mix: the model's, but every sample of line 16 under a reason the
  // model has no state for, so that line disagrees completely.
  for (auto& s : g.kernels[1].by_source_line)
    if (s.line == 16) s.mix = {{"smsp__pcsamp_warps_issue_stalled_misc", lab::mix_total(s.mix)}};
  const std::string dir =
      (std::filesystem::temp_directory_path() / "warplab_531_stalls").string();
  std::filesystem::create_directories(dir);
  REQUIRE(lab::write_line_stalls_file(dir + "/fake.json", {g}));
  auto points = lab::validate_line_stalls({dir + "/fake.json"}, "h100-sxm", WARPLAB_SOURCE_DIR);
  REQUIRE(points.size() == 2);
  REQUIRE_MESSAGE(points[0].agreement.has_value(), points[0].error);
  CHECK(points[0].point == "stride=1");
  CHECK(points[0].agreement->top_agreement == 1.0);
  CHECK(points[0].agreement->distance == doctest::Approx(0.0));
  REQUIRE(points[1].agreement.has_value());
  const lab::KernelLineStalls& k = g.kernels[1];
  const double l16 = double(lab::mix_total(*k.source_line(
      k.by_source_line[0].file, 16)));
  uint64_t on_lines = 0;
  for (const auto& s : k.by_source_line) on_lines += lab::mix_total(s.mix);
  // Line 16 has distance 1 and a wrong top reason; every other line matches exactly.
  CHECK(points[1].agreement->distance == doctest::Approx(l16 / double(on_lines)));
  CHECK(points[1].agreement->top_agreement == doctest::Approx(1 - l16 / double(on_lines)));
  CHECK(lab::format_stall_validation(points).find("STALLS points=2 compared=2") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
}
