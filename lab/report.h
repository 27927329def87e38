// Reports: the readable summary `warplab run` prints, and the JSON it writes.
//
// The JSON schema ("warplab.run/1") is documented in lessons/FORMAT.md. Launch objects keep the
// simulator's functional counts at top level and carry `sim` and `gpu` objects that the timing
// model (cycles, time_us, ipc, occupancy, warp_states, memory) and the GPU backend fill.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "lab/runner.h"

namespace warplab::lab {

constexpr const char* kRunSchema = "warplab.run/1";

nlohmann::json launch_json(const LaunchRecord& rec, const ptx::Module* module);
nlohmann::json check_json(const CheckResult& c);
nlohmann::json fault_json(const func::LaunchFault& f);
nlohmann::json experiment_json(const Experiment& exp, const ExperimentResult& result);

// The readable report of a fault (kernel, block, thread, address, PTX line, CUDA file:line).
std::string format_fault(const LaunchRecord& rec);
std::string format_launch(const LaunchRecord& rec);
// The timing model's block of a launch (cycles, occupancy, classes, warp states, memory table).
std::string format_timing(const LaunchRecord& rec);
// The GPU's block: times, the side-by-side table (metric | simulator | GPU | ratio), and the
// comparison of the GPU's buffers with the simulator's.
std::string format_gpu(const LaunchRecord& rec);
std::string format_check(const CheckResult& c, const std::string& experiment_path);
std::string format_sweep_table(const SweepResult& sweep);
// synccheck/racecheck reports of a launch, like compute-sanitizer's (both sides of a race).
std::string format_hazards(const LaunchRecord& rec);
nlohmann::json hazard_json(const func::Hazard& h);
// Everything `warplab run` prints: header, launches, faults, checks, sweep table, verdict
// (PASSED only when checks ran and passed; "DONE (no checks ...)" when nothing was compared).
std::string format_summary(const Experiment& exp, const ExperimentResult& result);
// The same in pieces, for streaming: the header (name, backend, mode, config, GPU), one launch
// (format_launch + fault + hazards) as it finishes, and the rest (launches too unless
// `launches_printed`, skipped launches, checks, sweep table, notes, verdict).
std::string format_head(const Experiment& exp, const ExperimentResult& result);
std::string format_launch_report(const LaunchRecord& rec);
std::string format_tail(const Experiment& exp, const ExperimentResult& result,
                        bool launches_printed);

// "1,234,567"
std::string group_thousands(uint64_t v);

}  // namespace warplab::lab
