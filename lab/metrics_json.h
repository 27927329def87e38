// The figures of one launch as JSON: the timing model's (`sim` object) and the real GPU's (`gpu`
// object), and the rows that put them side by side.
//
// Both objects carry a `counters` table under the same keys (gpu/counters.h counter_specs():
// elapsed_cycles, warp_instructions, global_load_requests, ..., achieved_occupancy_pct), so a
// report pairs them by key; every key means what the Nsight Compute metric beside it in
// counter_specs() means. The schema is documented in lessons/FORMAT.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpu/backend.h"
#include "gpu/compare.h"
#include "sim/timing/gpu_model.h"

namespace warplab::lab {

// The timing model's result: mode, config, cycles, time_us, ipc, occupancy, instructions by class,
// warp_states (total, by_ptx_line, by_source_line), memory, counters, metrics (Nsight names).
nlohmann::json timing_json(const timing::TimingResult& r, const timing::GpuConfig& config,
                           const ptx::Module& module);

// The GPU's result: time_us (median), min/max/mean, samples, registers, counters.
nlohmann::json gpu_json(const gpu::GpuLaunchResult& r, const gpu::TimingOptions& timing);

// One buffer's comparison (buffer, passed, tolerance, mismatches with index and both values).
nlohmann::json compare_json(const std::string& buffer, const gpu::CompareResult& c,
                            const gpu::Tolerance& tol);

// One row of the side-by-side table: simulator, GPU, and sim/GPU.
struct SideBySideRow {
  std::string metric, unit;
  std::optional<double> sim, gpu;
};
// The rows for a launch record's `sim` and `gpu` objects (and the functional warp instruction
// count when the simulator ran in functional mode).
std::vector<SideBySideRow> side_by_side_rows(const nlohmann::json& sim, const nlohmann::json& gpu,
                                             std::optional<uint64_t> warp_instructions);

}  // namespace warplab::lab
