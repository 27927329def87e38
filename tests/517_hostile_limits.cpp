// Hostile input that used to hang, abort or be taken as something else (issue 21): loops and
// repeats without bound, launch shapes and memset values CUDA refuses, negative counts on the
// command line, empty or binary PTX, non-finite tolerances, presets past any GPU, endless or
// huge input files, invalid UTF-8 in --json output, and --dump / --json writes into a folder
// with planted links, from concurrent runs, or interrupted. Each is exit 2 with file:line (or
// the flag), or, for the writes, a whole file in the right place and nothing written elsewhere.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "50x_cli.h"
#include "lab/grade.h"
#include "lab/npy.h"
#include "sim/timing/config.h"

namespace {

namespace fs = std::filesystem;
using Outcome = warplab::test::CliOutcome;

Outcome run_cli(const std::string& args) { return warplab::test::run_warplab(args, "517"); }

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("warplab_517_files_" + std::to_string(getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
  std::string read(const std::string& name) const {
    std::stringstream ss;
    ss << std::ifstream(dir / name, std::ios::binary).rdbuf();
    return ss.str();
  }
};

// k(out, n): thread 0 writes n to out[0].
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

// An experiment on kPtx (k.ptx); `launch` is added to its [[launches]] entry from line 13 on.
std::string experiment(const std::string& launch, const std::string& buffer_type = "u32") {
  return "[experiment]\n"                       // 1
         "name = \"limits\"\n"                  // 2
         "ptx = \"k.ptx\"\n"                    // 3
         "[params]\n"                           // 4
         "N = 7\n"                              // 5
         "[[buffers]]\n"                        // 6
         "name = \"out\"\n"                     // 7
         "type = \"" + buffer_type + "\"\n"     // 8
         "count = 4\n"                          // 9
         "[[launches]]\n"                       // 10
         "kernel = \"k\"\n"                     // 11
         "args = [\"out\", \"N\"]\n"            // 12
         + launch + "\n";                       // 13 on
}

}  // namespace

TEST_CASE("517 a for over an empty inner range and a huge repeat are refused with their line") {
  Scratch s;
  s.write("k.ptx", kPtx);
  // The inner range is empty, so no launch is ever planned: the outer loop still has to end.
  const std::string empty_inner = s.write(
      "empty.toml", experiment("grid = 1\nblock = 1\nfor = { i = { from = 0, to = "
                               "4611686018427387904 }, j = { from = 1, to = 0 } }"));
  const auto t0 = std::chrono::steady_clock::now();
  Outcome o = run_cli("run " + empty_inner + " --mode functional -q");
  CHECK(o.status == 2);
  CHECK(o.err.find("empty.toml:15: launches[0].for.i: more than") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60));
  const std::string rep =
      s.write("rep.toml", experiment("grid = 1\nblock = 1\nrepeat = 1099511627776"));
  Outcome r = run_cli("run " + rep + " --mode functional -q");
  CHECK(r.status == 2);
  CHECK(r.err.find("rep.toml:10: launches[0].repeat = 1099511627776 is more than 1000000") !=
        std::string::npos);
}

TEST_CASE("517 launch shapes past CUDA's limits and a memset value the type cannot hold: exit 2") {
  Scratch s;
  s.write("k.ptx", kPtx);
  struct Case {
    std::string launch, want;
  };
  for (const Case& c : {Case{"grid = [1, 65536, 1]\nblock = 1", "grid[1] = 65536"},
                        Case{"grid = [1, 1, 65536]\nblock = 1", "grid[2] = 65536"},
                        Case{"grid = 1\nblock = [1, 1, 65]", "block[2] = 65"}}) {
    CAPTURE(c.launch);
    Outcome o = run_cli("run " + s.write("g.toml", experiment(c.launch)) + " --mode functional");
    CHECK(o.status == 2);
    CHECK(o.err.find("g.toml:10: launches[0]." + c.want) != std::string::npos);
  }
  // The largest legal shape along y is accepted (one thread per block, 65535 blocks).
  CHECK(run_cli("run " + s.write("ok.toml", experiment("grid = [1, 65535, 1]\nblock = 1")) +
                " --mode functional -q")
            .status == 0);
  const std::string memset = "grid = 1\nblock = 1\n[[launches]]\nmemset = \"out\"\nvalue = ";
  Outcome bad = run_cli("run " + s.write("m.toml", experiment(memset + "-2", "u8")) +
                        " --mode functional -q");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("m.toml:15: launches[1].value = -2 is not a u8 value") != std::string::npos);
  // -1 stays the all-ones fill of an unsigned buffer; 255 fits a u8.
  for (const char* v : {"-1", "255"})
    CHECK(run_cli("run " + s.write("m.toml", experiment(memset + v, "u8")) +
                  " --mode functional -q")
              .status == 0);
}

TEST_CASE("517 negative counts on the command line and empty or binary PTX are bad input") {
  Scratch s;
  s.write("k.ptx", kPtx);
  const std::string exp = s.write("e.toml", experiment("grid = 1\nblock = 1"));
  for (const char* flag : {"--trace-launch -1", "--max-instructions -1", "--max-cycles -1"}) {
    CAPTURE(flag);
    Outcome o = run_cli("run " + exp + " -q " + flag);
    CHECK(o.status == 2);
    CHECK(o.err.find("expected a whole number >= 0, got -1") != std::string::npos);
  }
  Outcome empty = run_cli("ptx " + s.write("empty.ptx", ""));
  CHECK(empty.status == 2);
  CHECK(empty.err.find("empty.ptx: empty PTX file") != std::string::npos);
  Outcome nul = run_cli("ptx " + s.write("nul.ptx", std::string("\0.version 8.0\n", 14)));
  CHECK(nul.status == 2);
  CHECK(nul.err.find("nul.ptx:1: a NUL byte") != std::string::npos);
}

TEST_CASE("517 an assignment's tolerances must be finite and not negative") {
  Scratch s;
  const fs::path src = fs::path(WARPLAB_SOURCE_DIR) / "lessons/assignments/transpose";
  for (const char* f : {"reference.cu", "experiment.toml"})
    fs::copy_file(src / f, s.dir / f, fs::copy_options::overwrite_existing);
  std::stringstream ss;
  ss << std::ifstream(src / "assignment.toml").rdbuf();
  const std::string good = ss.str();
  REQUIRE(good.find("atol = 0\n") != std::string::npos);
  REQUIRE(warplab::lab::load_assignment(s.write("assignment.toml", good)));
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"atol = 0\n", "atol = nan\n"},
                                 {"rtol = 0\n", "rtol = inf\n"},
                                 {"atol = 0\n", "atol = -inf\n"}}) {
    CAPTURE(to);
    std::string text = good;
    const size_t at = text.find(from);
    text.replace(at, from.size(), to);
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
    auto a = warplab::lab::load_assignment(s.write("assignment.toml", text));
    REQUIRE_FALSE(a);
    CHECK(a.error().line == line);
    CHECK(a.error().message.find("must be finite") != std::string::npos);
  }
}

TEST_CASE("517 presets past any GPU's physical range are refused at their line") {
  const std::string dir = warplab::timing::default_config_dir();
  std::stringstream ss;
  ss << std::ifstream(dir + "/h100-sxm.toml").rdbuf();
  const std::string h100 = ss.str();
  REQUIRE(warplab::timing::parse_config(h100, "h100.toml", dir));
  struct Case {
    std::string section, key, value;
  };
  for (const Case& c : {Case{"[core]", "sm_count", "100_000_000"},
                        Case{"[core]", "max_warps_per_sm", "2_000_000_000"},
                        Case{"[l2]", "size_bytes", "1_099_511_627_776"},
                        Case{"[dram]", "t_rcd", "9_000_000_000_000_000"}}) {
    CAPTURE(c.key);
    // Set the key inside its section (replacing its line).
    std::string text = h100;
    const size_t sec = text.find("\n" + c.section + "\n");
    REQUIRE(sec != std::string::npos);
    const size_t at = text.find("\n" + c.key + " = ", sec);
    REQUIRE(at != std::string::npos);
    const size_t end = text.find('\n', at + 1);
    text.replace(at + 1, end - at - 1, c.key + " = " + c.value);
    const int line = 2 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
    auto cfg = warplab::timing::parse_config(text, "big.toml", dir);
    REQUIRE_FALSE(cfg);
    CHECK(cfg.error().line == line);
    CHECK(cfg.error().message.find("outside the physical range") != std::string::npos);
  }
}

TEST_CASE("517 a device, a huge file or a huge .npy that is none is refused before it is read") {
  Scratch s;
  s.write("k.ptx", kPtx);
  const std::string exp = s.write("e.toml", experiment("grid = 1\nblock = 1"));
  Outcome zero = run_cli("run " + exp + " -q --config /dev/zero");
  CHECK(zero.status == 2);
  CHECK(zero.err.find("/dev/zero: --config: preset file: not a regular file") !=
        std::string::npos);
  // Sparse files: 64 GiB on the file system's books, nothing on disk.
  const fs::path big = s.dir / "big.toml";
  std::ofstream(big).put('#');
  fs::resize_file(big, uint64_t{64} << 30);
  Outcome huge = run_cli("run " + big.string());
  CHECK(huge.status == 2);
  CHECK(huge.err.find("the experiment file is 64 GiB, more than the 256 MiB WarpLab reads") !=
        std::string::npos);
  const fs::path junk = s.dir / "junk.npy";
  std::ofstream(junk) << "not a numpy file";
  fs::resize_file(junk, uint64_t{64} << 30);
  auto a = warplab::lab::read_npy(junk.string());
  REQUIRE_FALSE(a);
  CHECK(a.error().message.find("missing the \\x93NUMPY magic") != std::string::npos);
  const fs::path npy = s.dir / "big.npy";
  std::ofstream(npy, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8);
  fs::resize_file(npy, uint64_t{64} << 30);
  auto b = warplab::lab::read_npy(npy.string());
  REQUIRE_FALSE(b);
  CHECK(b.error().message.find("is 64 GiB, more than the 4 GiB") != std::string::npos);
}

TEST_CASE("517 --json with invalid UTF-8 in a file name writes U+FFFD, not an abort") {
  Scratch s;
  s.write("k.ptx", kPtx);
  const std::string name = "bad\xff\xfe.toml";
  s.write(name, experiment("grid = 1\nblock = 1"));
  Outcome o = run_cli("run '" + (s.dir / name).string() + "' -q --mode functional --json " +
                      (s.dir / "out.json").string());
  CHECK(o.status == 0);
  const std::string json = s.read("out.json");
  CHECK(json.find("bad\xef\xbf\xbd\xef\xbf\xbd.toml") != std::string::npos);
}

TEST_CASE("517 --dump never writes through links planted in the folder; four runs share it") {
  Scratch s;
  s.write("k.ptx", kPtx);
  const std::string exp = s.write("e.toml", experiment("grid = 1\nblock = 1"));
  const fs::path dump = s.dir / "dump";
  fs::create_directories(dump);
  s.write("victim", "keep me");
  for (const char* name : {"out.npy", "out.npy.tmp", "k.ptx"})
    fs::create_symlink(s.dir / "victim", dump / name);
  Outcome o = run_cli("run " + exp + " -q --mode functional --dump " + dump.string());
  CHECK(o.status == 0);
  CHECK(s.read("victim") == "keep me");
  CHECK(fs::is_regular_file(fs::symlink_status(dump / "out.npy")));
  CHECK(fs::is_regular_file(fs::symlink_status(dump / "k.ptx")));
  auto a = warplab::lab::read_npy((dump / "out.npy").string());
  REQUIRE(a);
  CHECK(a->data.size() == 16);
  CHECK(a->data[0] == 7);  // out[0] = N
  // Four runs at once into one folder and one JSON path: every one succeeds.
  std::vector<std::thread> runs;
  std::vector<int> status(4, -1);
  for (int i = 0; i < 4; ++i)
    runs.emplace_back([&, i] {
      const std::string cmd = warplab::test::warplab_binary() + " run " + exp +
                              " -q --mode functional --dump " + (s.dir / "d4").string() +
                              " --json " + (s.dir / "d4.json").string() + " >/dev/null 2>&1";
      const int rc = std::system(cmd.c_str());
      status[i] = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    });
  for (std::thread& t : runs) t.join();
  CHECK(status == std::vector<int>{0, 0, 0, 0});
  CHECK(fs::is_regular_file(s.dir / "d4" / "out.npy"));
  CHECK(s.read("d4.json").find("\"passed\"") != std::string::npos);
  for (const auto& e : fs::directory_iterator(s.dir / "d4"))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

TEST_CASE("517 a sweep's --dump: a planted run_I link is refused, a shorter sweep leaves no old rows") {
  Scratch s;
  s.write("k.ptx", kPtx);
  const std::string three = s.write("three.toml", experiment("grid = 1\nblock = 1\n[sweep]\nN = [1, 2, 3]"));
  const std::string one = s.write("one.toml", experiment("grid = 1\nblock = 1\n[sweep]\nN = [5]"));
  const fs::path dump = s.dir / "sweep";
  Outcome o3 = run_cli("run " + three + " -q --mode functional --dump " + dump.string());
  CHECK(o3.status == 0);
  for (const char* row : {"run_0", "run_1", "run_2"}) CHECK(fs::is_regular_file(dump / row / "out.npy"));
  Outcome o1 = run_cli("run " + one + " -q --mode functional --dump " + dump.string());
  CHECK(o1.status == 0);
  CHECK(fs::is_regular_file(dump / "run_0" / "out.npy"));
  CHECK_FALSE(fs::exists(dump / "run_1" / "out.npy"));
  CHECK_FALSE(fs::exists(dump / "run_2" / "out.npy"));
  // run_0 replaced by a link to another folder: nothing is written there.
  const fs::path victim = s.dir / "victim-dir";
  fs::create_directories(victim);
  fs::remove_all(dump / "run_0");
  fs::create_directory_symlink(victim, dump / "run_0");
  Outcome link = run_cli("run " + one + " -q --mode functional --dump " + dump.string());
  CHECK(link.status != 0);
  CHECK(link.err.find("symbolic link") != std::string::npos);
  CHECK(fs::is_empty(victim));
}

TEST_CASE("517 SIGTERM during a run says so and leaves no JSON, old or torn") {
  Scratch s;
  // A long launch: one warp counting to 2^31 (minutes), so the signal comes while it runs.
  s.write("k.ptx", R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.u32 %r1, 0;
$L:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 2147483647;
  @%p1 bra $L;
  ret;
}
)");
  const std::string exp = s.write("e.toml", experiment("grid = 1\nblock = 1"));
  s.write("out.json", "an earlier run's JSON");
  const std::string err = (s.dir / "err").string();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string bin = warplab::test::warplab_binary();
    const std::string json = (s.dir / "out.json").string();
    if (freopen(err.c_str(), "w", stderr) == nullptr) _exit(99);
    execl(bin.c_str(), bin.c_str(), "run", exp.c_str(), "-q", "--mode", "functional",
          "--max-instructions", "0", "--json", json.c_str(), static_cast<char*>(nullptr));
    _exit(98);
  }
  // Wait until the earlier JSON is gone (the run started), then stop it.
  for (int i = 0; i < 200 && fs::exists(s.dir / "out.json"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFSIGNALED(st));
  CHECK(s.read("err").find("interrupted (SIGTERM): the run did not finish") != std::string::npos);
  CHECK_FALSE(fs::exists(s.dir / "out.json"));
  for (const auto& e : fs::directory_iterator(s.dir))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}
