// The `warplab` command's subcommands. Each registers its options on the CLI11 app and returns
// the process exit status when run:
//   0  everything ran and every check passed
//   1  a check failed or a kernel faulted (the run itself completed; outputs are written)
//   2  bad input (unreadable or invalid experiment, compile error, bad option); nothing ran
// Only this directory prints; the library returns warplab::Error values.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "sim/common/error.h"

namespace warplab::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

// Prints "warplab: <file:line: message>" on stderr and returns kExitBadInput.
int report_error(const Error& e);

// --threads N: the timing model's host threads per launch (sim/timing/parallel_loop.h; the
// results are the same for any N). Unset or 0: every hardware thread.
void add_threads_option(CLI::App* sub, int& threads);
int resolve_threads(int threads);  // 0 -> std::thread::hardware_concurrency() (at least 1)
// --sampled (timing mode: sampled simulation, sim/timing/sampling.h).
void add_sampled_option(CLI::App* sub, bool& sampled);
// The progress line's figures for a running timing launch: "cycle 1,234,567, 40% of blocks
// done, about 12 s left" (the estimate from the blocks done so far); in a stage that simulates
// no cycles (TimingProgress::phase), "functional pass: 40% of blocks done, about 12 s left".
struct TimingProgressView {
  uint64_t cycle = 0, blocks_done = 0, blocks_total = 0;
  double seconds = 0;
  const char* phase = nullptr;
};
std::string format_timing_progress(const TimingProgressView& p);

// A registered subcommand and what to do when it was chosen (returns the exit status).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_run_command(CLI::App& app);
Command add_ptx_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_configs_command(CLI::App& app);
Command add_lessons_command(CLI::App& app);  // cmd_lesson.cpp
Command add_lesson_command(CLI::App& app);   // cmd_lesson.cpp
Command add_grade_command(CLI::App& app);    // cmd_grade.cpp
Command add_validate_command(CLI::App& app);
Command add_compare_command(CLI::App& app);  // cmd_compare.cpp

}  // namespace warplab::cli
