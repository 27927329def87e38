// `warplab bench`: simulator throughput on fixed workloads, as a table of workloads x modes.
//
// Each row runs one experiment file from bench/ (compiled with NVRTC, or the checked-in .ptx
// beside it when NVRTC is absent) with fixed parameter values, single-threaded, and reports warp
// instructions simulated per second of wall time measured with steady_clock around the
// simulation only (not compiling, parsing, buffer set-up or checks). The timing model adds its
// rows (mode = timing) to the same table.
#pragma once

#include <string>
#include <vector>

#include "lab/compile.h"
#include "lab/runner.h"

namespace warplab::lab {

struct BenchWorkload {
  std::string name;              // "vec_add_2^24"
  std::string experiment;        // file under bench/
  std::vector<std::string> set;  // parameter overrides, as for --set
  SimMode mode = SimMode::Functional;
};

// The built-in table.
std::vector<BenchWorkload> bench_workloads();

struct BenchResult {
  BenchWorkload workload;
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  double seconds = 0;  // simulation wall time
  double warp_inst_per_s() const { return seconds > 0 ? warp_instructions / seconds : 0; }
  bool used_checked_in_ptx = false;
};

// Directory holding the bench experiments: bench/ beside the executable or in an installed
// prefix's share/warplab (lab/install_dirs.h), else the source tree's.
std::string bench_dir();

Expected<BenchResult> run_bench(const BenchWorkload& w, const Toolchain& toolchain);

// "BENCH mode=functional workload=NAME warp_inst_per_s=NUMBER"
std::string bench_line(const BenchResult& r);

}  // namespace warplab::lab
