// warplab: run CUDA experiments on the WarpLab simulator from the command line.
#include <iostream>
#include <vector>

#include "lab/sandbox.h"
#include "ui/cli/commands.h"

namespace warplab::cli {

int report_error(const Error& e) {
  std::cerr << "warplab: " << e.to_string() << "\n";
  return kExitBadInput;
}

}  // namespace warplab::cli

int main(int argc, char** argv) {
  using namespace warplab::cli;
  // The compile sandbox's child (lab/sandbox.h): warplab execs itself with a hidden subcommand.
  if (int rc = warplab::lab::sandbox_child_main_if_requested(argc, argv); rc >= 0) return rc;
  CLI::App app{
      "WarpLab: see how a GPU executes your CUDA kernels, on a PTX simulator.\n"
      "Exit status: 0 all checks pass, 1 a check failed or a kernel faulted, 2 bad input."};
  app.name("warplab");
  app.set_version_flag("--version", "warplab 0.1");
  app.require_subcommand(1);
  std::vector<Command> commands = {add_run_command(app), add_ptx_command(app),
                                   add_bench_command(app), add_configs_command(app), add_lessons_command(app),
                                   add_lesson_command(app), add_grade_command(app),
                                   add_validate_command(app)};
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
