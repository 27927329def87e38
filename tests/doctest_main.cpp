#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "lab/huge_pages.h"
#include "lab/sandbox.h"

// The test binaries are also the sandbox's helper (lab/sandbox.h): a compile sandboxed from a test
// execs this binary with the hidden subcommand. The suites simulate on the heap's huge pages, as
// `warplab` does (lab/huge_pages.h).
int main(int argc, char** argv) {
  if (int rc = warplab::lab::sandbox_child_main_if_requested(argc, argv); rc >= 0) return rc;
  warplab::lab::use_huge_pages(argv);
  doctest::Context context(argc, argv);
  return context.run();
}
