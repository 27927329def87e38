// Huge pages for the simulator's heap: how a program that simulates asks for them (huge_pages.cpp
// says why). The `warplab` command, the desktop app and the test suites call it first thing in
// main; nothing simulated depends on it.
#pragma once

namespace warplab::lab {

// Runs this process again (execv of its own binary, found through /proc/self/exe, with the same
// argv) with glibc's huge pages for the heap, unless it already runs so, GLIBC_TUNABLES already
// names the tunable, WARPLAB_HUGE_PAGES=0 is set, or it runs under valgrind. Returns when it
// does not run again.
void use_huge_pages(char** argv);

}  // namespace warplab::lab
