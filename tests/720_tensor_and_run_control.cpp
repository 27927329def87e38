// The app's tensor-core drawing data (ui/app/model/tensor_activity.h): mma.sync fragments as the
// PTX ISA lays them out, the tensor pipes' occupancy from issues, and the TMA and mbarrier records
// the units write into a trace (a bulk-copy kernel of lessons/calibration/async_timing.ptx);
// and the run control's command-line flags and its one-line "no GPU" reason (run_control.h).
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "lab/experiment.h"
#include "lab/validate.h"
#include "ui/app/model/measured_links.h"
#include "ui/app/model/reference_curve.h"
#include "ui/app/model/run_control.h"
#include "ui/app/model/tensor_activity.h"
#include "70x_app.h"

using namespace warplab;
using namespace warplab::app;

TEST_CASE("720 fragments: mma.m16n8k16 bf16 cells sit in the lanes the PTX ISA names") {
  MmaLine m;  // m16n8k16 bf16
  m.type = "bf16";
  // A: a0,a1 at (groupID, 2*tid + {0,1}); a2,a3 eight rows down; a4..a7 eight columns right.
  CHECK(fragment_cell(m, FragmentOperand::A, 0, 0).lane == 0);
  CHECK(fragment_cell(m, FragmentOperand::A, 0, 1).element == 1);
  CHECK(fragment_cell(m, FragmentOperand::A, 8, 0).element == 2);
  CHECK(fragment_cell(m, FragmentOperand::A, 0, 8).element == 4);
  CHECK(fragment_cell(m, FragmentOperand::A, 3, 5).lane == 14);  // groupID 3, tid 2
  CHECK(fragment_cell(m, FragmentOperand::A, 15, 15).lane == 31);
  CHECK(fragment_cell(m, FragmentOperand::A, 15, 15).element == 7);
  // B (k x n): b0,b1 at (2*tid + {0,1}, groupID), b2,b3 eight rows down.
  CHECK(fragment_cell(m, FragmentOperand::B, 1, 0).element == 1);
  CHECK(fragment_cell(m, FragmentOperand::B, 8, 0).element == 2);
  CHECK(fragment_cell(m, FragmentOperand::B, 0, 1).lane == 4);
  // C/D: c0,c1 at (groupID, 2*tid + {0,1}), c2,c3 eight rows down.
  CHECK(fragment_cell(m, FragmentOperand::C, 8, 7).lane == 3);
  CHECK(fragment_cell(m, FragmentOperand::C, 8, 7).element == 3);
  // Every element of each tile is held once, each lane holding the same number.
  for (FragmentOperand op : {FragmentOperand::A, FragmentOperand::B, FragmentOperand::C}) {
    std::set<std::pair<int, int>> held;
    int per_lane[32] = {};
    for (int r = 0; r < fragment_rows(m, op); ++r)
      for (int c = 0; c < fragment_cols(m, op); ++c) {
        const FragmentCell f = fragment_cell(m, op, r, c);
        REQUIRE(f.lane >= 0);
        CHECK(held.insert({f.lane, f.element}).second);
        ++per_lane[f.lane];
      }
    for (int l = 0; l < 32; ++l) CHECK(per_lane[l] == fragment_rows(m, op) * fragment_cols(m, op) / 32);
  }
}

TEST_CASE("720 fragments: tf32 m16n8k8 and 8-bit m16n8k32 layouts") {
  MmaLine tf;
  tf.type = "tf32";
  tf.k = 8;
  CHECK(fragment_cell(tf, FragmentOperand::A, 8, 0).element == 1);  // a1: groupID + 8
  CHECK(fragment_cell(tf, FragmentOperand::A, 0, 4).element == 2);  // a2: tid + 4
  CHECK(fragment_cell(tf, FragmentOperand::B, 4, 0).element == 1);  // b1: row tid + 4
  MmaLine s8;
  s8.type = "s8";
  s8.k = 32;
  CHECK(fragment_cell(s8, FragmentOperand::A, 0, 16).element == 8);
  CHECK(fragment_cell(s8, FragmentOperand::A, 8, 3).element == 7);
  CHECK(fragment_cell(s8, FragmentOperand::A, 2, 13).lane == 11);  // groupID 2, tid 3
  CHECK(fragment_cell(s8, FragmentOperand::B, 16, 0).element == 4);
}

TEST_CASE("720 tensor pipes: mma.sync intervals per sub-partition, merged; wgmma holds all four") {
  timing::Trace t;
  t.sub_partitions = 4;
  std::map<int32_t, MmaLine> mma;
  mma[7].interval = 6;
  auto issue = [&](int slot, uint64_t cycle, int line) {
    timing::IssueRecord r;
    r.slot = slot;
    r.cycle = cycle;
    r.ptx_line = line;
    t.issues.push_back(r);
  };
  issue(1, 100, 7);  // sub-partition 1: [100, 106)
  issue(5, 103, 7);  // sub-partition 1 again: [103, 109), merged with the first
  issue(2, 100, 8);  // not an mma
  t.async.push_back({0, -1, timing::AsyncRecord::Kind::Wgmma, 200, 232, 260, 128, 9});
  t.async.push_back({0, 3, timing::AsyncRecord::Kind::TmaLoad, 50, 400, 0, 4096, 10});
  const TensorActivity a = tensor_activity(t, 0, mma);
  CHECK(a.mma_sync_issues == 2);
  REQUIRE(a.pipe_busy[1].size() == 2);
  CHECK(a.pipe_busy[1][0].begin == 100);
  CHECK(a.pipe_busy[1][0].end == 109);
  CHECK(a.occupancy(1, 100, 300) == doctest::Approx((9.0 + 32.0) / 200.0));
  CHECK(a.occupancy(0, 100, 300) == doctest::Approx(32.0 / 200.0));
  CHECK(a.occupancy(2, 100, 300) == doctest::Approx(32.0 / 200.0));
  CHECK(a.tma.size() == 1);
  CHECK(a.tma_bytes_landed(0, 401) == 4096);
  CHECK(a.tma_bytes_landed(0, 400) == 0);
}

TEST_CASE("720 trace: the TMA unit records its bulk copies and the mbarrier the waits they end") {
  const std::string path =
      timing::default_config_dir() + "/../lessons/calibration/async_timing.ptx";
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), path);
  std::stringstream ss;
  ss << f.rdbuf();
  auto m = ptx::parse_module(ss.str(), path);
  REQUIRE(m);
  auto p = func::Program::load(std::move(*m));
  REQUIRE(p);
  auto cfg = timing::load_config("h100-sxm");
  REQUIRE(cfg);
  func::DeviceMemory mem;
  const uint32_t bytes = 4096, copies = 16;
  const uint64_t src = mem.allocate("src", bytes), cyc = mem.allocate("cycles", 8),
                 sink = mem.allocate("sink", 4);
  const ptx::Function* k = p->kernel("k_bulk");
  REQUIRE(k);
  std::vector<uint8_t> params(k->param_bytes);
  const uint64_t args[] = {src, bytes, copies, cyc, sink};
  for (size_t i = 0; i < 5; ++i)
    std::memcpy(params.data() + k->params[i].offset, &args[i], std::min<size_t>(8, k->params[i].size));
  func::LaunchConfig launch{"k_bulk", {1, 1, 1}, {1, 1, 1}, bytes, params};
  timing::TimingOptions o;
  o.registers_per_thread = 32;
  o.trace.enabled = true;
  auto r = timing::run_timing(*p, mem, launch, *cfg, o);
  REQUIRE(r);
  REQUIRE(!r->fault);
  const TensorActivity a = tensor_activity(r->trace, 0, {});
  // reps + 1 copies: the kernel's first is a warm-up.
  REQUIRE(a.tma.size() == copies + 1);
  REQUIRE(a.mbarrier.size() >= copies + 1);
  for (const timing::AsyncRecord& c : a.tma) {
    CHECK(c.kind == timing::AsyncRecord::Kind::TmaLoad);
    CHECK(c.bytes == bytes);
    // The unit's fixed latency and its bytes at its rate at the least (tma.h).
    CHECK(c.end - c.begin > uint64_t(cfg->async.tma_latency));
  }
  // Each copy's last byte completes its mbarrier's phase: the answered wait after it names that
  // cycle, and the warp is not released before it.
  size_t matched = 0;
  for (const timing::AsyncRecord& c : a.tma)
    for (const timing::AsyncRecord& w : a.mbarrier)
      if (w.begin >= c.begin && w.done == c.end) {
        CHECK(w.end >= w.done);
        ++matched;
        break;
      }
  CHECK(matched == copies + 1);
}

TEST_CASE("720 run control: the flags of warplab run, and one line when no GPU opens") {
  CHECK(cli_flags({}) == "");
  CHECK(cli_flags({RunWhere::Both, true, "gto"}) == "--backend both --sampled --sched gto");
  CHECK(cli_flags({RunWhere::Gpu, true, "gto"}) == "--backend gpu");  // no model runs
  CHECK(cli_flags({RunWhere::Sim, false, "lrr"}) == "--sched lrr");
  const std::string dl =
      gpu_absent_line("no CUDA driver library (libcuda.so.1): libcuda.so.1: cannot open shared "
                      "object file: No such file or directory");
  CHECK(dl.find("cannot open shared object") == std::string::npos);
  CHECK(dl.find("no NVIDIA driver") != std::string::npos);
  CHECK(gpu_absent_line("no CUDA device (the driver reports none)").find("sees no GPU") !=
        std::string::npos);
  CHECK(gpu_absent_line("").empty());
  const std::string other = gpu_absent_line("--backend both: something\nsecond line");
  CHECK(other.find('\n') == std::string::npos);
  CHECK(other.find("--backend") == std::string::npos);
}

TEST_CASE("720 measured link use: the committed H100 rows, matched by file and parameter values") {
  const std::string path = std::string(WARPLAB_SOURCE_DIR) + "/validation/data/link-use-h100.tsv";
  std::ifstream f(path);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  auto rows = parse_link_use(ss.str(), path);
  REQUIRE_MESSAGE(rows, (rows ? "" : rows.error().to_string()));
  const std::vector<std::pair<std::string, std::string>> p20 = {
      {"N", "1048576"}, {"block", "256"}, {"stride", "32"}};
  auto m = find_link_use(*rows, "/x/lessons/02-coalescing/stride-sweep.toml", p20);
  REQUIRE(m);
  // Nsight Compute on the H100: the L1<->L2 side (the L2's tag lookups) is the busiest link.
  CHECK(m->busiest() == int(FlowLink::L1ToL2));
  CHECK(m->percent[1] > 70);
  CHECK(m->percent[2] < 10);
  CHECK(!find_link_use(*rows, "lessons/02-coalescing/copy.toml", p20));
  CHECK(!find_link_use(*rows, "lessons/02-coalescing/stride-sweep.toml",
                       {{"N", "1048576"}, {"block", "128"}, {"stride", "32"}}));
  auto bad = parse_link_use("experiment\tset\tlanes_l1\tl1_l2\tl2_dram\tdevice\tdate\nx\tN=a\t1\t2\t3\td\t2026\n", "f.tsv");
  REQUIRE(!bad);
  CHECK(bad.error().to_string().find("f.tsv:2") != std::string::npos);
}

TEST_CASE("720 lesson 6: the H100's nine-kernel and fused groups from the committed data") {
  const std::string root = WARPLAB_SOURCE_DIR;
  auto data = lab::load_measured(root + "/validation/data/h100.json");
  REQUIRE(data);
  auto exp = lab::load_experiment(root + "/lessons/06-operator-fusion/gelu.toml");
  REQUIRE(exp);
  auto at = [&](double n) {
    return measured_groups(*data, root + "/validation", *exp, {{"N", n}, {"block", 256}});
  };
  const auto g20 = at(1048576);
  REQUIRE(g20.size() == 2);
  CHECK(g20[0].group == "nine kernels");
  CHECK(g20[1].group == "fused");
  // validation/data/h100.json, points l6.gelu_unfused.default and l6.gelu_fused.default.
  CHECK(g20[0].time_us / g20[1].time_us == doctest::Approx(65.024 / 7.008).epsilon(0.001));
  CHECK(g20[0].stored_bytes == 1179648.0 * 32);  // writes counted: 9 kernels store 9 arrays
  CHECK(g20[1].stored_bytes == 131072.0 * 32);
  const auto g24 = at(16777216);
  REQUIRE(g24.size() == 2);
  CHECK(g24[0].time_us / g24[1].time_us == doctest::Approx(563.904 / 59.216).epsilon(0.001));
  CHECK(at(65536).empty());  // not measured there
}

TEST_CASE("720 run control: the scheduler choice reaches the model, a bad one is refused") {
  auto exp = test::copy_experiment("N=8192");
  if (!exp) return;
  RunRequest req;
  req.experiment = *exp;
  req.use_gpu = false;
  req.warp_scheduler = "gto";
  const RunSnapshot gto = run_traced(req);
  REQUIRE_MESSAGE(gto.ok(), gto.error);
  REQUIRE(!gto.launches.empty());
  REQUIRE(gto.launches[0].timing);
  CHECK(gto.launches[0].timing->trace.warp_scheduler == "gto");
  CHECK(gto.warp_scheduler == "gto");
  req.warp_scheduler = "";  // the preset's (h100-sxm: lrr)
  const RunSnapshot preset = run_traced(req);
  REQUIRE(preset.ok());
  CHECK(preset.launches[0].timing->trace.warp_scheduler == "lrr");
  req.warp_scheduler = "fifo";
  const RunSnapshot bad = run_traced(req);
  CHECK(bad.error.find("--sched: unknown warp scheduling policy 'fifo'") != std::string::npos);
  // Sampled: the run keeps no trace (a traced launch always runs in full) and says so.
  req.warp_scheduler = "";
  req.sampled = true;
  const RunSnapshot sampled = run_traced(req);
  REQUIRE(sampled.ok());
  CHECK(sampled.sampled);
  CHECK(sampled.launches[0].timing->trace.spans.empty());
}

// "Real GPU only" (the run control's third choice, `--backend gpu`): the app's own run path
// (run_traced) with no model. Without a GPU the run fails at once with one line saying why (no raw
// dlopen text); with one (the device host: WARPLAB_APP_TEST_ROOT names the tree the lesson is read
// from), the copy runs on the GPU alone: the GPU's timings per launch, no timing model, no trace,
// and the lesson's bit-exact check holds on the GPU's output.
TEST_CASE("720 run control: real GPU only runs the GPU alone, or says in one line why not") {
  if (!lab::Toolchain().has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return;
  }
  const char* root_env = std::getenv("WARPLAB_APP_TEST_ROOT");
  const std::string root = root_env ? root_env : WARPLAB_SOURCE_DIR;
  auto exp = lab::load_experiment(root + "/lessons/02-coalescing/copy.toml");
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, "N=65536"));
  RunRequest req;
  req.experiment = *exp;
  req.use_gpu = true;
  req.gpu_only = true;
  const RunSnapshot snap = run_traced(req);
  if (!snap.ok()) {
    MESSAGE("no GPU here: " << snap.error);
    CHECK(snap.error.rfind("real GPU only: ", 0) == 0);
    CHECK(snap.error.find('\n') == std::string::npos);
    CHECK(snap.error.find("cannot open shared object") == std::string::npos);
    CHECK(snap.launches.empty());
    return;
  }
  MESSAGE("GPU: " << snap.gpu_device << ", backend " << snap.backend);
  CHECK(snap.backend == "gpu");
  CHECK(!snap.gpu_device.empty());
  REQUIRE(snap.launches.size() == 1);
  const LaunchView& l = snap.launches[0];
  CHECK(!l.timing);  // no model ran
  REQUIRE(l.gpu);
  REQUIRE(l.gpu->time_us);
  MESSAGE("GPU time " << *l.gpu->time_us << " us over " << l.gpu->repeats << " launches"
                      << (l.gpu->problem.empty() ? "" : "; problem: " + l.gpu->problem));
  CHECK(*l.gpu->time_us > 0);
  CHECK(l.gpu->problem.empty());
  CHECK(!snap.checks.empty());
  for (const lab::CheckResult& c : snap.checks) CHECK_MESSAGE(c.passed, c.buffer);
  CHECK(!snap.buffers.empty());
  for (const BufferView& b : snap.buffers) CHECK(b.count == 65536);
}
