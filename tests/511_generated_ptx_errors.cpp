// Errors about PTX that NVRTC generated (it exists only in memory): they name the CUDA line (from
// the .loc directives), the PTX line, and the experiment line that asked for the kernel; and a
// kernel the simulator cannot run does not stop the other kernels of its module.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lab/compile.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {
std::string data(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}

// NVRTC's layout: .loc lines in the code, the .file table at the end; code inlined from a header
// has a .loc in the header with `inlined_at` the user's line.
const char* kPtx =
    ".version 8.0\n"                                                       // 1
    ".visible .entry k()\n"                                                // 2
    "{\n"                                                                  // 3
    "\t.loc\t1 7 3\n"                                                      // 4
    "\tmov.u32 %r1, 1;\n"                                                  // 5
    "\t.loc\t2 397 9, function_name $L__info_string0, inlined_at 1 9 5\n"  // 6
    "\tmov.u32 %r2, %envreg2;\n"                                           // 7
    "\t.loc\t2 12 1\n"                                                     // 8
    "\tret;\n"                                                             // 9
    "}\n"                                                                  // 10
    "\t.file\t1 \"/somewhere/else/kern.cu\"\n"                             // 11
    "\t.file\t2 \"/usr/local/cuda/include/cooperative_groups.h\"\n";       // 12
}  // namespace

TEST_CASE("511 the CUDA line of a PTX line: own .loc, inlined_at, header lines keep the last") {
  CHECK(cuda_line_of_ptx_line(kPtx, 3, "kern.cu") == 0);
  CHECK(cuda_line_of_ptx_line(kPtx, 5, "kern.cu") == 7);
  CHECK(cuda_line_of_ptx_line(kPtx, 7, "kern.cu") == 9);  // inlined from the header at line 9
  CHECK(cuda_line_of_ptx_line(kPtx, 9, "kern.cu") == 9);  // a header line without inlined_at
  CHECK(cuda_line_of_ptx_line(kPtx, 7, "other.cu") == 0);
}

TEST_CASE("511 errors in generated PTX name the CUDA file and line, then the PTX line") {
  const Error e{"kern.cu.ptx", 7, "'%envreg2' is not supported"};
  const Error n = error_in_generated_ptx(e, kPtx, "kern.cu.ptx", "kern.cu");
  CHECK(n.file == "kern.cu");
  CHECK(n.line == 9);
  CHECK(n.message.find("PTX line 7 ") == 0);
  CHECK(n.message.find("'%envreg2' is not supported") != std::string::npos);
  // An error about another file (the experiment, a real .ptx file) is left as it is.
  const Error other{"exp.toml", 3, "x"};
  CHECK(error_in_generated_ptx(other, kPtx, "kern.cu.ptx", "kern.cu").to_string() ==
        other.to_string());
}

TEST_CASE("511 one module: the runnable kernel runs; the others are refused with all three lines") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  RunOptions opt;
  opt.resources = false;
  opt.mode = SimMode::Functional;
  {
    auto exp = load_experiment(data("mixed_module_good.toml"));
    REQUIRE(exp);
    Runner runner(tc, opt);
    auto r = runner.run_once(*exp);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    const HostBuffer& out = r->buffers[0];
    for (uint64_t t = 0; t < 64; ++t) CHECK(out.at(t) == double(t % 32 + 32));
  }
  struct Case {
    const char* toml;
    int cuda_line;
    const char* words;
  };
  // fib is recursive: it runs, in both modes (tests/272_recursion.cpp has the details).
  for (SimMode mode : {SimMode::Functional, SimMode::Timing}) {
    RunOptions o = opt;
    o.mode = mode;
    auto exp = load_experiment(data("mixed_module_recursive.toml"));
    REQUIRE(exp);
    Runner runner(tc, o);
    auto r = runner.run_once(*exp);
    REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
    REQUIRE(r->launches.size() == 1);
    REQUIRE_MESSAGE(!r->launches[0].fault,
                    (r->launches[0].fault ? r->launches[0].fault->message : ""));
    const HostBuffer& out = r->buffers[0];
    const auto fib = [](int n) {
      int a = 0, b = 1;
      for (int i = 0; i < n; ++i) b += a, a = b - a;
      return a;
    };
    for (uint64_t t = 0; t < 64; ++t) CHECK(out.at(t) == double(fib(int(t % 8))));
  }
  for (const Case& c : {Case{"mixed_module_recursive_local.toml", 22,
                             "function '_Z6digitsi' (called from kernel 'recursive_local') is "
                             "recursive and keeps .local memory"},
                        Case{"mixed_module_grid_sync.toml", 15,
                             "cooperative launches and grid-wide sync are not supported"}}) {
    auto exp = load_experiment(data(c.toml));
    REQUIRE(exp);
    Runner runner(tc, opt);
    auto r = runner.run_once(*exp);
    REQUIRE(!r);
    const std::string e = r.error().to_string();
    INFO(e);
    CHECK(r.error().file == data(c.toml));
    CHECK(r.error().line == 11);  // the launch's `kernel =` line
    CHECK(e.find("launches[0].kernel: " + data("mixed_module.cu") + ":" +
                 std::to_string(c.cuda_line) + ": PTX line ") != std::string::npos);
    CHECK(e.find(c.words) != std::string::npos);
    CHECK(e.find(".cu.ptx:") == std::string::npos);  // never a file that does not exist
  }
}

TEST_CASE(
    "511 PTX NVRTC generated that WarpLab cannot parse: the source line, CUDA and PTX lines") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  // NVRTC passes inline assembly through unchecked; the module's PTX is malformed (on a GPU the
  // whole module would fail to load too).
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("warplab_511_asm_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "asm.cu") << "extern \"C\" __global__ void good(int* o) { o[0] = 1; }\n"
                                   "extern \"C\" __global__ void bad(int* o) {\n"
                                   "  asm volatile(\"mov.u32 %%r1, ;\");\n"
                                   "  o[0] = 2;\n"
                                   "}\n";
  auto exp = parse_experiment(
      "[experiment]\nsource = \"asm.cu\"\n[[buffers]]\nname = \"o\"\ntype = \"i32\"\ncount = 1\n"
      "[[launches]]\nkernel = \"good\"\ngrid = 1\nblock = 1\nargs = [\"o\"]\n",
      (dir / "asm.toml").string());
  REQUIRE_MESSAGE(exp, (exp ? "" : exp.error().to_string()));
  RunOptions opt;
  opt.resources = false;
  opt.ptx_cache = false;
  Runner runner(tc, opt);
  auto r = runner.run_once(*exp);
  std::filesystem::remove_all(dir);
  REQUIRE(!r);
  const std::string e = r.error().to_string();
  INFO(e);
  CHECK(r.error().file == (dir / "asm.toml").string());
  CHECK(r.error().line == 2);  // source = "asm.cu"
  CHECK(e.find("experiment.source: " + (dir / "asm.cu").string() + ":3: PTX line ") !=
        std::string::npos);
  CHECK(e.find(".cu.ptx:") == std::string::npos);
}
