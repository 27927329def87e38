// Hostile input at the command line: a device or a directory named as a file, an expected-values
// .npy that is not one, a block the kernel's __launch_bounds__ refuses, too much dynamic shared
// memory, PTX that WarpLab's parser rejects given to `warplab ptx` (it must never reach
// nvJitLink). Each is bad input: exit 2 and an error naming the file and line.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "50x_cli.h"
#include "lab/experiment.h"

namespace {

namespace fs = std::filesystem;

using Outcome = warplab::test::CliOutcome;

// Runs the warplab binary beside this test binary with `args`.
Outcome run_cli(const std::string& args) { return warplab::test::run_warplab(args, "516"); }

// A scratch directory with the files a test writes; removed at the end.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("warplab_516_files_" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
};

const char* kBoundedPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
.maxntid 128, 1, 1
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ret;
}
)";

// An experiment on kBoundedPtx: `launch` goes into its [[launches]] entry (line 11 on), `checks`
// after it.
std::string experiment(const std::string& launch, const std::string& checks = "") {
  return "[experiment]\n"           // 1
         "ptx = \"bounded.ptx\"\n"  // 2
         "[[buffers]]\n"            // 3
         "name = \"y\"\n"           // 4
         "type = \"f32\"\n"         // 5
         "count = 128\n"            // 6
         "[[launches]]\n"           // 7
         "kernel = \"k\"\n"         // 8
         "args = [\"y\"]\n"         // 9
         "grid = 1\n" +             // 10
         launch +
         "\n" + checks;  // 11 on
}

}  // namespace

TEST_CASE("516 a device or a directory named as an input file says so (exit 2)") {
  Outcome dev = run_cli("run /dev/null");
  CHECK(dev.status == 2);
  CHECK(dev.err.find("/dev/null: experiment file: not a regular file (a character device)") !=
        std::string::npos);
  Scratch s;
  Outcome dir = run_cli("run " + s.dir.string());
  CHECK(dir.status == 2);
  CHECK(dir.err.find("is a directory") != std::string::npos);
  CHECK(dir.err.find("not found") == std::string::npos);
  CHECK(run_cli("ptx " + s.dir.string()).err.find("is a directory") != std::string::npos);
  // Files an experiment names: the line of the key.
  const std::string at = s.write("t.toml", "");
  for (const auto& [path, why] : {std::pair<std::string, std::string>{"/dev/null", "not a regular"},
                                  {s.dir.string(), "is a directory"}}) {
    auto e = warplab::lab::parse_experiment("[experiment]\nptx = \"" + path + "\"\n", at);
    REQUIRE_FALSE(e);
    CHECK(e.error().line == 2);
    CHECK(e.error().message.find(why) != std::string::npos);
  }
}

TEST_CASE("516 a corrupt .npy as a check's expect is bad input (exit 2), not a failed check") {
  Scratch s;
  s.write("bounded.ptx", kBoundedPtx);
  s.write("bad.npy", "\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'shape': (99,)}  \n");
  const std::string toml = s.write(
      "t.toml", experiment("block = 128", "[[checks]]\nbuffer = \"y\"\nexpect = \"bad.npy\"\n"));
  Outcome o = run_cli("run " + toml);
  CHECK(o.status == 2);
  CHECK(o.err.find("t.toml:12: checks[0].expect: ") != std::string::npos);
  CHECK(o.err.find("bad.npy") != std::string::npos);
  CHECK(o.out.find("FAILED") == std::string::npos);
}

TEST_CASE("516 a block past .maxntid and shared memory past 232,448 bytes fail before the run") {
  Scratch s;
  s.write("bounded.ptx", kBoundedPtx);
  Outcome big = run_cli("run " + s.write("t.toml", experiment("block = 256")));
  CHECK(big.status == 2);
  CHECK(big.err.find("t.toml:7: launches[0].block: 256 threads, but kernel 'k' is declared "
                     "with .maxntid 128") != std::string::npos);
  CHECK(run_cli("run " + s.write("ok.toml", experiment("block = 128"))).status == 0);
  Outcome sh =
      run_cli("run " + s.write("sh.toml", experiment("block = 64\nshared_bytes = 232449")));
  CHECK(sh.status == 2);
  CHECK(sh.err.find("shared_bytes = 232449 (a block may use at most 232448 bytes") !=
        std::string::npos);
}

TEST_CASE("516 warplab ptx: PTX that WarpLab's parser rejects never reaches nvJitLink") {
  Scratch s;
  const std::string header =
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n";
  for (const auto& [body, line] : {std::pair<std::string, int>{"\t.reg .b32 %r<99999999999>;\n", 6},
                                   {"\t.reg .b32 %r<3>;\n\tld.global.u32 %r1, [%warpid];\n", 7},
                                   {"\tbar.sync 16;\n", 6}}) {
    INFO(body);
    const std::string ptx = s.write("bad.ptx", header + body + "\tret;\n}\n");
    Outcome o = run_cli("ptx --resources-only " + ptx);
    CHECK(o.status == 2);
    CHECK(o.out.find("not computed: WarpLab's parser or loader rejects this PTX") !=
          std::string::npos);
    CHECK(o.out.find("unavailable") == std::string::npos);  // nvJitLink was not asked
    CHECK(o.err.find("bad.ptx:" + std::to_string(line) + ":") != std::string::npos);
  }
}
