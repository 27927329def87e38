// The `warplab` command's exit statuses: 0 pass, 1 failed check or fault, 2 bad input.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "50x_cli.h"

namespace {

namespace fs = std::filesystem;

// The warplab binary sits beside this test binary in the build directory.
using warplab::test::warplab_binary;
std::string data(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}

using Outcome = warplab::test::CliOutcome;

Outcome run(const std::string& args) { return warplab::test::run_warplab(args, "507"); }

bool have_binary() {
  if (fs::exists(warplab_binary())) return true;
  MESSAGE("skipped: " << warplab_binary() << " is not built (ninja warplab)");
  return false;
}

}  // namespace

TEST_CASE("507 cli: help and usage errors") {
  if (!have_binary()) return;
  Outcome help = run("--help");
  CHECK(help.status == 0);
  CHECK(help.out.find("run") != std::string::npos);
  CHECK(help.out.find("bench") != std::string::npos);
  CHECK(run("run --help").status == 0);
  CHECK(run("ptx --help").status == 0);
  CHECK(run("bench --list").status == 0);
  CHECK(run("").status == 2);     // no subcommand
  CHECK(run("run").status == 2);  // no file
  CHECK(run("frobnicate").status == 2);
}

TEST_CASE("507 cli: run exit statuses") {
  if (!have_binary()) return;
  Outcome ok = run("run " + data("vec_add_ptx.toml"));
  CHECK(ok.status == 0);
  CHECK(ok.out.find("PASSED") != std::string::npos);

  Outcome fail = run("run --quiet " + data("failing_check.toml"));
  CHECK(fail.status == 1);
  CHECK(fail.out.empty());
  CHECK(fail.err.find("failing_check.toml:37: check z vs x failed") != std::string::npos);

  Outcome missing = run("run " + data("nope.toml"));
  CHECK(missing.status == 2);
  CHECK(missing.err.find("nope.toml") != std::string::npos);

  Outcome bad_set = run("run " + data("vec_add_ptx.toml") + " --set Q=3");
  CHECK(bad_set.status == 2);
  CHECK(bad_set.err.find("unknown parameter 'Q'") != std::string::npos);
  CHECK(run("run " + data("vec_add_ptx.toml") + " --backend tpu").status == 2);
}

TEST_CASE("507 cli: --set, --json and --dump") {
  if (!have_binary()) return;
  fs::path dir = fs::temp_directory_path() / ("warplab_507_dump_" + std::to_string(getpid()));
  Outcome o = run("run " + data("vec_add_ptx.toml") + " --set N=77 --set N=1000 --json " +
                  (dir / "r.json").string() + " --dump " + dir.string());
  CHECK(o.status == 0);
  std::stringstream js;
  js << std::ifstream(dir / "r.json").rdbuf();
  CHECK(js.str().find("\"warplab.run/1\"") != std::string::npos);
  CHECK(js.str().find("\"N\": 1000") != std::string::npos);
  CHECK(fs::file_size(dir / "z.npy") == 128 + 4000);
  CHECK(fs::exists(dir / "vec_add.ptx"));
  fs::remove_all(dir);
}

TEST_CASE("507 cli: a kernel fault exits 1 with the report on stderr") {
  if (!have_binary()) return;
  Outcome f = run("run " + data("oob.toml"));
  if (f.status == 2 && f.err.find("NVRTC") != std::string::npos) {
    MESSAGE("skipped (needs NVRTC)");
    return;
  }
  CHECK(f.status == 1);
  CHECK(f.err.find("KERNEL FAULT") != std::string::npos);
  CHECK(f.err.find("vec_add.cu:4") != std::string::npos);
}
