// Grading as a security boundary (lab/sandbox.h, lab/grade.h): a submission's compile reads only
// the CUDA toolkit and the submission, every escape fails with a message that quotes nothing of the
// host, NVRTC options come from an allow-list, and grading has wall-clock budgets and read-only
// inputs. Cases that compile need NVRTC (skipped with a MESSAGE without it); the escapes need
// Landlock (without it the test checks that the compile is refused).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/compile.h"
#include "lab/experiment.h"
#include "lab/grade.h"
#include "lab/runner.h"
#include "lab/sandbox.h"

using namespace warplab::lab;
using warplab::Expected;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system's temporary directory, removed at the end of the case.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "warplab-520-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

std::string slurp(const std::string& p, size_t max = 4096) {
  std::ifstream in(p, std::ios::binary);
  std::string s(max, '\0');
  in.read(s.data(), static_cast<std::streamsize>(max));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

// Lines of a host file long enough to be recognised if they leaked (first few only).
std::vector<std::string> host_strings(const std::string& p) {
  std::vector<std::string> out;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line) && out.size() < 4;) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.size() >= 6) out.push_back(line);
  }
  return out;
}

const char* kSecret = "warplab-520-secret-7f3a9c";

std::string repo(const std::string& rel) { return std::string(WARPLAB_SOURCE_DIR) + "/" + rel; }

bool have_nvrtc(const Toolchain& tc) {
  if (tc.has_nvrtc()) return true;
  MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
  return false;
}

// Compiles `source` (written as `name` in `dir`) in the sandbox; the folder is readable only when
// `folder_readable` (as `run --sandbox` allows), else only the file (as `grade` does).
Expected<CompiledPtx> sandboxed(const Toolchain& tc, const TempDir& dir, const std::string& name,
                                const std::string& source, bool folder_readable = false,
                                double wall = 20, double cpu = 15) {
  const std::string path = dir.write(name, source);
  CompileOptions o;
  SandboxPolicy p;
  if (folder_readable)
    p.read_dirs = {dir.path.string()};
  else
    p.read_files = {path};
  p.wall_seconds = wall;
  p.cpu_seconds = cpu;
  o.sandbox = p;
  return tc.compile_cuda_file(path, o);
}

// Everything a student would see of a failed compile.
std::string shown(const Expected<CompiledPtx>& r) { return r ? r->log : r.error().to_string(); }

void check_quotes_nothing(const std::string& text, const std::vector<std::string>& secrets) {
  for (const std::string& s : secrets) {
    INFO("leaked: " << s);
    CHECK(text.find(s) == std::string::npos);
  }
}

}  // namespace

TEST_CASE("520 sandbox: the log a student sees hides other files' lines and paths") {
  const std::vector<std::string> allowed = {"/work/sub/k.cu", "/usr/local/cuda/include"};
  const std::string log =
      "/work/sub/k.cu:3: error: identifier \"x\" is undefined\n"
      "/etc/passwd:1: error: identifier \"root\" is undefined\n"
      "  root:x:0:0:root\n"
      "  ^\n"
      "/work/sub/k.cu:1: catastrophic error: cannot open source file \"/etc/shadow\"\n"
      "/usr/local/cuda/include/cuda_fp16.h:10: warning: something\n"
      "/work/sub/../other/ref.cu:2: error: leaked line\n"
      "/home/a user/secret: notes.h:4: error: leaked too\n";
  const std::string out = redact_compile_log(log, allowed);
  CHECK(out.find("/work/sub/k.cu:3: error: identifier \"x\" is undefined") != std::string::npos);
  CHECK(out.find("root") == std::string::npos);
  CHECK(out.find("/etc/passwd") == std::string::npos);
  CHECK(out.find("/etc/shadow") == std::string::npos);
  CHECK(out.find("cannot open source file \"<outside the submission>\"") != std::string::npos);
  CHECK(out.find("cuda_fp16.h:10: warning") != std::string::npos);
  CHECK(out.find("leaked line") == std::string::npos);
  CHECK(out.find("leaked too") == std::string::npos);
}

TEST_CASE("520 sandbox: NVRTC options come from an allow-list") {
  const std::string folder = repo("tests/data");
  for (const char* ok :
       {"-DTILE=16", "-UNDEBUG", "-use_fast_math", "--fmad=false", "-ftz=true", "-prec-div=false",
        "-prec-sqrt=true", "-lineinfo", "-std=c++20", "-maxrregcount=64", "-restrict",
        "-default-device", "--extra-device-vectorization", "-Igrade", "--include-path=format"}) {
    INFO(ok);
    CHECK(nvrtc_option_problem(ok, folder).empty());
  }
  for (const char* bad : {"--pre-include=/etc/hostname", "-include=/etc/passwd", "-I/etc",
                          "-I../../..", "--include-path=/", "--dopt=on", "-time=/tmp/x", "--pch",
                          "-fdevice-time-trace=/tmp/t", "-no-such-option", "-ftz"}) {
    INFO(bad);
    CHECK_FALSE(nvrtc_option_problem(bad, folder).empty());
  }
  // From an experiment: refused before NVRTC runs, at the option's own line.
  TempDir dir;
  dir.write("k.cu", "extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n");
  const std::string toml_path = (dir.path / "e.toml").string();
  auto exp = parse_experiment(
      "[experiment]\nsource = \"k.cu\"\noptions = [\n  \"-use_fast_math\",\n"
      "  \"--pre-include=/etc/hostname\"]\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\n"
      "count = 4\n[[launches]]\nkernel = \"k\"\ngrid = 1\nblock = 1\nargs = [\"x\"]\n",
      toml_path);
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  Toolchain tc;
  RunOptions o;
  o.resources = false;
  o.ptx_cache = false;
  Runner runner(tc, o);
  auto r = runner.run_once(*exp);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().file == toml_path);
  CHECK(r.error().line == 5);
  CHECK(r.error().message.find("experiment.options[1] \"--pre-include=/etc/hostname\"") !=
        std::string::npos);
  check_quotes_nothing(r.error().to_string(), host_strings("/etc/hostname"));
}

TEST_CASE("520 sandbox: a plain kernel compiles in the sandbox, never through the PTX cache") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  TempDir dir, cache;
  const std::string path =
      dir.write("ok.cu", "extern \"C\" __global__ void k(float* x) { x[0] = 3; }\n");
  CompileOptions o;
  o.cache_dir = cache.path.string();
  SandboxPolicy p;
  p.read_files = {path};
  o.sandbox = p;
  if (landlock_abi() == 0) {
    auto r = tc.compile_cuda_cached(path, o);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("--allow-unsandboxed") != std::string::npos);
    MESSAGE("skipped the rest (needs Landlock): " << why_no_landlock());
    return;
  }
  for (int i = 0; i < 2; ++i) {
    auto r = tc.compile_cuda_cached(path, o);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    CHECK(r->ptx.find(".visible .entry k(") != std::string::npos);
    CHECK_FALSE(r->from_cache);
  }
  CHECK(fs::is_empty(cache.path));
}

TEST_CASE("520 sandbox: every escape fails and quotes nothing of the host") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  if (landlock_abi() == 0) {
    TempDir dir;
    auto r = sandboxed(tc, dir, "k.cu", "#include </etc/passwd>\n");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("refusing to compile untrusted source") != std::string::npos);
    MESSAGE("skipped the escapes (needs Landlock): " << why_no_landlock());
    return;
  }
  setenv("WARPLAB_520_SECRET", kSecret, 1);
  const std::string kernel = "\nextern \"C\" __global__ void k(float* x) { x[0] = 1; }\n";
  std::vector<std::string> host = {kSecret, "__compile-sandbox", "tile[32][33]",
                                   "Reference solution"};
  for (const char* f : {"/etc/passwd", "/etc/shadow", "/etc/hostname"})
    for (const std::string& s : host_strings(f)) host.push_back(s);
  const std::string cwd = fs::current_path().string();
  struct Case {
    const char* what;
    std::string source;
  };
  const std::vector<Case> cases = {
      {"the reference through /proc/self/cwd",
       "#include \"/proc/self/cwd/lessons/assignments/transpose/reference.cu\"\n"},
      {"the reference by its path",
       "#include \"" + repo("lessons/assignments/transpose/reference.cu") + "\"\n"},
      {"/etc/passwd", "#include </etc/passwd>\n" + kernel},
      {"/etc/shadow", "#include </etc/shadow>\n" + kernel},
      {"/proc/self/environ", "#include \"/proc/self/environ\"\n" + kernel},
      {"/proc/self/cmdline", "#include \"/proc/self/cmdline\"\n" + kernel},
      {"/etc/hostname", "#include \"/etc/hostname\"\n" + kernel},
      {"a file that does not exist", "#include \"/etc/warplab-no-such-file\"\n" + kernel},
      {"a path built by macros",
       "#define S(x) #x\n#define P(a, b) S(/a/b)\n#include P(etc, passwd)\n" + kernel},
      {"a relative path up the tree", "#include \"../../../../../../../etc/passwd\"\n" + kernel},
  };
  TempDir dir;
  for (const Case& c : cases) {
    INFO(c.what);
    auto r = sandboxed(tc, dir, "k.cu", c.source);
    REQUIRE_FALSE(r.has_value());
    const std::string text = shown(r);
    INFO(text);
    CHECK(text.find("cannot open source file") != std::string::npos);
    check_quotes_nothing(text, host);
    // Whether the file exists is not told either.
    CHECK(text.find("Permission denied") == std::string::npos);
    CHECK(text.find("No such file") == std::string::npos);
  }
  // __has_include cannot tell a host file that exists from one that does not.
  {
    auto r = sandboxed(tc, dir, "probe.cu",
                       "#if __has_include(\"/etc/passwd\") || __has_include(</etc/hostname>) || "
                       "__has_include(\"" +
                           repo("lessons/assignments/transpose/reference.cu") +
                           "\")\n#error FOUND_A_HOST_FILE\n#endif\n" + kernel);
    CHECK_MESSAGE(r.has_value(), shown(r));
  }
  // A link in the submission's folder to a file outside it (the folder readable, as with
  // `run --sandbox`): the link is followed and the target refused.
  {
    fs::create_symlink("/etc/passwd", dir.path / "passwd.h");
    fs::create_symlink(repo("lessons/assignments/transpose/reference.cu"), dir.path / "ref.cu");
    for (const char* inc : {"passwd.h", "ref.cu"}) {
      INFO(inc);
      auto r =
          sandboxed(tc, dir, "link.cu", std::string("#include \"") + inc + "\"\n" + kernel, true);
      REQUIRE_FALSE(r.has_value());
      const std::string text = shown(r);
      INFO(text);
      CHECK(text.find("cannot open source file") != std::string::npos);
      check_quotes_nothing(text, host);
    }
  }
  unsetenv("WARPLAB_520_SECRET");
  (void)cwd;
}

TEST_CASE("520 sandbox: a FIFO include and a macro bomb are stopped by the limits") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  if (landlock_abi() == 0) {
    MESSAGE("skipped (needs Landlock): " << why_no_landlock());
    return;
  }
  TempDir dir;
  REQUIRE(mkfifo((dir.path / "pipe.h").c_str(), 0600) == 0);
  auto t0 = std::chrono::steady_clock::now();
  auto r = sandboxed(tc, dir, "fifo.cu", "#include \"pipe.h\"\n", true, 3, 3);
  const double fifo_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("wall-clock") != std::string::npos);
  CHECK(fifo_s < 10);
  // 2^40 tokens: stopped by the CPU or memory limit, with the limit in words.
  std::string bomb = "#define A0 x x\n";
  for (int i = 1; i <= 40; ++i)
    bomb += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" +
            std::to_string(i - 1) + "\n";
  bomb += "int v = A40;\n";
  t0 = std::chrono::steady_clock::now();
  auto b = sandboxed(tc, dir, "bomb.cu", bomb, false, 4, 2);
  const double bomb_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_FALSE(b.has_value());
  INFO(b.error().message);
  CHECK(b.error().message.find("CUDA compile stopped") != std::string::npos);
  CHECK(b.error().message.find("limits: 4 s wall clock, 2 s CPU") != std::string::npos);
  CHECK(bomb_s < 12);
}

namespace {

// A one-test transpose assignment in `dir` (the shipped experiment and reference).
Assignment transpose_assignment(const TempDir& dir, const std::string& extra = "") {
  const std::string path = dir.write(
      "assignment.toml",
      "[assignment]\nname = \"transpose\"\nkernel = \"transpose\"\n"
      "signature = 'extern \"C\" __global__ void transpose(const float* in, float* out, int rows, "
      "int cols)'\nreference = \"" +
          repo("lessons/assignments/transpose/reference.cu") + "\"\nexperiment = \"" +
          repo("lessons/assignments/transpose/experiment.toml") + "\"\noutputs = [\"out\"]\n" +
          extra + "\n[[tests]]\nname = \"small\"\nset = { rows = 33, cols = 65 }\n");
  auto a = load_assignment(path);
  REQUIRE_MESSAGE(a.has_value(), (a ? "" : a.error().to_string()));
  return *a;
}

}  // namespace

TEST_CASE("520 grade: the reference pulled in through /proc/self/cwd does not grade") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  if (landlock_abi() == 0) {
    MESSAGE("skipped (needs Landlock): " << why_no_landlock());
    return;
  }
  TempDir dir;
  const Assignment a = transpose_assignment(dir);
  const std::string sub = dir.write(
      "student.cu", "#include \"/proc/self/cwd/lessons/assignments/transpose/reference.cu\"\n");
  auto g = grade(a, sub);
  REQUIRE_FALSE(g.has_value());  // a compile error: bad input
  CHECK(g.error().file == sub);
  check_quotes_nothing(g.error().to_string(), {"tile[32][33]", "Reference solution"});
}

TEST_CASE("520 grade: a slow submission times out within the budget, scored as failing") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  if (landlock_abi() == 0) {
    MESSAGE("skipped (needs Landlock): " << why_no_landlock());
    return;
  }
  TempDir dir;
  // A correct transpose with a long loop that stays inside max_instructions.
  const Assignment a = transpose_assignment(dir, "max_instructions = 0\nmax_cycles = 0");
  const std::string sub = dir.write(
      "slow.cu",
      "extern \"C\" __global__ void transpose(const float* in, float* out, int rows, int cols) {\n"
      "  unsigned h = threadIdx.x;\n"
      "  for (int i = 0; i < 20000000; ++i) h = h * 1664525u + 1013904223u;\n"
      "  if (h == 12345u) return;\n"
      "  const int x = blockIdx.x * 32 + threadIdx.x;\n"
      "  for (int j = threadIdx.y; j < 32; j += 8) {\n"
      "    const int y = blockIdx.y * 32 + j;\n"
      "    if (x < cols && y < rows) out[(long)x * rows + y] = in[(long)y * cols + x];\n"
      "  }\n"
      "}\n");
  GradeOptions o;
  o.test_time_limit = 2;
  o.total_time_limit = 30;
  const auto t0 = std::chrono::steady_clock::now();
  auto g = grade(a, sub, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_MESSAGE(g.has_value(), (g ? "" : g.error().to_string()));
  CHECK(s < 20);
  CHECK(g->timeouts == 1);
  CHECK_FALSE(g->correct);
  CHECK(g->score == 0);
  REQUIRE(g->tests.size() == 1);
  CHECK(g->tests[0].timed_out);
  CHECK(g->tests[0].detail.find("TIMEOUT") != std::string::npos);
  CHECK(g->tests[0].detail.find("test_time_limit = 2 s") != std::string::npos);
  CHECK(g->line().find("timeouts=1") != std::string::npos);
  // The total budget: spent before the test starts, the test is not run at all.
  o.total_time_limit = 0.001;
  auto none = grade(a, sub, o);
  REQUIRE(none.has_value());
  CHECK(none->timeouts == 1);
  CHECK(none->tests[0].detail.find("total time limit") != std::string::npos);
}

TEST_CASE("520 grade: a kernel that writes its const input is not graded correct") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  if (landlock_abi() == 0) {
    MESSAGE("skipped (needs Landlock): " << why_no_landlock());
    return;
  }
  TempDir dir;
  const Assignment a = transpose_assignment(dir);
  CHECK(input_buffers(a, *load_experiment(a.experiment)) == std::vector<std::string>{"in"});
  // Writes the input, then reads back what it wrote: the output is right, the input is not.
  const std::string sub = dir.write(
      "writes_input.cu",
      "extern \"C\" __global__ void transpose(const float* in, float* out, int rows, int cols) {\n"
      "  float* w = const_cast<float*>(in);\n"
      "  const int x = blockIdx.x * 32 + threadIdx.x;\n"
      "  for (int j = threadIdx.y; j < 32; j += 8) {\n"
      "    const int y = blockIdx.y * 32 + j;\n"
      "    if (x < cols && y < rows) {\n"
      "      w[(long)y * cols + x] = in[(long)y * cols + x] + 100.0f;\n"
      "      out[(long)x * rows + y] = w[(long)y * cols + x] - 100.0f;\n"
      "    }\n"
      "  }\n"
      "}\n");
  auto g = grade(a, sub);
  REQUIRE_MESSAGE(g.has_value(), (g ? "" : g.error().to_string()));
  CHECK_FALSE(g->correct);
  REQUIRE(g->tests.size() == 1);
  CHECK_FALSE(g->tests[0].passed);
  CHECK(g->tests[0].detail.find("input 'in' was changed by your kernel") != std::string::npos);
  // The shipped slow-but-correct submission still passes (inputs untouched).
  auto ok = grade(a, repo("tests/data/grade/transpose/slow.cu"));
  REQUIRE_MESSAGE(ok.has_value(), (ok ? "" : ok.error().to_string()));
  CHECK(ok->correct);
  CHECK(ok->tests[0].passed);
}

TEST_CASE("520 sandbox: the child starts with a fixed environment, its limits and no network") {
  Toolchain tc;
  if (!have_nvrtc(tc)) return;
  // A stand-in helper (a shell script) reports what it was started with, as a compile error.
  TempDir dir;
  const std::string helper = dir.write(
      "helper.sh",
      "#!/bin/sh\n"
      "cat <&3 >/dev/null\n"
      "msg=\"$(env | sort; echo \"cpu=$(ulimit -t) as=$(ulimit -v) nofile=$(ulimit -n) "
      "core=$(ulimit -c)\"; grep NoNewPrivs /proc/self/status; echo args=\"$0 $*\"; "
      "echo net=$(awk -F: 'NR > 2 { print $1 }' /proc/net/dev | tr -d ' ' | tr '\\n' ' '))\"\n"
      "printf '7\\ncompile\\n0\\n\\n1\\n0\\n%d\\n%s\\n' \"$(printf '%s' \"$msg\" | wc -c)\" "
      "\"$msg\" >&3\n");
  fs::permissions(helper, fs::perms::owner_all);
  setenv("WARPLAB_520_SECRET", kSecret, 1);
  CompileOptions o;
  SandboxPolicy p;
  p.helper = helper;
  p.allow_unconfined = true;  // the script does not confine itself; what it reports is the point
  p.cpu_seconds = 7;
  p.memory_bytes = 3ull << 30;
  p.open_files = 32;
  o.sandbox = p;
  auto r = tc.compile_cuda("__global__ void k() {}\n", (dir.path / "k.cu").string(), o);
  unsetenv("WARPLAB_520_SECRET");
  REQUIRE_FALSE(r.has_value());
  const std::string said = r.error().message;
  INFO(said);
  CHECK(said.find(kSecret) == std::string::npos);
  CHECK(said.find("WARPLAB_520_SECRET") == std::string::npos);
  CHECK(said.find("PATH=/usr/bin:/bin") != std::string::npos);
  CHECK(said.find("CUDA_CACHE_DISABLE=1") != std::string::npos);
  CHECK(said.find("cpu=7 as=3145728 nofile=32 core=0") != std::string::npos);
  CHECK(said.find("NoNewPrivs:\t1") != std::string::npos);
  CHECK(said.find("__compile-sandbox") != std::string::npos);
  // A new network namespace holds only the loopback device (where unshare is permitted).
  // A new network namespace holds only the loopback device (root may always make one).
  const size_t net = said.find("net=");
  const std::string devices =
      net == std::string::npos ? "" : said.substr(net + 4, said.find('\n', net) - net - 4);
  if (geteuid() == 0)
    CHECK(devices == "lo");
  else if (devices != "lo")
    MESSAGE("this host did not allow a network namespace; Landlock's TCP rules apply instead");
}
