// warplab: run CUDA experiments on the WarpLab simulator from the command line.
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <vector>

#include "lab/huge_pages.h"
#include "lab/sandbox.h"
#include "ui/cli/commands.h"

namespace warplab::cli {

int report_error(const Error& e) {
  std::cerr << "warplab: " << e.to_string() << "\n";
  return kExitBadInput;
}

namespace {

// SIGINT / SIGTERM: say that the run did not finish, then die of the signal as before (files are
// written whole or not at all: sim/common/output_file.h holds these signals while it writes).
void on_interrupt(int sig) {
  const char* msg = sig == SIGINT
                        ? "\nwarplab: interrupted (SIGINT): the run did not finish; outputs it had "
                          "not written yet were not written\n"
                        : "\nwarplab: interrupted (SIGTERM): the run did not finish; outputs it had "
                          "not written yet were not written\n";
  ssize_t ignored = write(STDERR_FILENO, msg, std::strlen(msg));
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int run_command(int argc, char** argv);

}  // namespace warplab::cli

int main(int argc, char** argv) {
  using namespace warplab::cli;
  // The compile sandbox's child (lab/sandbox.h): warplab execs itself with a hidden subcommand.
  if (int rc = warplab::lab::sandbox_child_main_if_requested(argc, argv); rc >= 0) return rc;
  warplab::lab::use_huge_pages(argv);
  signal(SIGINT, on_interrupt);
  signal(SIGTERM, on_interrupt);
  // Whatever escapes a command is reported as an error, never an abort.
  try {
    return run_command(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "warplab: out of memory (an input asks for more than this machine has)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "warplab: internal error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (...) {
    std::cerr << "warplab: internal error (unknown exception)\n";
    return kExitBadInput;
  }
}

int warplab::cli::run_command(int argc, char** argv) {
  using namespace warplab::cli;
  CLI::App app{
      "WarpLab: see how a GPU executes your CUDA kernels, on a PTX simulator.\n"
      "Exit status: 0 all checks pass, 1 a check failed or a kernel faulted, 2 bad input."};
  app.name("warplab");
  app.set_version_flag("--version", "warplab 0.1");
  app.require_subcommand(1);
  std::vector<Command> commands = {add_run_command(app), add_ptx_command(app),
                                   add_bench_command(app), add_configs_command(app), add_lessons_command(app),
                                   add_lesson_command(app), add_grade_command(app),
                                   add_validate_command(app),
                                   add_compare_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and the usage hint
    return kExitBadInput;
  }
  for (const Command& c : commands)
    if (c.app->parsed()) return c.run();
  return kExitBadInput;
}
