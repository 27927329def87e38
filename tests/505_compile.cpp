// The compile pipeline: NVRTC (CUDA -> PTX) and nvJitLink resource usage (lab/compile.h).
// These need the CUDA 13 toolkit's libraries; without them each case skips with one MESSAGE.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>

#include "lab/compile.h"
#include "lab/experiment.h"
#include "lab/runner.h"

using namespace warplab::lab;
using warplab::Error;

namespace {
std::string data(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}

// A ptxas -v log as nvJitLink 13.0 writes it (kept verbatim: the parser must read exactly this).
const char* kLog13 =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z9block_sumPKfPfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z9block_sumPKfPfi\n"
    "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem\n"
    "ptxas info    : Compile time = 12.158 ms\n"
    "info    : 0 bytes gmem\n"
    "info    : Function properties for '_Z9block_sumPKfPfi':\n"
    "info    : used 10 registers, used 1 barriers, 0 stack, 2048 bytes smem, 548 bytes cmem[0], "
    "0 bytes lmem\n";
}  // namespace

TEST_CASE("505 compile: the ptxas info format is parsed exactly") {
  auto k = parse_ptxas_info(kLog13);
  REQUIRE_MESSAGE(k.has_value(), (k ? "" : k.error().message));
  REQUIRE(k->size() == 1);
  const KernelResources& r = (*k)[0];
  CHECK(r.kernel == "_Z9block_sumPKfPfi");
  CHECK(r.registers == 10);
  CHECK(r.barriers == 1);
  CHECK(r.static_shared_bytes == 1024);
  CHECK(r.stack_frame_bytes == 16);
  CHECK(r.local_bytes == 16);
  CHECK(r.spill_store_bytes == 8);
  CHECK(r.spill_load_bytes == 4);
  CHECK(r.const_bytes == 548);
  // A changed format fails loudly instead of reporting zero registers.
  std::string changed = kLog13;
  changed.replace(changed.find("Used 10 registers"), 17, "Regs used: 10");
  CHECK_FALSE(parse_ptxas_info(changed).has_value());
}

TEST_CASE("505 compile: NVRTC log lines become file:line") {
  int first = 0;
  std::string out = nvrtc_log_to_file_line(
      "k.cu(3): warning #177-D: variable \"q\" was declared but never referenced\n"
      "k.cu(7): error: identifier \"y\" is undefined\n\n1 error detected\n",
      &first);
  CHECK(first == 7);
  CHECK(out.find("k.cu:7: error: identifier") != std::string::npos);
  CHECK(out.find("k.cu:3: warning") != std::string::npos);
}

TEST_CASE("505 compile: an error inside an included header names the header") {
  int first = 0;
  std::string file;
  nvrtc_log_to_file_line(
      "/usr/local/cuda/include/x.h(167): catastrophic error: cannot open source file \"y\"\n"
      "k.cu(9): error: later\n",
      &first, &file);
  CHECK(first == 167);
  CHECK(file == "/usr/local/cuda/include/x.h");
}

TEST_CASE("505 compile: CUDA -> PTX with line info, and real resource usage") {
  Toolchain tc;
  if (!tc.has_nvrtc() || !tc.has_nvjitlink()) {
    MESSAGE("skipped (needs NVRTC and nvJitLink): " << tc.why_no_nvrtc() << tc.why_no_nvjitlink());
    return;
  }
  auto ptx = tc.compile_cuda_file(data("smem_reduce.cu"), {});
  REQUIRE_MESSAGE(ptx.has_value(), (ptx ? "" : ptx.error().to_string()));
  CHECK(ptx->ptx.find(".target sm_90") != std::string::npos);
  CHECK(ptx->ptx.find(".loc") != std::string::npos);  // -lineinfo
  CHECK(ptx->ptx.find(".file") != std::string::npos);
  CHECK(ptx->ptx.find("_Z9block_sumPKfPfi") != std::string::npos);

  auto res = tc.resource_usage(ptx->ptx, "smem_reduce.ptx");
  REQUIRE_MESSAGE(res.has_value(), (res ? "" : res.error().to_string()));
  INFO("nvJitLink log:\n" << res->info_log);
  REQUIRE(res->kernels.size() == 1);
  const KernelResources& k = res->kernels[0];
  // If one of these fails after a toolkit update, the log format changed: fix parse_ptxas_info.
  CHECK(k.kernel == "_Z9block_sumPKfPfi");
  CHECK(k.registers >= 4);
  CHECK(k.registers <= 64);
  CHECK(k.barriers == 1);
  CHECK(k.static_shared_bytes == 1024);  // float tile[256]
  CHECK(k.local_bytes == 0);
  CHECK(k.const_bytes > 0);
  CHECK(res->find("_Z9block_sumPKfPfi") != nullptr);
}

TEST_CASE("505 compile: compile errors are shown at file:line") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  auto r = tc.compile_cuda(
      "__global__ void k(float* p) {\n  p[0] = 1.0f;\n  p[1] = undefined_name;\n}\n", "broken.cu",
      {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().file == "broken.cu");
  CHECK(r.error().line == 3);
  CHECK(r.error().message.find("broken.cu:3: error") != std::string::npos);
  CHECK(r.error().message.find("undefined_name") != std::string::npos);
  // Options pass through: -D defines and the architecture.
  CompileOptions opt;
  opt.extra = {"-DVALUE=42"};
  opt.arch = "compute_80";
  auto d = tc.compile_cuda("__global__ void k(int* p) { p[0] = VALUE; }\n", "d.cu", opt);
  REQUIRE(d.has_value());
  CHECK(d->ptx.find("42") != std::string::npos);
  CHECK(d->ptx.find(".target sm_80") != std::string::npos);
}

TEST_CASE("505 compile: NVRTC refusing arch or an option names the experiment's line and key") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  const std::vector<int> archs = tc.supported_archs();
  CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());
  auto run = [&](const std::string& lines) {
    auto exp = parse_experiment("[experiment]\nsource = \"vec_add.cu\"\n" + lines +
                                    "\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\ncount = 4\n"
                                    "[[launches]]\nkernel = \"vec_add\"\ngrid = 1\nblock = 4\n"
                                    "args = [\"x\", \"x\", \"x\", 4]\n",
                                data("t.toml"));
    REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
    RunOptions o;
    o.resources = false;
    o.ptx_cache = false;
    Runner runner(tc, o);
    auto r = runner.run_once(*exp);
    REQUIRE_FALSE(r.has_value());
    INFO(r.error().to_string());
    CHECK(r.error().file == data("t.toml"));
    return r.error();
  };
  const Error a = run("arch = \"compute_999\"");
  CHECK(a.line == 3);
  CHECK(a.message.find("experiment.arch: NVRTC " + tc.nvrtc_version() +
                       " refused --gpu-architecture=compute_999") != std::string::npos);
  CHECK(a.message.find("expected compute_NN or sm_NN for an NN it supports") != std::string::npos);
  if (!archs.empty()) CHECK(a.message.find(std::to_string(archs.back())) != std::string::npos);
  // An option off the allow-list (lab/compile.h) is refused before NVRTC sees it; one on the list
  // with a value NVRTC refuses gets NVRTC's word.
  const Error o = run("options = [\n  \"-use_fast_math\",\n  \"-no-such-option\"]");
  CHECK(o.line == 5);
  CHECK(o.message.find("experiment.options[1] \"-no-such-option\": not an option experiments may "
                       "pass to NVRTC") != std::string::npos);
  const Error f = run("options = [\n  \"-use_fast_math\",\n  \"-ftz=maybe\"]");
  CHECK(f.line == 5);
  CHECK(f.message.find("experiment.options[1] \"-ftz=maybe\": NVRTC") != std::string::npos);
  CHECK(f.message.find("expected an option NVRTC takes") != std::string::npos);
}

TEST_CASE("505 compile: the toolchain turns the CUDA JIT cache off unless the user chose") {
  // With the driver's compute cache on, nvJitLink leaves a cached kernel out of ptxas's report
  // (registers, shared memory): a Toolchain sets CUDA_CACHE_DISABLE=1 when it is unset, and
  // leaves a value the user set.
  unsetenv("CUDA_CACHE_DISABLE");
  { Toolchain t; }
  REQUIRE(getenv("CUDA_CACHE_DISABLE") != nullptr);
  CHECK(std::string(getenv("CUDA_CACHE_DISABLE")) == "1");
  setenv("CUDA_CACHE_DISABLE", "0", 1);
  { Toolchain t; }
  CHECK(std::string(getenv("CUDA_CACHE_DISABLE")) == "0");
  setenv("CUDA_CACHE_DISABLE", "1", 1);
}
