// From a SASS address back to the PTX line it came from.
//
// The GPU runs SASS, the machine code ptxas makes from PTX; a sampled program counter is an offset
// into a kernel's SASS. ptxas reorders, merges and splits instructions, so SASS offsets and PTX
// lines have no fixed relation: the only map is the line table ptxas writes when asked to
// (-lineinfo). Besides the DWARF table for CUDA source lines, ptxas records the PTX line of every
// SASS instruction (section .nv_debug_line_sass, whose "file" is the PTX text itself,
// ".nv_debug_ptx_txt"). `nvdisasm --print-line-info-ptx` (-gp) prints it:
//
//     //## File ".nv_debug_ptx_txt", line 15
//             /*0060*/                   LDG.E R2, desc[UR4][R2.64] ;
//
// So a sampled pass here does not JIT the PTX in the driver: it runs ptxas -lineinfo on the same
// PTX for the device's architecture, loads that cubin, and reads its table with nvdisasm -gp.
// Line info does not change the code ptxas makes; the driver's JIT of the timed launches is the
// same ptxas, so the sampled code is the timed code (the toolkit's ptxas may be a minor version
// apart from the driver's; the report names both). CUDA source lines then come from the PTX's own
// .loc directives (lab/line_stalls.h), as the simulator's do.
//
// Both tools ship with the CUDA toolkit, not with the driver; where either is missing the
// sampled pass is skipped with a message naming the tool and where it was looked for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/common/error.h"

namespace warplab::gpu {

struct SassInstruction {
  int32_t ptx_line = 0;  // 0: no line recorded before this instruction
  std::string text;      // "LDG.E R2, desc[UR4][R2.64] ;"
};

// Per function (mangled name, as CUPTI reports it), SASS offset -> instruction.
using SassLineMap = std::map<std::string, std::map<uint64_t, SassInstruction>>;

// Parses `nvdisasm -c -gp` output. Instructions before any line record get line 0. Errors name
// `where` and the output line that is not what nvdisasm prints.
Expected<SassLineMap> parse_nvdisasm_ptx_lines(std::string_view text, const std::string& where);

// The PTX line of a sampled PC (0 when the function or offset is unknown).
int32_t ptx_line_of(const SassLineMap& map, const std::string& function, uint64_t pc_offset);

// A CUDA toolkit program: $CUDA_HOME/bin, /usr/local/cuda/bin, then $PATH. "" when not found.
std::string find_cuda_tool(const std::string& name);

// The result of compiling PTX for one architecture with its PTX line table.
struct SassBuild {
  std::vector<uint8_t> cubin;
  SassLineMap lines;
  std::string ptxas, nvdisasm;  // the tools' paths
  std::string ptxas_version;    // "Cuda compilation tools, release 13.0, V13.0.88"
};

// ptxas -arch=sm_<arch> -lineinfo, then nvdisasm -c -gp on the cubin, in a temporary directory.
// Errors: which tool is missing (and where it was looked for), or the tool's own message.
Expected<SassBuild> build_sass_with_lines(std::string_view ptx, const std::string& path, int arch);

}  // namespace warplab::gpu
