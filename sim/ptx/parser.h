// The PTX front end: PTX text -> Module (ir.h).
//
// What a real toolchain does here: the driver's JIT (ptxas) reads the PTX that nvcc or NVRTC wrote,
// checks it against the ISA, allocates physical registers and emits SASS. WarpLab stops at the
// first step: it reads the PTX, checks every instruction against the shared table (isa.def),
// numbers each function's virtual registers densely, resolves every label to an instruction index
// and every symbol to a variable or parameter, and records the PTX and CUDA source line of every
// instruction. There is no register allocation and no optimisation: the executor runs the PTX as
// written.
//
// Simplified: debug sections are skipped, address initialisers (`.u64 p = generic(x)`) and indirect
// calls are rejected, and tensor cores, cp.async, TMA and clusters are reported as out of scope.
// Errors name the file, the PTX line and what was expected there; the parser never prints or exits.
#pragma once

#include <string>
#include <string_view>

#include "sim/common/error.h"
#include "sim/ptx/ir.h"

namespace warplab::ptx {

// Parses a whole PTX module. `path` names the text in errors and is stored in Module::path.
Expected<Module> parse_module(std::string_view text, std::string path);

// Reads `path` and parses it; an unreadable file is an Error naming it.
Expected<Module> parse_file(const std::string& path);

}  // namespace warplab::ptx
