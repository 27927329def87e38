// Shared by the parallel loop's identity tests (tests/352, tests/354): the options of a launch run
// on N threads with no timed trials, and the JSON two runs of it must agree on.
#pragma once

#include <string>

#include "lab/metrics_json.h"
#include "sim/timing/gpu_model.h"

namespace warplab::timing_tests {

inline timing::TimingOptions parallel_options(int threads) {
  timing::TimingOptions o;
  o.threads = threads;
  o.adapt_threads = false;  // every cycle with enough SMs due on the threads
  o.registers_per_thread = 32;
  return o;
}

// timing_json with the fault's message and the instruction counts.
inline std::string identity_json(const timing::TimingResult& r, const timing::GpuConfig& config,
                                 const ptx::Module& module) {
  nlohmann::json j = lab::timing_json(r, config, module);
  j["fault"] = r.fault ? r.fault->message : "";
  j["stats"] = {r.stats.warp_instructions, r.stats.thread_instructions};
  return j.dump();
}

}  // namespace warplab::timing_tests
