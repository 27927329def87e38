// The compile sandbox: compiling untrusted CUDA C++ (a student's submission) in a child process
// that can read only what the compile needs.
//
// NVRTC is a whole C++ front end: `#include "/etc/shadow"`, `"/proc/self/environ"` or
// `__has_include(...)` make it open any file the process can, and its error messages quote what it
// read. Filtering `#include` lines cannot stop that (macros build the names), so the compile runs
// in a child that the kernel confines:
//   1. The parent forks; the child sets PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, rlimits (CPU
//   seconds,
//      address space, file size, open files, no core dumps), leaves the network (unshare
//      CLONE_NEWNET where permitted), closes every inherited descriptor and execs the warplab
//      binary itself (/proc/self/exe) with the hidden subcommand `__compile-sandbox` and an
//      environment of a few fixed variables (nothing of the parent's: no secrets).
//   2. The child opens NVRTC (the exact library the parent found), then restricts itself with
//      Linux Landlock: it may read only the CUDA toolkit, the submission (its file, or its folder
//      for `run --sandbox`) and write only a private temporary directory; with Landlock ABI >= 4 it
//      may not bind or connect TCP sockets, with ABI >= 6 not signal or reach abstract sockets
//      outside itself. Only then does it read the source from its socket and compile.
//   3. The PTX and the log come back over the socket. The parent enforces a wall-clock limit
//      (an `#include` of a FIFO blocks forever; the child is killed) and reports a child stopped by
//      its CPU or memory limit in words.
//   4. The log is redacted before anyone sees it: a line about a file outside the submission and
//      the toolkit is replaced, and a quoted path outside them is hidden.
// Without Landlock (an old kernel, or a container that blocks it) a sandboxed compile is refused
// unless the caller accepts the risk (SandboxPolicy::allow_unconfined); the child still gets its
// limits, its empty environment and the redacted log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::lab {

struct CompiledPtx;

// What a sandboxed compile may read and use.
struct SandboxPolicy {
  // Readable besides the CUDA toolkit: whole folders (the source's folder for `run --sandbox`)
  // and single files (the submission itself, for `grade`).
  std::vector<std::string> read_dirs, read_files;
  double wall_seconds = 30;            // the parent kills the child after this long
  double cpu_seconds = 20;             // RLIMIT_CPU
  uint64_t memory_bytes = 4ull << 30;  // RLIMIT_AS (NVRTC with cooperative_groups needs ~1 GiB)
  uint64_t file_bytes = 64ull << 20;   // RLIMIT_FSIZE
  uint64_t open_files = 64;            // RLIMIT_NOFILE
  // Compile even where Landlock is unavailable (the host accepts that the source can read files).
  bool allow_unconfined = false;
  // The program to exec as the child ("" = /proc/self/exe); it must call
  // sandbox_child_main_if_requested() first thing in main().
  std::string helper;
};

// The Landlock ABI this kernel offers (0 = none), and a sentence for the user when it is none.
int landlock_abi();
std::string why_no_landlock();

// The hidden subcommand: `PROGRAM __compile-sandbox` runs the child side and returns its exit
// status. A program that may be the helper calls this first in main(): it returns -1 when argv is
// not a sandbox request.
inline constexpr const char* kSandboxCommand = "__compile-sandbox";
int sandbox_child_main_if_requested(int argc, char** argv);

// Everything the child needs to compile; built by Toolchain (compile.cpp).
struct SandboxCompileRequest {
  std::string nvrtc_library;              // the exact library file the parent opened
  std::vector<std::string> preload;       // libraries NVRTC opens lazily (its builtins)
  std::vector<std::string> toolkit_dirs;  // readable: the CUDA toolkit (headers, libraries)
  std::string source, path;               // the text and the name NVRTC shows
  std::vector<std::string> options;       // NVRTC options, final
  std::vector<std::string> name_expressions;
};

// Compiles in the sandbox. Compile errors come back as an Error naming the first error's
// file:line with the redacted log; a child stopped by a limit as an Error saying which limit.
Expected<CompiledPtx> sandbox_compile(const SandboxCompileRequest& request,
                                      const SandboxPolicy& policy);

// The log a student may see: lines in "file:line: ..." form about a file outside `allowed` (files
// and folders, compared after resolving . and .. and links) are replaced, and any quoted path
// outside them is hidden. Exposed for tests.
std::string redact_compile_log(const std::string& log, const std::vector<std::string>& allowed);

// The socket's message format is the PTX cache's length-prefixed fields (put_field/get_field,
// compile_cache.h); grade's per-test child answers in it too.

// Reads `fd` until end of file or `seconds` of wall clock have passed (then false); at most
// `max_bytes`.
bool read_with_deadline(int fd, double seconds, std::string& out, size_t max_bytes);

}  // namespace warplab::lab
