// Triton kernels: a @triton.jit Python function compiled to PTX by the installed Triton.
//
// Triton compiles a Python function over blocks of values to PTX through its own pipeline
// (Python AST -> Triton IR -> TritonGPU IR, where it picks how each block is laid out over the
// threads -> LLVM IR -> PTX); triton.compile() does it without a GPU for a target it is told
// (compute capability 90 -> `.target sm_90a`, 80 -> `sm_80`). WarpLab runs the installed Triton
// through lab/triton_bridge.py, a child process with JSON in and out (no Python is embedded in
// the C++), keeps the PTX and the launch metadata (block = 32 * num_warps threads, dynamic shared
// memory, scratch pointers) and runs that PTX on the simulator and the real GPU alike: Triton's
// own cubin is not used.
//
// What Triton's launcher does and WarpLab does too: it appends the two pointers Triton 3.x adds
// to every kernel (global scratch and profile scratch: null when the metadata asks for 0 bytes),
// passes `shared` bytes of dynamic shared memory, and specializes the compile on the values it is
// called with (a pointer 16-byte aligned or an integer that is a multiple of 16 gets
// tt.divisibility = 16, which lets Triton emit ld.global.v4). A kernel whose metadata asks for
// global (or profile) scratch memory gets global_scratch_size bytes per program in one buffer on
// either backend, as Triton's launcher allocates it (lab/runner.cpp; e.g. the TMA descriptors
// that tl.make_tensor_descriptor builds on the device for sm_90). Simplified: an integer equal to
// 1 is not turned into a constant (Triton's launcher does).
//
// Compiles are cached like NVRTC's (compile_cache.h, the same directory): the key is the .py
// source text, the request (arguments, constexprs, warps, stages, target), the bridge script's
// text, the Python used and the Triton version. A kernel that imports other local modules is
// compiled again only when its own file changes: edit those and touch the kernel's file (or set
// WARPLAB_NO_CACHE=1).
//
// A machine without Triton (a GPU host that cannot reach PyPI) runs Triton experiments from the
// cache with WARPLAB_TRITON_FROM_CACHE=1: each kernel's latest compile of the same .py source and
// request, stored by a run where Triton is installed with the same WARPLAB_CACHE_DIR (copy that
// directory over); a kernel not in it is an error that says so.
//
// Where: the bridge is $WARPLAB_TRITON_BRIDGE, else triton_bridge.py beside the executable, in
// ../lab/ from it (build/warplab) or in the source tree's lab/; the Python is $WARPLAB_PYTHON,
// else triton-venv/bin/python3 beside the executable (cmake/setup.sh makes build/triton-venv
// where the system Python has no Triton), else python3 on the PATH.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::lab {

// The Triton version this WarpLab is tested with (cmake/setup.sh installs it).
inline constexpr const char* kPinnedTritonVersion = "3.9.0";

struct TritonArg {
  std::string type;  // Triton's signature type: "*fp32", "*i32", "i32", "i64", "fp32"
  bool divisible_by_16 = false;
};

struct TritonRequest {
  std::string file;             // the .py file
  std::string function;         // the @triton.jit function
  std::vector<TritonArg> args;  // the non-constexpr parameters, in order
  std::vector<std::pair<std::string, std::string>> constexprs;  // name -> value as JSON text
  int num_warps = 4;
  int num_stages = 3;
  int target = 90;       // compute capability: 90 or 80
  int ptx_version = 90;  // .version 9.0: what CUDA 13.0's nvJitLink and driver read
};

struct TritonKernel {
  std::string ptx;
  std::string name;     // the PTX entry
  uint64_t shared = 0;  // dynamic shared memory bytes per program (block)
  int num_warps = 4, num_stages = 3, target = 90;
  uint64_t global_scratch_size = 0, global_scratch_align = 1;
  uint64_t profile_scratch_size = 0, profile_scratch_align = 1;
  std::vector<std::string> params;            // the Python parameters the launch passes
  std::vector<std::string> constexpr_params;  // the tl.constexpr ones
  std::string triton_version;
  bool from_cache = false;
};

// The bridge to the installed Triton. Constructing it runs nothing; the first call asks the
// bridge for Triton's version once (kept for the object's life).
class TritonBridge {
 public:
  TritonBridge() = default;
  // "" when Triton can compile here; else one sentence: what is missing and how to install it.
  std::string why_unavailable() const;
  std::string version() const;  // "3.9.0" ("" when unavailable)
  std::string bridge_path() const;
  // Compiles through the cache (`cache_dir` as CompileOptions::cache_dir: "" = the default).
  // A Triton compile error comes back at the .py file's line.
  // use_cache = false: always run Triton (RunOptions::ptx_cache off).
  Expected<TritonKernel> compile(const TritonRequest& req, const std::string& cache_dir = "",
                                 bool use_cache = true) const;

 private:
  void probe() const;
  mutable bool probed_ = false;
  mutable std::string bridge_, version_, why_;
};

// The request's JSON text (what the bridge reads on stdin).
std::string triton_request_json(const TritonRequest& req);
// Reads the bridge's reply; errors name the .py file and line the bridge reported.
Expected<TritonKernel> parse_triton_reply(const std::string& json_text, const std::string& file);
// Triton's signature type for a WarpLab element type name ("f32" -> "fp32", "i32" -> "i32"...);
// "" when Triton has none.
std::string triton_type_name(const std::string& elem_type);

}  // namespace warplab::lab
