// The LaunchBackend implementations behind make_backend() (lab/runner.h).
//
//   sim_backend.cpp   the simulator: functional mode (func::run_functional) and timing mode
//                     (timing::run_timing, which drives the same executor cycle by cycle);
//   gpu_backend.cpp   the real GPU (gpu::Backend), and `both`: the simulator and the GPU in
//                     lockstep, their buffers compared after every launch.
#pragma once

#include <memory>

#include "lab/runner.h"

namespace warplab::lab {

std::unique_ptr<LaunchBackend> make_sim_backend(const RunOptions& options,
                                                const BackendContext& context);
std::unique_ptr<LaunchBackend> make_gpu_backend(const RunOptions& options,
                                                const BackendContext& context);
// `sim` runs first on every launch; then the GPU; then the buffers are compared.
std::unique_ptr<LaunchBackend> make_both_backend(std::unique_ptr<LaunchBackend> sim,
                                                 const RunOptions& options,
                                                 const BackendContext& context);

// Whether `kernel` (or a function it calls) uses an approximate instruction (ex2/lg2/sin/cos/
// tanh/rcp/sqrt/rsqrt .approx, div.approx, div.full): then PTX allows results within an error
// bound instead of one exact answer, and `both` compares with a tolerance.
bool uses_approximate_math(const ptx::Module& module, const ptx::Function& kernel);

}  // namespace warplab::lab
