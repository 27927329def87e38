// The compile pipeline: CUDA C++ -> PTX in process (NVRTC), PTX -> resource usage (nvJitLink).
//
// On a real GPU the driver's JIT (ptxas) turns PTX into SASS and decides how many registers each
// thread gets, how much shared memory a block needs, how many named barriers it uses and how much
// per-thread local memory (stack, spills) it touches. Those figures bound occupancy, so the timing
// model needs the real ones: we ask nvJitLink (the toolkit's in-process linker, which embeds ptxas)
// to compile the PTX for sm_90 with -verbose and read the "ptxas info" lines of its info log, the
// same text `ptxas -v` prints. tests/505_compile.cpp pins that format so a toolkit update that
// changes it fails loudly instead of giving wrong occupancy.
//
// Both libraries are opened with dlopen at run time (libnvrtc.so.13, libnvJitLink.so.13, from the
// loader path or /usr/local/cuda/lib64), so every binary starts without the CUDA toolkit; .ptx
// experiments still run there, and compiling .cu says plainly that NVRTC is missing.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/sandbox.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct CompileOptions {
  std::string arch = "compute_90";        // NVRTC --gpu-architecture (virtual arch -> PTX)
  std::vector<std::string> extra;         // more NVRTC options ("-use_fast_math", "-DTILE=16")
  std::vector<std::string> include_dirs;  // -I (the source's directory is always added)
  bool line_info = true;                  // --generate-line-info: .loc lines map PTX to CUDA
  // C++ names of template instantiations to compile and name ("MatrixMulCUDA<16>"): NVRTC name
  // expressions (nvrtcAddNameExpression), which instantiate the template when the source does not
  // and give back its PTX entry name (nvrtcGetLoweredName) in CompiledPtx::lowered_names.
  std::vector<std::string> name_expressions;
  // The PTX cache (compile_cache.h): Toolchain::compile_cuda_cached() looks here first.
  // "" = the default directory (WARPLAB_CACHE_DIR, else $XDG_CACHE_HOME/warplab, else
  // ~/.cache/warplab); WARPLAB_NO_CACHE=1 in the environment turns it off.
  std::string cache_dir;
  // Compile in the sandbox (lab/sandbox.h): untrusted source. Such a compile never uses the PTX
  // cache (a submission can neither read nor plant another compile's entry).
  std::optional<SandboxPolicy> sandbox;
};

struct CompiledPtx {
  std::string ptx;
  std::string log;  // NVRTC warnings ("" when none), file:line form
  std::vector<std::pair<std::string, std::string>> lowered_names;  // name expression -> entry
  bool from_cache = false;  // compile_cuda_cached() found it in the cache
};

// What `ptxas -v` reports for one kernel.
struct KernelResources {
  std::string kernel;                // PTX entry name (mangled for C++ kernels)
  int registers = 0;                 // per thread
  int barriers = 0;                  // named barriers used (bar.sync 0 counts as 1)
  uint64_t static_shared_bytes = 0;  // smem
  uint64_t local_bytes = 0;          // lmem: per-thread local memory (stack frame included)
  uint64_t stack_frame_bytes = 0;
  uint64_t spill_store_bytes = 0, spill_load_bytes = 0;
  uint64_t const_bytes = 0;  // cmem[0]: kernel parameters and driver constants
};

struct ResourceReport {
  std::string sass_arch;  // "sm_90"
  std::vector<KernelResources> kernels;
  std::string info_log;  // the raw nvJitLink -verbose text
  const KernelResources* find(const std::string& kernel) const;
};

// Parses the "ptxas info" lines of an nvJitLink/ptxas -verbose log. Errors when a line it relies on
// is missing or changed form (the format test calls this on a real log).
Expected<std::vector<KernelResources>> parse_ptxas_info(const std::string& log);

// Converts NVRTC's "file(12): error: ..." lines to "file:12: error: ..."; returns the first
// error's line through `first_line` (0 when none) and its file through `first_file` (which may be
// a header the source includes).
std::string nvrtc_log_to_file_line(const std::string& log, int* first_line,
                                   std::string* first_file = nullptr);

// A hint for a compile log that shows a known NVRTC pitfall ("" when none): NVRTC ships no C or
// C++ standard library headers, so `#include <stdio.h>` (or <cstdio>, <stdlib.h>, <math.h>...)
// fails although printf, malloc and the math functions need no include in device code.
std::string nvrtc_hint(const std::string& log);

// The CUDA line a PTX line came from: the last .loc at or before `ptx_line` that names the file
// `cuda_path` (directly, or as the `inlined_at` site of code inlined from a header). 0 when none.
int cuda_line_of_ptx_line(const std::string& ptx, int ptx_line, const std::string& cuda_path);

// An error about PTX that NVRTC generated from `cuda_path` (named `ptx_path`, a file that exists
// only in memory) becomes an error about the CUDA file: "k.cu:12: PTX line 345 (of the PTX NVRTC
// generated from it; `warplab ptx k.cu` prints it): ...". Other errors come back unchanged.
Error error_in_generated_ptx(const Error& e, const std::string& ptx, const std::string& ptx_path,
                             const std::string& cuda_path);

// The architecture nvJitLink must be asked for to compile `ptx` where `sass_arch` was asked for:
// the PTX's own .target when it is `sass_arch` made architecture-specific ("sm_90a", "sm_90f" for
// "sm_90"), which nvJitLink compiles for no other target; else `sass_arch`.
std::string link_arch_for_ptx(const std::string& ptx, const std::string& sass_arch);

class ToolchainImpl;

// An experiment's `options` entry that may reach NVRTC: "" when allowed, else why not. Allowed:
// -D, -U, -use_fast_math, --fmad, -ftz, -prec-div, -prec-sqrt, -lineinfo, -std=, -maxrregcount,
// -restrict, -default-device, --extra-device-vectorization, -G, -w and -I inside `folder` (the
// experiment's), in their short or long spelling. Refused: anything else, among them what reads
// or writes other files (--pre-include, -include, -I outside `folder`, -time, --pch*,
// -fdevice-time-trace) and --dopt.
std::string nvrtc_option_problem(const std::string& option, const std::string& folder);

// The CUDA compile libraries, opened once per Toolchain object (no global state).
class Toolchain {
 public:
  Toolchain();
  // Opens NVRTC from exactly this file (the sandbox's child: no search, no environment).
  explicit Toolchain(const std::string& nvrtc_library);
  ~Toolchain();
  Toolchain(Toolchain&&) noexcept;
  Toolchain& operator=(Toolchain&&) noexcept;

  bool has_nvrtc() const;
  bool has_nvjitlink() const;
  std::string nvrtc_version() const;  // "13.0" or ""
  // The architectures NVRTC compiles for (75 for compute_75 and sm_75, ...); empty when unknown.
  std::vector<int> supported_archs() const;
  std::string why_no_nvrtc() const;  // a sentence for the user ("" when present)
  std::string why_no_nvjitlink() const;

  // Compiles CUDA C++ `source` (named `path` in messages) to PTX. Compile errors come back with
  // the first error's file:line and the whole log in file:line form.
  Expected<CompiledPtx> compile_cuda(const std::string& source, const std::string& path,
                                     const CompileOptions& options) const;
  // The compile itself, in this process, with the final NVRTC options (compile_cuda() builds them;
  // the sandbox's child calls this).
  Expected<CompiledPtx> compile_nvrtc(const std::string& source, const std::string& path,
                                      const std::vector<std::string>& nvrtc_options,
                                      const std::vector<std::string>& name_expressions) const;
  Expected<CompiledPtx> compile_cuda_file(const std::string& path,
                                          const CompileOptions& options) const;
  // compile_cuda_file() through the PTX cache: the key is the source text, the text of every
  // file it includes with quotes (found the way NVRTC's -I search would), the options, defines,
  // name expressions, arch and the NVRTC version. A hit skips NVRTC (cooperative_groups.h alone
  // costs about 2 s).
  Expected<CompiledPtx> compile_cuda_cached(const std::string& path,
                                            const CompileOptions& options) const;
  // Compiles PTX for `sass_arch` with nvJitLink -verbose and reads each kernel's resources.
  // PTX whose .target is `sass_arch` with an 'a' or 'f' suffix (Triton's sm_90a) is compiled for
  // that target (link_arch_for_ptx); ResourceReport::sass_arch says which was used.
  Expected<ResourceReport> resource_usage(const std::string& ptx, const std::string& path,
                                          const std::string& sass_arch = "sm_90") const;

 private:
  std::unique_ptr<ToolchainImpl> impl_;
};

}  // namespace warplab::lab
