// IR -> PTX text, one instruction at a time.
//
// What the UI, traces and error reports show for an instruction when they want WarpLab's reading
// of it rather than the text as written (Instruction::text): modifiers in one canonical order,
// registers and symbols by name, labels by name. The output parses back to the same IR.
#pragma once

#include <string>

#include "sim/ptx/ir.h"

namespace warplab::ptx {

// "@!%p1 ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];"
std::string disassemble(const Module& module, const Function& function, const Instruction& inst);

}  // namespace warplab::ptx
