// Program loading: checks a parsed PTX module and decodes every kernel once (decoded.h).
//
// What a GPU driver does at module load (cuModuleLoad): JIT the PTX, lay out each kernel's static
// shared memory, constant banks and local stack frame, resolve symbols. WarpLab's version lays out
// registers into slots, shared/local/param segments, resolves labels to pcs and symbols to
// addresses, computes reconvergence points (cfg.h), and picks each instruction's handler. Anything
// the executor does not implement is rejected here, naming the PTX line, the instruction and the
// kernel: never a silently wrong result later.
#pragma once

#include <memory>

#include "sim/common/error.h"
#include "sim/func/decoded.h"

namespace warplab::func {

Expected<std::shared_ptr<const DecodedModule>> decode_module(ptx::Module module);

}  // namespace warplab::func
