// Triton's scratch memory (lab/runner.cpp, "Triton's scratch memory"): a kernel whose compiled
// metadata asks for global_scratch_size bytes per program gets them, one slice per program, on
// the simulator (and, through the same pointer parameters, on the GPU). The kernel comes from a
// stand-in bridge (tests/data/triton/scratch_bridge.py) so that this runs without Triton; its
// output is checked against values computed with numpy (scratch_expected.npy).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "50x_cli.h"

namespace {

std::string tdata(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/triton/" + name;
}

// warplab with the scratch bridge and ENV ("A=1 B=2") for this command only.
warplab::test::CliOutcome run_env(const std::string& env, const std::string& args,
                                  const std::string& tag) {
  return warplab::test::run_warplab_env(
      "WARPLAB_NO_CACHE=1 WARPLAB_TRITON_BRIDGE=" + tdata("scratch_bridge.py") + " " + env, args,
      tag);
}

}  // namespace

TEST_CASE("522 triton: a kernel that asks for global scratch gets a slice per program") {
  for (const char* programs : {"1", "4", "8"}) {
    auto r =
        run_env("", "run " + tdata("scratch.toml") + " --set programs=" + programs + " --json -",
                "triton_scratch");
    INFO(programs << " programs\n" << r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("check out vs expected[:programs * 32]: PASS") != std::string::npos);
    // The launch's arguments name the buffer the scratch pointer points at (the JSON's "args").
    CHECK(r.out.find("\"triton_global_scratch\"") != std::string::npos);
  }
  // Metadata that asks for less than the kernel uses (64 bytes per program for 128): the buffer
  // is 64 * programs bytes and the last program writes past its end, a fault (exit 1): the
  // buffer's size follows the metadata.
  auto small = run_env("SCRATCH_SIZE=64", "run " + tdata("scratch.toml"), "triton_scratch_small");
  INFO(small.out << small.err);
  CHECK(small.status == 1);
  // An alignment WarpLab's buffers do not give is bad input that says so (exit 2).
  auto align =
      run_env("SCRATCH_ALIGN=4096", "run " + tdata("scratch.toml"), "triton_scratch_align");
  CHECK(align.status == 2);
  CHECK(align.err.find("scratch memory aligned to 4096 bytes") != std::string::npos);
}
