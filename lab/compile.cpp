#include "lab/compile.h"

#include <dlfcn.h>
#include <link.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "lab/compile_cache.h"
#include "sim/common/input_file.h"

namespace warplab::lab {
namespace {

// The few NVRTC / nvJitLink entry points we use, declared here so building needs no CUDA headers.
// Signatures as in nvrtc.h and nvJitLink.h of CUDA 13 (results are C enums: int, 0 = success).
using NvrtcProgram = struct NvrtcProgramOpaque*;
using NvrtcCreate = int (*)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                            const char* const*);
using NvrtcDestroy = int (*)(NvrtcProgram*);
using NvrtcCompile = int (*)(NvrtcProgram, int, const char* const*);
using NvrtcGetSize = int (*)(NvrtcProgram, size_t*);
using NvrtcGetText = int (*)(NvrtcProgram, char*);
using NvrtcErrorString = const char* (*)(int);
using NvrtcVersion = int (*)(int*, int*);
using NvrtcAddNameExpression = int (*)(NvrtcProgram, const char*);
using NvrtcGetLoweredName = int (*)(NvrtcProgram, const char*, const char**);
using NvrtcGetInt = int (*)(int*);

using JitHandle = struct JitHandleOpaque*;
constexpr int kJitInputPtx = 2;  // NVJITLINK_INPUT_PTX (NONE = 0, CUBIN = 1, PTX = 2)
using JitCreate = int (*)(JitHandle*, uint32_t, const char**);
using JitDestroy = int (*)(JitHandle*);
using JitAddData = int (*)(JitHandle, int, const void*, size_t, const char*);
using JitComplete = int (*)(JitHandle);
using JitGetSize = int (*)(JitHandle, size_t*);
using JitGetText = int (*)(JitHandle, char*);

// dlopen by soname first (LD_LIBRARY_PATH, ld.so.cache), then the toolkit's default location.
void* open_library(const char* soname, std::string& why) {
  if (void* h = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) return h;
  std::string first = dlerror() ? "" : "";
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string& d : dirs) {
    std::string p = d + "/" + soname;
    if (void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  }
  why = std::string(soname) + " was not found (looked on the loader path and in " + dirs.back() +
        "); install the CUDA 13 toolkit or point LD_LIBRARY_PATH at its lib64.";
  return nullptr;
}

template <class F>
bool bind(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  return out != nullptr;
}

}  // namespace

class ToolchainImpl {
 public:
  void* nvrtc = nullptr;
  void* jit = nullptr;
  std::string why_nvrtc, why_jit;
  NvrtcCreate create = nullptr;
  NvrtcDestroy destroy = nullptr;
  NvrtcCompile compile = nullptr;
  NvrtcGetSize ptx_size = nullptr, log_size = nullptr;
  NvrtcGetText get_ptx = nullptr, get_log = nullptr;
  NvrtcErrorString error_string = nullptr;
  NvrtcVersion version = nullptr;
  NvrtcAddNameExpression add_name = nullptr;  // optional: template kernels by C++ name
  NvrtcGetLoweredName lowered_name = nullptr;
  NvrtcGetInt num_archs = nullptr, archs = nullptr;  // optional: the supported architectures
  JitCreate jit_create = nullptr;
  JitDestroy jit_destroy = nullptr;
  JitAddData jit_add = nullptr;
  JitComplete jit_complete = nullptr;
  JitGetSize jit_info_size = nullptr, jit_error_size = nullptr;
  JitGetText jit_info = nullptr, jit_error = nullptr;

  std::string nvrtc_file;  // the library file opened (resolved), for the sandbox's child

  explicit ToolchainImpl(const std::string& nvrtc_library = "") {
    // ptxas's per-kernel report (registers, shared memory) comes from nvJitLink's verbose log,
    // which a JIT cache hit leaves out: on a machine with a GPU driver, nvJitLink reuses the
    // driver's compute cache (~/.nv/ComputeCache) and a kernel compiled before gets no report
    // line, so its run fell back to 32 registers (seen on an H200 host, 2026-11-25). The cache is
    // off for this process unless the user set CUDA_CACHE_DISABLE.
    setenv("CUDA_CACHE_DISABLE", "1", 0);
    if (nvrtc_library.empty()) {
      nvrtc = open_library("libnvrtc.so.13", why_nvrtc);
    } else {
      nvrtc = dlopen(nvrtc_library.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!nvrtc) why_nvrtc = "cannot open " + nvrtc_library;
    }
    if (nvrtc) {
      struct link_map* lm = nullptr;
      if (dlinfo(nvrtc, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
        std::error_code ec;
        nvrtc_file = std::filesystem::canonical(lm->l_name, ec).string();
      }
    }
    if (nvrtc) {
      bool ok =
          bind(nvrtc, "nvrtcCreateProgram", create) &&
          bind(nvrtc, "nvrtcDestroyProgram", destroy) &&
          bind(nvrtc, "nvrtcCompileProgram", compile) && bind(nvrtc, "nvrtcGetPTXSize", ptx_size) &&
          bind(nvrtc, "nvrtcGetPTX", get_ptx) && bind(nvrtc, "nvrtcGetProgramLogSize", log_size) &&
          bind(nvrtc, "nvrtcGetProgramLog", get_log) &&
          bind(nvrtc, "nvrtcGetErrorString", error_string) && bind(nvrtc, "nvrtcVersion", version);
      if (ok) bind_name_expressions();
      if (ok && !(bind(nvrtc, "nvrtcGetNumSupportedArchs", num_archs) &&
                  bind(nvrtc, "nvrtcGetSupportedArchs", archs)))
        num_archs = archs = nullptr;
      if (!ok) {
        why_nvrtc = "libnvrtc.so.13 lacks an expected entry point (not a CUDA 13 NVRTC?)";
        dlclose(nvrtc);
        nvrtc = nullptr;
      }
    }
    jit = open_library("libnvJitLink.so.13", why_jit);
    if (jit) {
      bool ok =
          bind(jit, "nvJitLinkCreate", jit_create) && bind(jit, "nvJitLinkDestroy", jit_destroy) &&
          bind(jit, "nvJitLinkAddData", jit_add) && bind(jit, "nvJitLinkComplete", jit_complete) &&
          bind(jit, "nvJitLinkGetInfoLogSize", jit_info_size) &&
          bind(jit, "nvJitLinkGetInfoLog", jit_info) &&
          bind(jit, "nvJitLinkGetErrorLogSize", jit_error_size) &&
          bind(jit, "nvJitLinkGetErrorLog", jit_error);
      if (!ok) {
        why_jit = "libnvJitLink.so.13 lacks an expected entry point";
        dlclose(jit);
        jit = nullptr;
      }
    }
  }
  void bind_name_expressions() {
    if (!bind(nvrtc, "nvrtcAddNameExpression", add_name) ||
        !bind(nvrtc, "nvrtcGetLoweredName", lowered_name))
      add_name = nullptr, lowered_name = nullptr;
  }
  ~ToolchainImpl() {
    if (nvrtc) dlclose(nvrtc);
    if (jit) dlclose(jit);
  }
};

Toolchain::Toolchain() : impl_(std::make_unique<ToolchainImpl>()) {}
Toolchain::Toolchain(const std::string& nvrtc_library)
    : impl_(std::make_unique<ToolchainImpl>(nvrtc_library)) {}
Toolchain::~Toolchain() = default;
Toolchain::Toolchain(Toolchain&&) noexcept = default;
Toolchain& Toolchain::operator=(Toolchain&&) noexcept = default;
bool Toolchain::has_nvrtc() const { return impl_->nvrtc != nullptr; }
bool Toolchain::has_nvjitlink() const { return impl_->jit != nullptr; }
std::string Toolchain::why_no_nvrtc() const { return impl_->why_nvrtc; }
std::string Toolchain::why_no_nvjitlink() const { return impl_->why_jit; }

std::string Toolchain::nvrtc_version() const {
  if (!impl_->nvrtc) return "";
  int major = 0, minor = 0;
  impl_->version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> Toolchain::supported_archs() const {
  const ToolchainImpl& t = *impl_;
  int n = 0;
  if (!t.nvrtc || !t.num_archs || t.num_archs(&n) != 0 || n <= 0 || n > 1024) return {};
  std::vector<int> out(static_cast<size_t>(n));
  if (t.archs(out.data()) != 0) return {};
  return out;
}

std::string nvrtc_log_to_file_line(const std::string& log, int* first_line,
                                   std::string* first_file) {
  // NVRTC writes "path(LINE): error: ..." (EDG style).
  static const std::regex kLoc(R"(^(.*?)\((\d+)\): )");
  std::istringstream in(log);
  std::string line, out;
  if (first_line) *first_line = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kLoc)) {
      if (first_line && *first_line == 0 && line.find("error") != std::string::npos) {
        *first_line = std::stoi(m[2]);
        if (first_file) *first_file = m[1].str();
      }
      line = m[1].str() + ":" + m[2].str() + ": " + m.suffix().str();
    }
    out += line + "\n";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
  return out;
}

namespace {

// Registers the C++ names of template instantiations before compiling (nvrtcAddNameExpression).
Status add_name_expressions(const ToolchainImpl& t, NvrtcProgram prog,
                            const std::vector<std::string>& names) {
  if (names.empty()) return Ok{};
  if (!t.add_name)
    return Error{"", 0,
                 "this NVRTC lacks nvrtcAddNameExpression: name the kernel by its PTX entry name"};
  for (const std::string& n : names)
    if (int rc = t.add_name(prog, n.c_str()); rc != 0)
      return Error{"", 0, "nvrtcAddNameExpression(\"" + n + "\") failed: " + t.error_string(rc)};
  return Ok{};
}

// After a successful compile: each name expression's PTX entry (nvrtcGetLoweredName).
std::vector<std::pair<std::string, std::string>> lowered_names(
    const ToolchainImpl& t, NvrtcProgram prog, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!t.lowered_name) return out;
  for (const std::string& n : names) {
    const char* lowered = nullptr;
    if (t.lowered_name(prog, n.c_str(), &lowered) == 0 && lowered) out.emplace_back(n, lowered);
  }
  return out;
}

}  // namespace

std::string nvrtc_option_problem(const std::string& option, const std::string& folder) {
  const std::string name = option.substr(0, option.find('='));
  auto value = [&] {
    return option.find('=') == std::string::npos ? std::string()
                                                 : option.substr(option.find('=') + 1);
  };
  // Options that take no value, and those with "=VALUE" (both spellings NVRTC accepts).
  static const char* const kFlags[] = {"-use_fast_math",
                                       "--use_fast_math",
                                       "-lineinfo",
                                       "--generate-line-info",
                                       "-restrict",
                                       "--restrict",
                                       "-default-device",
                                       "--device-as-default-execution-space",
                                       "--extra-device-vectorization",
                                       "-extra-device-vectorization",
                                       "-G",
                                       "--device-debug",
                                       "-w",
                                       "--disable-warnings"};
  static const char* const kValued[] = {
      "-fmad",      "--fmad",      "-ftz", "--ftz", "-prec-div",     "--prec-div",
      "-prec-sqrt", "--prec-sqrt", "-std", "--std", "-maxrregcount", "--maxrregcount"};
  for (const char* f : kFlags)
    if (option == f) return "";
  for (const char* v : kValued)
    if (name == v && !value().empty()) return "";
  for (const char* p : {"-D", "-U"})
    if (option.size() > 2 && option.compare(0, 2, p) == 0) return "";
  for (const char* p : {"--define-macro=", "--undefine-macro="})
    if (option.rfind(p, 0) == 0 && option.size() > std::strlen(p)) return "";
  std::string dir;
  if (option.size() > 2 && option.compare(0, 2, "-I") == 0) dir = option.substr(2);
  if (option.rfind("--include-path=", 0) == 0) dir = option.substr(15);
  if (!dir.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path base = folder.empty() ? fs::path(".") : fs::path(folder);
    const fs::path d = fs::weakly_canonical(base / dir, ec);
    const fs::path root = fs::weakly_canonical(base, ec);
    const fs::path rel = d.lexically_relative(root);
    if (!ec && !rel.empty() && *rel.begin() != "..") return "";
    return "an include directory outside the experiment's folder (" + base.string() +
           "): the compile may read only the experiment's own files and the CUDA headers";
  }
  if (name == "--pre-include" || name == "-include" || option.rfind("-include", 0) == 0)
    return "it makes NVRTC read a file the source does not name; #include it in the source";
  return "not an option experiments may pass to NVRTC; allowed: -DNAME[=VALUE], -UNAME, "
         "-use_fast_math, --fmad=, -ftz=, -prec-div=, -prec-sqrt=, -lineinfo, -std=, "
         "-maxrregcount=, -restrict, -default-device, --extra-device-vectorization, -G, -w and "
         "-I within the experiment's folder";
}

std::string nvrtc_hint(const std::string& log) {
  const std::string marker = "cannot open source file \"";
  const size_t at = log.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size(), end = log.find('"', begin);
  if (end == std::string::npos) return "";
  static const char* const kStd[] = {"stdio.h",  "cstdio",   "stdlib.h", "cstdlib",  "math.h",
                                     "cmath",    "string.h", "cstring",  "assert.h", "cassert",
                                     "stdint.h", "cstdint",  "iostream", "vector",   "algorithm"};
  const std::string h = log.substr(begin, end - begin);
  for (const char* s : kStd)
    if (h == s)
      return "NVRTC compiles without the C and C++ standard library headers, so <" + h +
             "> does not exist here. Device code needs none of them: printf, assert and "
             "the math functions (sinf, expf, sqrt...) work without any include, and "
             "<cuda/std/...> headers (cuda::std::numeric_limits, <cuda/std/cstdint>) stand in "
             "for the C++ library. Remove the include (or guard it with #ifndef __CUDACC_RTC__).";
  return "";
}

int cuda_line_of_ptx_line(const std::string& ptx, int ptx_line, const std::string& cuda_path) {
  const std::string want = std::filesystem::path(cuda_path).filename().string();
  auto trimmed = [](const std::string& line) {
    const size_t b = line.find_first_not_of(" \t");
    return b == std::string::npos ? std::string_view{} : std::string_view(line).substr(b);
  };
  // 1. The .file table (NVRTC writes it at the end of the module): which indices name cuda_path.
  std::vector<bool> is_cuda;
  {
    std::istringstream in(ptx);
    std::string line;
    while (std::getline(in, line)) {
      const std::string_view l = trimmed(line);
      if (l.rfind(".file", 0) != 0) continue;
      const long index = std::strtol(std::string(l.substr(5)).c_str(), nullptr, 10);
      const size_t q1 = l.find('"'), q2 = l.rfind('"');
      if (index < 0 || index > 4096 || q1 == std::string::npos || q2 <= q1) continue;
      const std::string path(l.substr(q1 + 1, q2 - q1 - 1));
      if (is_cuda.size() <= static_cast<size_t>(index)) is_cuda.resize(index + 1, false);
      is_cuda[index] = path == cuda_path || std::filesystem::path(path).filename() == want;
    }
  }
  auto names_cuda = [&](long index) {
    return index >= 0 && index < static_cast<long>(is_cuda.size()) && is_cuda[index];
  };
  // 2. The last .loc up to ptx_line in that file, or inlined into it.
  std::istringstream in(ptx);
  std::string line;
  int found = 0;
  for (int n = 1; n <= ptx_line && std::getline(in, line); ++n) {
    const std::string_view l = trimmed(line);
    if (l.rfind(".loc", 0) != 0) continue;
    // .loc FILE LINE COL[, function_name ..., inlined_at FILE LINE COL]
    const std::string rest(l.substr(4));
    char* end = nullptr;
    const long file = std::strtol(rest.c_str(), &end, 10);
    const long ln = std::strtol(end, &end, 10);
    if (names_cuda(file) && ln > 0) {
      found = static_cast<int>(ln);
      continue;
    }
    const size_t at = rest.find("inlined_at");
    if (at == std::string::npos) continue;
    const long ifile = std::strtol(rest.c_str() + at + 10, &end, 10);
    const long iln = std::strtol(end, &end, 10);
    if (names_cuda(ifile) && iln > 0) found = static_cast<int>(iln);
  }
  return found;
}

Error error_in_generated_ptx(const Error& e, const std::string& ptx, const std::string& ptx_path,
                             const std::string& cuda_path) {
  if (e.file != ptx_path || e.line <= 0) return e;
  const int cuda_line = cuda_line_of_ptx_line(ptx, e.line, cuda_path);
  std::string message = e.message;
  // Decode errors name the CUDA line as " (CUDA path:LINE)"; the file:line in front now says it.
  const std::string tail = ":" + std::to_string(cuda_line) + ")";
  for (size_t at = message.find(" (CUDA "); cuda_line > 0 && at != std::string::npos;
       at = message.find(" (CUDA ", at + 1)) {
    const size_t close = message.find(')', at);
    if (close == std::string::npos) break;
    if (message.compare(close + 1 - tail.size(), tail.size(), tail) == 0) {
      message.erase(at, close + 1 - at);
      break;
    }
  }
  return Error{cuda_path, cuda_line,
               "PTX line " + std::to_string(e.line) +
                   " (of the PTX NVRTC generated from it; `warplab ptx " + cuda_path +
                   "` prints it): " + message};
}

Expected<CompiledPtx> Toolchain::compile_cuda(const std::string& source, const std::string& path,
                                              const CompileOptions& options) const {
  const ToolchainImpl& t = *impl_;
  if (!t.nvrtc)
    return Error{path, 0,
                 "cannot compile CUDA: NVRTC is not available (" + t.why_nvrtc +
                     ") .ptx experiments still run."};
  std::string cuda_home;
  std::vector<std::string> opts = {"--gpu-architecture=" + options.arch, "--std=c++17",
                                   "--device-as-default-execution-space"};
  if (options.line_info) opts.push_back("--generate-line-info");
  std::string dir = std::filesystem::path(path).parent_path().string();
  opts.push_back("-I" + (dir.empty() ? std::string(".") : dir));
  for (const std::string& d : options.include_dirs) opts.push_back("-I" + d);
  // The toolkit's headers (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h, and since CUDA 13
  // the CCCL libraries they use, <cuda/std/...>, under include/cccl), which nvcc finds on its own
  // and NVRTC does not.
  for (const char* home : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"}) {
    std::error_code ec;
    if (home && std::filesystem::exists(std::string(home) + "/include/cuda_fp16.h", ec)) {
      cuda_home = home;
      opts.push_back("-I" + std::string(home) + "/include");
      if (std::filesystem::exists(std::string(home) + "/include/cccl", ec))
        opts.push_back("-I" + std::string(home) + "/include/cccl");
      break;
    }
  }
  opts.insert(opts.end(), options.extra.begin(), options.extra.end());
  if (options.sandbox) {
    // Untrusted source: the compile runs in a confined child (lab/sandbox.h) that may read the
    // toolkit (headers, and the libraries NVRTC loads) and what the policy names.
    SandboxCompileRequest r;
    r.nvrtc_library = t.nvrtc_file;
    r.source = source;
    r.path = path;
    r.options = std::move(opts);
    r.name_expressions = options.name_expressions;
    std::error_code ec;
    const std::filesystem::path lib_dir = std::filesystem::path(t.nvrtc_file).parent_path();
    r.toolkit_dirs.push_back(lib_dir.string());
    if (!cuda_home.empty())
      r.toolkit_dirs.push_back(std::filesystem::canonical(cuda_home, ec).string());
    for (const auto& e : std::filesystem::directory_iterator(lib_dir, ec))
      if (e.path().filename().string().rfind("libnvrtc-builtins.so.", 0) == 0 &&
          e.path().filename().string().find(".alt.") == std::string::npos)
        r.preload.push_back(e.path().string());
    if (r.nvrtc_library.empty())
      return Error{path, 0,
                   "cannot compile in the sandbox: where NVRTC was loaded from is unknown"};
    return sandbox_compile(r, *options.sandbox);
  }
  return compile_nvrtc(source, path, opts, options.name_expressions);
}

Expected<CompiledPtx> Toolchain::compile_nvrtc(const std::string& source, const std::string& path,
                                               const std::vector<std::string>& opts,
                                               const std::vector<std::string>& names) const {
  const ToolchainImpl& t = *impl_;
  if (!t.nvrtc) return Error{path, 0, "cannot compile CUDA: NVRTC is not available"};
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());

  NvrtcProgram prog = nullptr;
  if (int rc = t.create(&prog, source.c_str(), path.c_str(), 0, nullptr, nullptr); rc != 0)
    return Error{path, 0, std::string("nvrtcCreateProgram failed: ") + t.error_string(rc)};
  if (auto s = add_name_expressions(t, prog, names); !s) {
    t.destroy(&prog);
    return Error{path, 0, s.error().message};
  }
  int rc = t.compile(prog, static_cast<int>(argv.size()), argv.data());
  size_t n = 0;
  t.log_size(prog, &n);
  std::string log(n, '\0');
  if (n) t.get_log(prog, log.data());
  int first = 0;
  std::string first_file;
  std::string nice = nvrtc_log_to_file_line(log, &first, &first_file);
  if (rc != 0) {
    t.destroy(&prog);
    const std::string hint = nvrtc_hint(nice);
    return Error{first_file.empty() ? path : first_file, first,
                 std::string("CUDA compile failed (") + t.error_string(rc) + "):\n" + nice +
                     (hint.empty() ? "" : "\nhint: " + hint)};
  }
  CompiledPtx out;
  out.log = nice;
  out.lowered_names = lowered_names(t, prog, names);
  t.ptx_size(prog, &n);
  out.ptx.assign(n, '\0');
  t.get_ptx(prog, out.ptx.data());
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  t.destroy(&prog);
  return out;
}

Expected<CompiledPtx> Toolchain::compile_cuda_file(const std::string& path,
                                                   const CompileOptions& options) const {
  auto source = read_input_file(path, "CUDA source");
  if (!source) return source.error();
  return compile_cuda(*source, path, options);
}

Expected<CompiledPtx> Toolchain::compile_cuda_cached(const std::string& path,
                                                     const CompileOptions& options) const {
  auto read = read_input_file(path, "CUDA source");
  if (!read) return read.error();
  const std::string source = std::move(*read);
  // A sandboxed (untrusted) compile bypasses the cache: keying it would read the files the source
  // names from this unconfined process, and a hit could hand it another compile's PTX.
  const std::string dir = has_nvrtc() && !options.sandbox ? ptx_cache_dir(options.cache_dir) : "";
  std::optional<std::string> key;
  if (!dir.empty()) key = ptx_cache_key(source, path, options, nvrtc_version());
  if (key)
    if (auto hit = ptx_cache_load(dir, *key)) return std::move(*hit);
  auto out = compile_cuda(source, path, options);
  if (out && key) ptx_cache_store(dir, *key, *out);
  return out;
}

const KernelResources* ResourceReport::find(const std::string& kernel) const {
  for (const KernelResources& k : kernels)
    if (k.kernel == kernel) return &k;
  return nullptr;
}

Expected<std::vector<KernelResources>> parse_ptxas_info(const std::string& log) {
  // ptxas -v prints, per entry function:
  //   ptxas info    : Compiling entry function '_Z3addPfS_' for 'sm_90'
  //   ptxas info    : Function properties for _Z3addPfS_
  //       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info    : Used 8 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]
  // ("used N barriers", "N bytes smem" and "N bytes lmem" appear only when nonzero.)
  // nvJitLink then adds its own summary per kernel, from which we take only cmem[0] (its smem
  // figure includes the 1 KiB per block that sm_90 reserves for the system, ptxas's does not):
  //   info    : Function properties for '_Z3addPfS_':
  //   info    : used 8 registers, used 1 barriers, 0 stack, 2048 bytes smem, 548 bytes cmem[0], ...
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kProps(R"(Function properties for (\S+))");
  static const std::regex kFrame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(ptxas info\s*: Used (\d+) registers(.*))");
  static const std::regex kLinkProps(R"(Function properties for '([^']+)':)");
  static const std::regex kLinkUsed(R"(used \d+ registers.*?(\d+) bytes cmem\[0\])");
  static const std::regex kItem(R"((\d+) bytes (smem|lmem|cmem\[0\])|used (\d+) barriers)");
  std::vector<KernelResources> out;
  std::istringstream in(log);
  std::string line, props_for, link_props_for;
  KernelResources* cur = nullptr;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kLinkProps)) {
      link_props_for = m[1];
    } else if (line.rfind("ptxas", 0) != 0 && std::regex_search(line, m, kLinkUsed)) {
      for (KernelResources& k : out)
        if (k.kernel == link_props_for) k.const_bytes = std::stoull(m[1]);
    } else if (std::regex_search(line, m, kEntry)) {
      out.push_back(KernelResources{m[1]});
      cur = &out.back();
    } else if (std::regex_search(line, m, kProps)) {
      props_for = m[1];
    } else if (std::regex_search(line, m, kFrame)) {
      if (cur && props_for == cur->kernel) {
        cur->stack_frame_bytes = std::stoull(m[1]);
        cur->spill_store_bytes = std::stoull(m[2]);
        cur->spill_load_bytes = std::stoull(m[3]);
      }
    } else if (std::regex_search(line, m, kUsed)) {
      if (!cur) continue;  // a .func's own usage (non-inlined device function)
      cur->registers = std::stoi(m[1]);
      std::string rest = m[2];
      for (std::sregex_iterator it(rest.begin(), rest.end(), kItem), end; it != end; ++it) {
        const std::smatch& im = *it;
        if (im[3].matched)
          cur->barriers = std::stoi(im[3]);
        else if (im[2] == "smem")
          cur->static_shared_bytes = std::stoull(im[1]);
        else if (im[2] == "lmem")
          cur->local_bytes = std::stoull(im[1]);
        else
          cur->const_bytes = std::stoull(im[1]);
      }
      cur = nullptr;  // the "Used" line closes the entry
    }
  }
  for (const KernelResources& k : out)
    if (k.registers == 0)
      return Error{"", 0,
                   "ptxas info log changed format: no \"Used N registers\" line for kernel '" +
                       k.kernel + "'"};
  if (out.empty() && log.find("ptxas") != std::string::npos)
    return Error{"", 0,
                 "ptxas info log changed format: no \"Compiling entry function\" lines found"};
  for (KernelResources& k : out) k.local_bytes = std::max(k.local_bytes, k.stack_frame_bytes);
  return out;
}

std::string link_arch_for_ptx(const std::string& ptx, const std::string& sass_arch) {
  // The first ".target" directive (before any code): ".target sm_90a" or ".target sm_90, debug".
  for (size_t at = ptx.find(".target"); at != std::string::npos; at = ptx.find(".target", at + 7)) {
    if (at > 0 && ptx[at - 1] != '\n' && ptx[at - 1] != ' ' && ptx[at - 1] != '\t') continue;
    size_t b = at + 7;
    while (b < ptx.size() && (ptx[b] == ' ' || ptx[b] == '\t')) ++b;
    size_t e = b;
    while (e < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[e])) || ptx[e] == '_'))
      ++e;
    const std::string target = ptx.substr(b, e - b);
    if (target.size() == sass_arch.size() + 1 && target.compare(0, sass_arch.size(), sass_arch) == 0 &&
        (target.back() == 'a' || target.back() == 'f'))
      return target;
    return sass_arch;
  }
  return sass_arch;
}

Expected<ResourceReport> Toolchain::resource_usage(const std::string& ptx, const std::string& path,
                                                   const std::string& sass_arch) const {
  const ToolchainImpl& t = *impl_;
  if (!t.jit)
    return Error{
        path, 0,
        "cannot report registers/shared memory: nvJitLink is not available (" + t.why_jit + ")"};
  // One nvJitLink compile at a time per process (warplab validate's workers share a toolchain).
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> lock(one_at_a_time);
  // PTX written for an architecture-specific target (Triton's `.target sm_90a`, wgmma code) links
  // only for that target: nvJitLink refuses sm_90a PTX asked for sm_90.
  const std::string link_arch = link_arch_for_ptx(ptx, sass_arch);
  std::string arch_opt = "-arch=" + link_arch;
  const char* opts[] = {arch_opt.c_str(), "-verbose"};
  JitHandle h = nullptr;
  if (int rc = t.jit_create(&h, 2, opts); rc != 0)
    return Error{path, 0, "nvJitLinkCreate failed (code " + std::to_string(rc) + ")"};
  auto text = [&](JitGetSize size, JitGetText get) {
    size_t n = 0;
    size(h, &n);
    std::string s(n, '\0');
    if (n) get(h, s.data());
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
  };
  std::string ptx_z = ptx;  // nvJitLink wants the terminating NUL inside `size` for PTX
  int rc = t.jit_add(h, kJitInputPtx, ptx_z.c_str(), ptx_z.size() + 1, path.c_str());
  if (rc == 0) rc = t.jit_complete(h);
  ResourceReport report;
  report.sass_arch = link_arch;
  report.info_log = text(t.jit_info_size, t.jit_info);
  if (rc != 0) {
    std::string err = text(t.jit_error_size, t.jit_error);
    t.jit_destroy(&h);
    return Error{path, 0, "nvJitLink could not compile the PTX for " + link_arch + ":\n" + err};
  }
  t.jit_destroy(&h);
  auto kernels = parse_ptxas_info(report.info_log);
  if (!kernels) return Error{path, 0, kernels.error().message};
  report.kernels = std::move(*kernels);
  return report;
}

}  // namespace warplab::lab
