// A kernel launch as the functional executor sees it, and what it reports back.
//
// The functional executor runs every thread of a grid exactly (same results as the GPU for correct,
// race-free kernels) but has no notion of time: it counts instructions, not cycles. The timing
// model (sim/timing) drives the same executor one warp instruction at a time (see cta.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/common/error.h"
#include "sim/ptx/isa.h"

namespace warplab::func {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// Shared memory one block may use, static and dynamic together (bytes): 227 KB on the H100
// (cudaDevAttrMaxSharedMemoryPerBlockOptin = 232,448; the SM has 228 KB, 1 KB of which the
// driver keeps per block). The experiment file's check and the executor use this one value.
inline constexpr uint64_t kMaxSharedPerBlock = 232448;

struct LaunchConfig {
  std::string kernel;  // entry name in the module
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<uint8_t> params;  // the kernel's parameter block, laid out per ptx::Param::offset
  // Thread-block cluster shape (sim/func/cluster.h): {0,0,0} = none given (the kernel's
  // .reqnctapercluster, else clusters of one); `cluster_nonportable` allows up to 16 blocks
  // (cudaFuncAttributeNonPortableClusterSizeAllowed).
  Dim3 cluster{0, 0, 0};
  bool cluster_nonportable = false;
  // synccheck / racecheck (hazard.h); off by default.
  bool synccheck = false;
  bool racecheck = false;
  // Hang limit: a warp that issues more instructions than this stops the launch with a Hang
  // fault naming the loop it is stuck in (each thread executes at most as many as its warp
  // issues). 0 = no limit. The default is generous for real kernels (a 1024-iteration loop of
  // 20 instructions is 20,480) and small enough to stop a runaway loop in about a second.
  static constexpr uint64_t kDefaultMaxInstructionsPerWarp = 10'000'000;
  uint64_t max_instructions_per_warp = kDefaultMaxInstructionsPerWarp;
};

// Counts for one PTX line or one CUDA source line.
struct LineCounts {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
};

struct LaunchStats {
  uint64_t warp_instructions = 0;    // instructions issued per warp (a diverged path counts again)
  uint64_t thread_instructions = 0;  // sum over issued warp instructions of active lanes
  std::array<uint64_t, ptx::kInstClassCount> warp_by_class{};
  std::array<uint64_t, ptx::kInstClassCount> thread_by_class{};
  std::map<int32_t, LineCounts> by_ptx_line;  // PTX line -> counts
  std::map<std::pair<int32_t, int32_t>, LineCounts>
      by_src_line;  // (file index, line) -> counts
                    // (user_loc: the kernel's own lines)
  uint64_t blocks = 0, warps = 0, threads = 0;
};

// Why a launch stopped early (what compute-sanitizer's memcheck would report).
struct LaunchFault {
  // Deadlock: warps wait at barriers that can never complete. Hang: a limit was reached (a warp's
  // instructions, LaunchConfig::max_instructions_per_warp, or the timing model's cycles).
  enum class Kind {
    OutOfBounds,
    Misaligned,
    Trap,
    InvalidAddress,
    Deadlock,
    BadLaunch,
    Hang,
    StackOverflow  // recursion deeper than the call stack holds (call_frames.h)
  };
  Kind kind = Kind::OutOfBounds;
  std::string kernel;
  Dim3 block, thread;  // block and thread indices of the faulting lane
  uint64_t address = 0;
  uint32_t size = 0;  // access size in bytes
  bool is_write = false;
  ptx::Space space = ptx::Space::None;
  int32_t ptx_line = 0;
  std::string src_file;  // CUDA source file ("" when unknown)
  int32_t src_line = 0;
  std::string message;  // full human-readable report
};

}  // namespace warplab::func
