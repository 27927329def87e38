// Running the `warplab` command from the CLI tests (tests/5xx): the binary that sits beside the
// test binary in the build directory, its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace warplab::test {

struct CliOutcome {
  int status = -1;
  std::string out, err;
};

inline std::string warplab_binary() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "warplab").string();
}

// Runs `warplab ARGS` (ARGS as a shell command line) with the environment assignments ENV
// ("A=1 B=2", or empty) for this command only; the output goes through files in a scratch
// directory named after `tag`, removed afterwards.
inline CliOutcome run_warplab_env(const std::string& env, const std::string& args,
                                  const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("warplab_cli_" + tag + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cmd = (env.empty() ? std::string() : "env " + env + " ") + warplab_binary() +
                          " " + args + " >" + (dir / "out").string() + " 2>" +
                          (dir / "err").string();
  const int rc = std::system(cmd.c_str());
  CliOutcome o;
  o.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::stringstream so, se;
  so << std::ifstream(dir / "out").rdbuf();
  se << std::ifstream(dir / "err").rdbuf();
  o.out = so.str();
  o.err = se.str();
  fs::remove_all(dir);
  return o;
}

inline CliOutcome run_warplab(const std::string& args, const std::string& tag) {
  return run_warplab_env("", args, tag);
}

}  // namespace warplab::test
