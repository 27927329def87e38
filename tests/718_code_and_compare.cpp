// The app's code view numbers (ui/app/model/code_profile.h), the memory flow's link use
// (memory_flow.h link_use) and the A/B difference line (run_compare.h), on hand-built inputs
// whose answers are worked out here.
#include <doctest/doctest.h>

#include "ui/app/model/code_profile.h"
#include "ui/app/model/memory_flow.h"
#include "ui/app/model/run_compare.h"

using namespace warplab;
using namespace warplab::app;

TEST_CASE("718 link use: each link against its modelled capacity, the busiest named") {
  LinkCapacities caps;
  caps.tag_lines_per_cycle = 1;      // one 128-byte line looked up per cycle
  caps.bytes_per_cycle = {128, 3072, 1600};  // L2: 96 slices x 32 B; DRAM
  FlowRates r;
  r.begin = 1000;
  r.end = 2000;  // 1000 cycles
  r.tag_lines = 950;               // 950 of 1000 lookups: 95%
  r.bytes = {30400, 7680, 16000};  // L2 share with 4 SMs: 768 B/cycle -> 1%; DRAM 400 -> 4%
  const LinkUse u = link_use(r, caps, 4);
  CHECK(u.fraction[0] == doctest::Approx(0.95));
  CHECK(u.fraction[1] == doctest::Approx(0.01));
  CHECK(u.fraction[2] == doctest::Approx(0.04));
  CHECK(u.busiest == 0);
  // One SM alone has the whole L2 and DRAM: the same bytes are 4x less of it.
  CHECK(link_use(r, caps, 1).fraction[2] == doctest::Approx(0.01));
  // An empty window uses nothing.
  FlowRates empty;
  CHECK(link_use(empty, caps, 4).fraction[1] == 0);
}

TEST_CASE("718 link capacities from a preset") {
  timing::GpuConfig c;  // the defaults are the H100 preset's
  c.l1.tag_lookups_per_cycle = 1;
  c.l1.line_bytes = 128;
  c.l2.slices = 96;
  c.l2.sectors_per_cycle_per_slice = 1.0;
  const LinkCapacities k = link_capacities(c);
  CHECK(k.tag_lines_per_cycle == 1);
  CHECK(k.bytes_per_cycle[0] == 128);
  CHECK(k.bytes_per_cycle[1] == 96 * 32);
  CHECK(k.bytes_per_cycle[2] == doctest::Approx(c.peak_dram_bytes_per_cycle()));
}

TEST_CASE("718 A/B difference line") {
  // The example of issue 27: stride 1 pinned (A), stride 32 shown (B).
  RunFigures a{10, 4, {0.1, 0.31, 0.2}, 1, true}, b{32, 32, {0.9, 0.96, 0.3}, 1, true};
  CHECK(difference_line(a, b) == "4 -> 32 sectors/request; L1<->L2 31% -> 96% busy; 3.2x time");
  // B's busiest link is named, whatever A's was; fractional figures keep one decimal.
  RunFigures c{5, 4.5, {0.5, 0.2, 0.1}, 0, true};
  CHECK(difference_line(b, c) == "32 -> 4.5 sectors/request; lanes->L1 90% -> 50% busy; 0.2x time");
  // The same sectors per request is said once.
  RunFigures d = a;
  d.time_us = 20;
  CHECK(difference_line(a, d) == "4 sectors/request in both; L1<->L2 31% -> 31% busy; 2.0x time");
  // With the kernels' own times: their ratio first, the one with the launch overhead beside it
  // (stride 1 against stride 32 at N = 65536: 0.84 and 2.02 us of kernel, 4 us of launch each).
  a.kernel_time_us = 0.84;
  a.time_us = 4.84;
  b.kernel_time_us = 2.02;
  b.time_us = 6.02;
  CHECK(difference_line(a, b) == "4 -> 32 sectors/request; L1<->L2 31% -> 96% busy; 2.4x kernel "
                                 "time (1.2x with launch overhead)");
  CHECK(difference_line(a, b, false) == "4 -> 32 sectors/request; L1<->L2 31% -> 96% busy");
  // Requests faster than the link serves them (the model books them when made): "100%+".
  b.link_busy[1] = 1.09;
  CHECK(difference_line(a, b, false) == "4 -> 32 sectors/request; L1<->L2 31% -> 100%+ busy");
  CHECK(link_use_text(1.004) == "100%");
  CHECK(link_use_text(0.951) == "95%");
  // A run without timing: nothing to compare.
  CHECK(difference_line(a, RunFigures{}) == "nothing to compare: one of the runs has no timing");
}

TEST_CASE("718 code profile: the stall mix, largest first, selected left out") {
  LineProfile p;
  p.states[static_cast<int>(timing::WarpState::Selected)] = 1000;
  p.states[static_cast<int>(timing::WarpState::LongScoreboard)] = 600;
  p.states[static_cast<int>(timing::WarpState::LgThrottle)] = 300;
  p.states[static_cast<int>(timing::WarpState::Wait)] = 95;
  p.states[static_cast<int>(timing::WarpState::Barrier)] = 5;  // 0.5%: dropped
  CHECK(p.stall_cycles() == 1000);
  const auto mix = stall_mix(p, 3);
  REQUIRE(mix.size() == 3);
  CHECK(mix[0].first == timing::WarpState::LongScoreboard);
  CHECK(mix[0].second == doctest::Approx(0.6));
  CHECK(mix[1].first == timing::WarpState::LgThrottle);
  CHECK(mix[2].first == timing::WarpState::Wait);
  CHECK(stall_mix(p, 10).size() == 3);
  p.requests = 4;
  p.sectors = 128;
  CHECK(p.sectors_per_request() == 32);
}

#include "70x_app.h"
#include "ui/app/model/sweep.h"

TEST_CASE("718 code profile of lesson 2's coalesced copy: 4 sectors per request") {
  auto e = test::copy_experiment("N=8192");
  if (!e) return;
  const RunSnapshot run = test::run_sim_traced(*e);
  REQUIRE(run.ok());
  const CodeProfile p = code_profile(run);
  // 32 lanes x 4 consecutive bytes = 128 bytes = four 32-byte sectors, load and store alike.
  int memory_lines = 0;
  for (const auto& [line, lp] : p.by_ptx)
    if (lp.requests > 0) {
      ++memory_lines;
      CHECK(lp.sectors_per_request() == 4);
      CHECK(lp.warp_instructions > 0);
    }
  CHECK(memory_lines == 2);  // ld.global and st.global
  CHECK(!p.by_src.empty());
  CHECK(!run.schedule.empty());  // the preset's rule and the kernel's line at least
  // Without a toolkit's cuobjdump the SASS pane says why; with one it lists the kernel.
  CHECK((!run.sass.lines.empty() || run.sass.note.rfind("no SASS", 0) == 0));
  // The sweep chart's metrics of the same launch: 4 sectors per request; useful GB/s is the
  // lanes' 2 x 8192 x 4 bytes over the kernel's time (every SM runs the copy alike).
  const LaunchView& l = run.launches.at(0);
  CHECK(launch_metric(l, SweepMetric::SectorsPerRequest, false).value() == 4);
  const double gbps = launch_metric(l, SweepMetric::UsefulGbps, false).value();
  CHECK(gbps == doctest::Approx(2.0 * 8192 * 4 / (l.timing->kernel_time_us * 1e3)).epsilon(0.01));
  CHECK(launch_metric(l, SweepMetric::Time, false).value() == l.timing->time_us);
  CHECK(!launch_metric(l, SweepMetric::Time, true));  // no GPU ran
  CHECK(sweep_metric_index("sectors") == 1);
  CHECK(sweep_metric_index("bogus") == -1);
}

#include <filesystem>

#include "ui/app/model/gpu_line_stalls.h"

TEST_CASE("718 the H100's per-line stalls for the run shown, from a data file") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warplab-718-stalls";
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunSnapshot run;
  run.experiment_path = "/somewhere/lessons/02-coalescing/copy.toml";
  run.source_path = "/somewhere/lessons/02-coalescing/coalescing.cu";
  run.params = {{"N", "1048576"}, {"stride", "32"}};
  run.launches.resize(2);
  run.launches[0].entry = run.launches[0].kernel = "copy";
  run.launches[1].entry = run.launches[1].kernel = "copy";
  CHECK(!find_gpu_line_stalls(dir.string(), run).note.empty());  // nothing there yet

  lab::LineStalls gpu;
  gpu.source = "gpu";
  gpu.unit = "samples";
  gpu.device = "NVIDIA H100 80GB HBM3";
  gpu.experiment = "lessons/02-coalescing/copy.toml";
  gpu.set = {"stride=32", "N=1048576.0"};
  for (int launch = 0; launch < 2; ++launch) {
    lab::KernelLineStalls k;
    k.kernel = "copy";
    k.launch = launch;
    k.total = {{"stall_long_scoreboard", 90}, {"selected", 10}};
    k.by_ptx_line = {{50, {{"stall_long_scoreboard", 80}, {"selected", 5}}},
                     {55, {{"stall_long_scoreboard", 10}, {"selected", 5}}}};
    k.by_source_line = {{"coalescing.cu", 16, {{"stall_long_scoreboard", 90}, {"selected", 10}}},
                        {"other.cu", 3, {{"stall_wait", 7}}}};
    gpu.kernels.push_back(k);
  }
  lab::LineStalls sim = gpu;  // the model's side in the same file is not the GPU's
  sim.source = "sim";
  REQUIRE(lab::write_line_stalls_file((dir / "h100.json").string(), {sim, gpu}));
  const GpuLineStalls g = find_gpu_line_stalls(dir.string(), run);
  CHECK(g.note.empty());
  CHECK(g.file == "h100.json");
  CHECK(g.total == 200);  // both launches
  CHECK(g.by_ptx.at(50).at("stall_long_scoreboard") == 160);
  CHECK(g.by_src.at(16).at("selected") == 20);
  CHECK(g.by_src.count(3) == 0);  // another file's line 3
  CHECK(g.max_line_ptx == 170);
  const auto shares = gpu_stall_shares(g.by_ptx.at(50));
  REQUIRE(shares.size() == 1);  // selected is not a stall
  CHECK(shares[0].second == 1.0);
  // Another stride's run does not show these samples.
  run.params[1].second = "1";
  CHECK(find_gpu_line_stalls(dir.string(), run).total == 0);
  run.params[1].second = "32";
  // Another experiment finds nothing.
  run.experiment_path = "stride-sweep.toml";
  CHECK(find_gpu_line_stalls(dir.string(), run).total == 0);
  fs::remove_all(dir);
}

// A sweep's data file holds one kernel per point and was measured at the experiment's defaults
// (no --set): each run sees the point of its own stride, and none at another N.
TEST_CASE("718 the H100's per-line stalls of a sweep: the run's own point, at its own size") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warplab-718-sweep-stalls";
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunSnapshot run;
  run.experiment_path =
      std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/stride-sweep.toml";
  run.source_path = std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/coalescing.cu";
  run.params = {{"N", "1048576"}, {"block", "256"}, {"stride", "32"}};
  run.launches.resize(1);
  run.launches[0].entry = run.launches[0].kernel = "strided_copy";

  lab::LineStalls gpu;
  gpu.source = "gpu";
  gpu.unit = "samples";
  gpu.device = "NVIDIA H100 80GB HBM3";
  gpu.experiment = "lessons/02-coalescing/stride-sweep.toml";
  for (int stride : {1, 32}) {
    lab::KernelLineStalls k;
    k.kernel = "strided_copy";
    k.point = "stride=" + std::to_string(stride);
    k.total = {{"stall_long_scoreboard", uint64_t(stride) * 10}};
    k.by_ptx_line = {{30, {{"stall_long_scoreboard", uint64_t(stride) * 10}}}};
    gpu.kernels.push_back(k);
  }
  REQUIRE(lab::write_line_stalls_file((dir / "l02.json").string(), {gpu}));
  GpuLineStalls g = find_gpu_line_stalls(dir.string(), run);
  CHECK(g.point == "stride=32");
  CHECK(g.total == 320);  // stride 32's samples, not stride 1's (the first in the file)
  run.params[2].second = "1";
  g = find_gpu_line_stalls(dir.string(), run);
  CHECK(g.point == "stride=1");
  CHECK(g.total == 10);
  // N = 65536: measured only at the default N (2^20), so nothing, and the note says where.
  run.params[0].second = "65536";
  g = find_gpu_line_stalls(dir.string(), run);
  CHECK(g.total == 0);
  CHECK(g.note.find("N=1048576") != std::string::npos);
  CHECK(g.note.find("stride=") == std::string::npos);  // this run's stride was measured
  // A second measurement at N = 65536 (--set N=65536): found for that run.
  gpu.set = {"N=65536"};
  gpu.kernels[1].total = {{"stall_long_scoreboard", 7}};
  REQUIRE(lab::write_line_stalls_file((dir / "l02-n65536.json").string(), {gpu}));
  run.params[2].second = "32";
  g = find_gpu_line_stalls(dir.string(), run);
  CHECK(g.file == "l02-n65536.json");
  CHECK(g.total == 7);
  CHECK(g.gpu == "H100");
  // An H200's measurement at the same values (its file sorts first): the H100's is preferred, and
  // the H200's is shown, named so, where it is the only one.
  lab::LineStalls h200 = gpu;
  h200.device = "NVIDIA H200";
  h200.kernels[1].total = {{"stall_long_scoreboard", 5}};
  REQUIRE(lab::write_line_stalls_file((dir / "a-h200.json").string(), {h200}));
  CHECK(find_gpu_line_stalls(dir.string(), run).total == 7);
  fs::remove(dir / "l02-n65536.json");
  g = find_gpu_line_stalls(dir.string(), run);
  CHECK(g.total == 5);
  CHECK(g.gpu == "H200");
  CHECK(gpu_reason_label("smsp__pcsamp_warps_issue_stalled_dispatch_stall") ==
        "dispatch_stall (GPU only)");
  CHECK(gpu_reason_label("stall_wait") == "stall_wait");
  fs::remove_all(dir);
}

// The L1<->L2 link in the model's own terms (memory_flow.h L2Costs): slice time in sector times,
// loads on the read path, stores on the write path, a store to part of a sector a
// read-modify-write (request 0.67, partial 1.51 a sector and 1.75 a request, whole 1.5 a sector:
// the values measured with l2.rw_share 0.44, configs/h100-sxm.toml).
TEST_CASE("718 L2 slice time: requests, partial stores, read and write paths") {
  timing::Trace t;
  const L2Costs costs{0.67, 1.51, 1.5, 1.75};
  auto add = [&](timing::AccessRecord::Kind kind, int lines, auto&& line_of) {
    timing::AccessRecord a;
    a.kind = kind;
    a.exec_mask = ~0u;
    a.access_bytes = 4;
    a.line_begin = uint32_t(t.access_lines.size());
    a.line_count = uint32_t(lines);
    for (int k = 0; k < lines; ++k) t.access_lines.push_back(line_of(k, a));
    return a;
  };
  using Kind = timing::AccessRecord::Kind;
  using Src = timing::SectorSource;
  // Stride 32 load: 32 lines of one sector; 30 missed the L1 (from the L2 or DRAM), 2 hit.
  const timing::AccessRecord load = add(Kind::GlobalLoad, 32, [](int k, timing::AccessRecord&) {
    timing::AccessLine l;
    l.lane_mask = 1u << k;
    l.sector_mask = 1;
    l.sources = uint8_t(k < 2 ? Src::L1 : k < 20 ? Src::L2 : Src::Dram);
    return l;
  });
  auto slice = l2_slice_time(t, load, costs);
  CHECK(slice[0] == doctest::Approx(30 * 1.67));
  CHECK(slice[1] == 0);
  // Stride 32 store: each lane writes 4 of a sector's 32 bytes: 32 read-modify-writes.
  const timing::AccessRecord partial = add(Kind::GlobalStore, 32, [](int k, timing::AccessRecord&) {
    timing::AccessLine l;
    l.lane_mask = 1u << k;
    l.sector_mask = 1;
    return l;
  });
  slice = l2_slice_time(t, partial, costs);
  CHECK(slice[0] == 0);
  CHECK(slice[1] == doctest::Approx(32 * (1.51 + 1.75)));
  // Without partial_request_sectors (negative): request_sectors x partial_write_sectors.
  CHECK(l2_slice_time(t, partial, L2Costs{0.67, 2.0})[1] == doctest::Approx(32 * (2.0 + 0.67 * 2.0)));
  // Stride 1 store: one line, lane L in sector L / 8, every sector whole: 4 sectors, one request.
  const timing::AccessRecord whole = add(Kind::GlobalStore, 1, [](int, timing::AccessRecord& a) {
    timing::AccessLine l;
    l.lane_mask = ~0u;
    l.sector_mask = 0xf;
    for (int lane = 0; lane < 32; ++lane) a.lane_sectors |= uint64_t(lane / 8) << (2 * lane);
    return l;
  });
  CHECK(l2_slice_time(t, whole, costs)[1] == doctest::Approx(4 * 1.5 + 0.67));
  // Without costs (a trace drawn without its preset): sectors only.
  CHECK(l2_slice_time(t, partial, L2Costs{})[1] == doctest::Approx(32));
  CHECK(l2_slice_time(t, load, L2Costs{})[0] == doctest::Approx(30));
}

TEST_CASE("718 link use: L1<->L2 as the busier slice path; the launch's steady state") {
  LinkCapacities caps;
  caps.tag_lines_per_cycle = 1;
  caps.bytes_per_cycle = {128, 3072, 1600};
  caps.l2_sector_times_per_cycle = 96;  // 96 slices, a sector time per cycle on each path
  FlowRates r;
  r.begin = 0;
  r.end = 1000;
  r.l2_read_time = 500;
  r.l2_write_time = 900;  // of the traced SM's 1000 (96 x 1000 / 96 SMs): 90%
  r.bytes[1] = 3072;      // the bytes no longer decide
  LinkUse u = link_use(r, caps, 96);
  CHECK(u.fraction[1] == doctest::Approx(0.9));
  CHECK(u.l2_write_path);
  CHECK(u.busiest == 1);
  r.l2_read_time = 950;
  u = link_use(r, caps, 96);
  CHECK(u.fraction[1] == doctest::Approx(0.95));
  CHECK_FALSE(u.l2_write_path);
  CHECK_FALSE(u.gpu_wide);
  // With counter samples in the window: every SM's L2 sectors at the traced SM's slice time per
  // sector (950 / 500 = 1.9 on its busier path), DRAM's bytes against the whole GPU's peak.
  r.l2_sectors = 500;
  r.gpu_begin = 0;
  r.gpu_end = 1000;
  r.gpu_l2_sectors = 40000;   // 76,000 of the slices' 96,000 sector times
  r.gpu_dram_bytes = 800000;  // of 1,600,000
  u = link_use(r, caps, 96);
  CHECK(u.gpu_wide);
  CHECK(u.fraction[1] == doctest::Approx(0.79166).epsilon(1e-4));
  CHECK(u.fraction[2] == doctest::Approx(0.5));
  // Steady state: from the first block's end to the last block's dispatch.
  timing::Trace t;
  FlowIndex ix;
  ix.first_cycle = 5;
  ix.last_cycle = 299;
  t.blocks = {{0, 8, 0, 0, 100}, {1, 8, 1, 0, 120}, {0, 8, 2, 100, 210}, {1, 8, 3, 150, 300}};
  SteadyWindow w = steady_window(t, ix);
  CHECK(w.steady);
  CHECK(w.begin == 100);
  CHECK(w.end == 150);
  // One wave (every block dispatched before any ends): the whole launch stands for it.
  t.blocks = {{0, 8, 0, 0, 100}, {1, 8, 1, 10, 120}};
  w = steady_window(t, ix);
  CHECK_FALSE(w.steady);
  CHECK(w.begin == 5);
  CHECK(w.end == 300);
}
