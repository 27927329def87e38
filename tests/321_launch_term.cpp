// The launch term (issue 24): what a launch costs beyond the SMs' cycles. An empty kernel's
// cycles are the block dispatch alone (block_launch_latency, then one block every
// block_dispatch_interval cycles GPU-wide), its event time those cycles plus launch_overhead_us,
// exactly; and the preset's launch_overhead_us is the H100 measurement committed beside the
// microbenchmark (scripts/microbench/h100-launch-cold-2026-11-27.tsv: the median of the empty
// kernel's rows, event time minus the model's kernel time, to 0.1 us).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "31x_timing.h"
#include "sim/func/executor.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;
using namespace warplab::timing_tests;

namespace {

constexpr const char* kEmpty = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry empty()
{
  ret;
}
)";

}  // namespace

TEST_CASE("321 an empty kernel's time is its block dispatch plus the launch term, exactly") {
  auto prog = load(kEmpty);
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  for (uint32_t blocks : {1u, 2u, 133u, 4224u}) {
    INFO("blocks " << blocks);
    func::DeviceMemory mem;
    func::LaunchConfig launch{"empty", {blocks, 1, 1}, {32, 1, 1}, 0, {}};
    auto r = run_timing(*prog, mem, launch, *cfg);
    REQUIRE(r);
    // The last block is dispatched ceil((blocks - 1) * interval) cycles after the first, and
    // issues its one instruction block_launch_latency cycles later.
    const uint64_t dispatch = uint64_t(std::ceil((blocks - 1) * cfg->core.block_dispatch_interval));
    CHECK(r->cycles == cfg->core.block_launch_latency + dispatch);
    CHECK(r->kernel_time_us == double(r->cycles) / cfg->core.clock_mhz);
    CHECK(r->time_us == r->kernel_time_us + cfg->core.launch_overhead_us);
  }
}

TEST_CASE("321 h100-sxm's launch term is the committed H100 measurement") {
  const std::string path =
      default_config_dir() + "/../scripts/microbench/h100-launch-cold-2026-11-27.tsv";
  std::ifstream f(path);
  REQUIRE_MESSAGE(f, "cannot read " << path);
  std::vector<double> launch_us;
  std::string line;
  std::vector<std::string> head;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (head.empty()) {
      head = cols;
      continue;
    }
    REQUIRE(cols.size() == head.size());
    const auto col = [&](const char* name) {
      return cols[size_t(std::find(head.begin(), head.end(), name) - head.begin())];
    };
    if (col("kernel") == "empty") launch_us.push_back(std::stod(col("launch_us")));
  }
  REQUIRE(launch_us.size() == 70);  // 14 grid sizes x 5 block sizes
  std::sort(launch_us.begin(), launch_us.end());
  const double median = (launch_us[34] + launch_us[35]) / 2;
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  CHECK(cfg->core.launch_overhead_us == doctest::Approx(std::round(median * 10) / 10));
  // Flat across the grid: no row more than 0.6 us below it (the 1024-thread rows rise to 4.4 us
  // at 128 waves: those blocks dispatch more slowly than the model's interval).
  CHECK(launch_us.front() > median - 0.6);
}
