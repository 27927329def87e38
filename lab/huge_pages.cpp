// Huge pages for the simulator's memory (issue 26: per-core speed of the timing model).
//
// A timing run keeps every resident warp's state hot at once: on an H100 model, 132 SMs of 64
// warps, each with its register file (32 lanes of 8 bytes per register), its window of fetched
// instructions and its scoreboard, tens of megabytes visited round-robin every cycle. With 4 KiB
// pages nearly every such visit also misses the host's TLB; 2 MiB pages cut that cost (about a
// sixth of a tiled matmul's run time on a 2-core Xeon). glibc hands out huge pages for its heap
// only when asked before the process starts (its tunable glibc.malloc.hugetlb=1, under the
// kernel's default "madvise" policy for transparent huge pages), so each program that simulates
// asks for it by running itself again once with the tunable set: the `warplab` command, the
// desktop app, and the test suites (tests/doctest_main.cpp; the calibration entries simulate
// tens of millions of warp instructions: calibration_branch took 20-23% less CPU with it on the
// 16-core device host, 17% on the 2-core development host; scripts/microbench/
// huge-pages-tests-2026-11-29.md). Nothing simulated depends on it: the results are the same
// byte for byte. WARPLAB_HUGE_PAGES=0 keeps the process as it started (as does valgrind, which
// the new image would escape).
#include "lab/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace warplab::lab {

void use_huge_pages(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
  const char* off = std::getenv("WARPLAB_HUGE_PAGES");
  if (off && std::string(off) == "0") return;
  // Under valgrind the new image would run outside it (valgrind does not follow this exec).
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload && std::string(preload).find("vgpreload") != std::string::npos) return;
  const char* now = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = now ? now : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;  // set, or done
  const std::string want =
      tunables.empty() ? "glibc.malloc.hugetlb=1" : tunables + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", want.c_str(), 1) != 0) return;
  // The binary's own path, so that the process keeps its name (ps, top, pkill: an exec of
  // /proc/self/exe names it "exe"); /proc/self/exe where that path is gone (replaced by a build).
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    execv(self, argv);
  }
  execv("/proc/self/exe", argv);
  // Not run again (no /proc, say): go on as we are, with the variable set for any child.
#else
  (void)argv;
#endif
}

}  // namespace warplab::lab
