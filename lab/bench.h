// `warplab bench`: simulator throughput on fixed workloads, as a table of workloads x modes.
//
// Each row runs one experiment file from bench/ (compiled with NVRTC, or the checked-in .ptx
// beside it when NVRTC is absent) with fixed parameter values, and reports warp instructions
// simulated per second of wall time measured with steady_clock around the simulation only (not
// compiling, parsing, buffer set-up or checks). The timing model adds its rows (mode = timing)
// to the same table, on `threads` host threads per launch (one by default; `warplab bench
// --threads N` runs each on one and on N threads and compares their cycles).
#pragma once

#include <string>
#include <vector>

#include "lab/compile.h"
#include "lab/runner.h"
#include "sim/timing/loop_profile.h"

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
  int threads = 1;      // timing mode: host threads per launch
  uint64_t cycles = 0;  // timing mode: simulated cycles, summed over launches
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  double seconds = 0;  // simulation wall time
  double warp_inst_per_s() const { return seconds > 0 ? warp_instructions / seconds : 0; }
  bool used_checked_in_ptx = false;
  // How the host ran it, summed over launches (timing::TimingResult: parallel_cycles ...).
  uint64_t parallel_cycles = 0, parallel_sm_ticks = 0, turn_sm_ticks = 0;
  uint64_t held_l2_reads = 0, turn_l2_reads = 0, held_l2_writes = 0, turn_l2_writes = 0;
  timing::LoopProfile loop;  // `profile`: where the loop's host time went, summed over launches
};

// Directory holding the bench experiments: bench/ beside the executable or in an installed
// prefix's share/warplab (lab/install_dirs.h), else the source tree's.
std::string bench_dir();

// `threads`: the timing model's host threads per launch (timing workloads; 0 = all cores).
// `adapt`: RunOptions::adapt_threads; `profile`: RunOptions::profile_loop.
Expected<BenchResult> run_bench(const BenchWorkload& w, const Toolchain& toolchain,
                                int threads = 1, bool adapt = true, bool profile = false);

// "BENCH mode=functional workload=NAME warp_inst_per_s=NUMBER"; timing workloads also name
// their threads: "BENCH mode=timing workload=NAME threads=N warp_inst_per_s=NUMBER".
std::string bench_line(const BenchResult& r);
// "SPEEDUP mode=timing workload=NAME threads=N over_1_thread=X same_cycles=yes": `many` against
// `one` (the same workload on one thread, in the same run).
std::string speedup_line(const BenchResult& many, const BenchResult& one);
// "# turns: parallel_cycles=N sm_ticks=N turn_ticks=N l2_reads_held=N l2_reads_in_turn=N
// l2_writes_held=N l2_writes_in_turn=N": how often the parallel loop's SMs took their turn.
std::string turns_line(const BenchResult& r);
// "# loop: ..." (profile): where the loop's host time went, in milliseconds, and per cycle of
// the pool in microseconds (sim/timing/loop_profile.h names each).
std::string loop_line(const BenchResult& r);

}  // namespace warplab::lab
