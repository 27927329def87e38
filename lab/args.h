// Binding a launch to its kernel: finding the PTX entry, type-checking the arguments against the
// kernel's PTX signature, and laying out the parameter block the way the CUDA driver does.
//
// A kernel's parameters live in a small constant buffer (cmem[0] on the real GPU; the .param space
// in PTX). The driver copies each argument to its parameter's offset (ptx::Param::offset), with the
// parameter's own size: pointers are 8 bytes (.u64), `int n` is 4 bytes (.u32/.s32) and so on.
// Passing the wrong kind silently corrupts a real launch; here it is an error naming file:line:
//   - a buffer (a 64-bit device pointer) may only go to a 64-bit integer parameter;
//   - a scalar goes to a parameter of any scalar type: integers must fit the type's range, floats
//     are rounded to f32/f16, a float value to an integer parameter is an error;
//   - the argument count must equal the parameter count.
// Aggregates passed by value (.b8 arrays: structs) are not supported yet.
#pragma once

#include <string>
#include <vector>

#include "lab/experiment.h"
#include "sim/func/launch.h"
#include "sim/ptx/ir.h"

namespace warplab::lab {

// The entry `name` refers to: the exact PTX name, or a C++ kernel's unmangled name
// ("vec_add" finds "_Z7vec_addPKfS0_Pfi"). Ambiguous or unknown names are errors listing the
// kernels of the module.
Expected<const ptx::Function*> find_kernel(const ptx::Module& module, const std::string& name);
// The C++ name of a mangled entry ("_Z7vec_addPKfS0_Pfi" -> "vec_add", "ns::k" for nested names);
// the input itself when it is not a mangled name.
std::string demangled_base_name(const std::string& entry);

struct BoundLaunch {
  size_t index = 0;  // in Experiment::launches
  const ptx::Function* kernel = nullptr;
  func::LaunchConfig config;  // grid, block, dynamic shared, params (sim addresses)
  int64_t repeat = 1;
  // Parameters that hold a buffer's device address: (byte offset in config.params, buffer index).
  // Other backends (the real GPU) rewrite these with their own addresses.
  std::vector<std::pair<uint64_t, int>> pointer_params;
  std::vector<std::string> arg_text;  // each argument as "x" (buffer) or "N=1024"
};

// Checks launch `index` against `kernel`'s signature: count, and buffer vs scalar kind. Called once
// right after compiling, before anything runs.
Status check_signature(const Experiment& exp, size_t index, const ptx::Function& kernel);

// Evaluates grid/block/shared/repeat and the arguments for `env`, packs the parameter block.
// `buffer_addresses[i]` is the device address of Experiment::buffers[i].
Expected<BoundLaunch> bind_launch(const Experiment& exp, size_t index, const ptx::Function& kernel,
                                  const Env& env, const std::vector<uint64_t>& buffer_addresses);

}  // namespace warplab::lab
