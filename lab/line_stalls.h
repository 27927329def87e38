// Per-line stall reasons: where warps wait, line by line, in the model and on the GPU.
//
// Every cycle each warp scheduler of an SM picks at most one ready warp to issue; every other
// resident warp is waiting for something: a memory result (long scoreboard), a shared-memory or
// SFU result (short scoreboard), a busy pipe, a barrier. Nsight Compute calls these warp states.
//
// The two sides count them differently:
// - The timing model knows every warp's state in every cycle, so it counts warp-cycles exactly
//   (sim/timing/warp_state.h), per PTX line of the instruction the warp waits to issue.
// - The GPU is sampled (gpu/pc_sampling.h): every 2^N cycles each SM sub-partition reports one
//   warp's program counter and the reason it is not issuing (or "selected"). Counts are
//   samples, so only their shares are comparable with the model's warp-cycles, and a line with
//   few samples has a noisy mix. The sampled PC is a SASS address; it is mapped to PTX and CUDA
//   source lines through the line information of the sampled machine code.
//
// This unit is the data both sides share: per kernel, per source line and per PTX line, a count
// per reason, written to and read from JSON (schema "warplab.line-stalls/1", lessons/FORMAT.md).
// Reason keys are the model's warp-state names ("stall_long_scoreboard"); a GPU reason the model
// has no state for keeps its CUPTI name ("smsp__pcsamp_warps_issue_stalled_tex_throttle").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/common/error.h"
#include "sim/ptx/ir.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {
struct TimingResult;
}

namespace warplab::lab {

constexpr const char* kLineStallsSchema = "warplab.line-stalls/1";

// Count per reason (warp-cycles or samples); zero counts are not stored.
using StallMix = std::map<std::string, uint64_t>;

uint64_t mix_total(const StallMix& m);
// The reason with the largest count ("" when empty; ties go to the first name in order).
std::string mix_top(const StallMix& m);
// Adds b's counts into a.
void mix_add(StallMix& a, const StallMix& b);

struct SourceLineStalls {
  std::string file;  // as the PTX's .file directive names it ("" when unknown)
  int32_t line = 0;
  StallMix mix;
};

struct PtxLineStalls {
  int32_t line = 0;  // 1-based line in the PTX text
  StallMix mix;
};

// One launch of one kernel, from one side.
struct KernelLineStalls {
  std::string kernel;
  int launch = 0;     // index of the launch in its run
  std::string point;  // a sweep's point ("stride=32"), "" outside a sweep
  StallMix total;                                // every line, plus samples with no line
  std::vector<SourceLineStalls> by_source_line;  // sorted by (file, line)
  std::vector<PtxLineStalls> by_ptx_line;        // sorted by line
  uint64_t unmapped = 0;  // in `total` but on no line: GPU samples whose PC maps to no PTX line;
                          // model warp-cycles of exited warps draining their stores
  uint64_t dropped = 0;   // GPU: samples the hardware dropped (in no count)

  const StallMix* source_line(const std::string& file, int32_t line) const;
  const StallMix* ptx_line(int32_t line) const;
};

// One side's per-line stall reasons for a run.
struct LineStalls {
  std::string source;  // "sim" (timing model) or "gpu" (CUPTI PC sampling)
  std::string unit;    // "warp_cycles" (sim) or "samples" (gpu)
  std::string device;  // GPU name, or the simulator's config name
  std::string driver;  // NVIDIA driver version (gpu), "" for sim
  std::string date;    // ISO 8601 UTC time of the measurement (gpu); may be "" for sim
  std::string method;  // how PCs became lines, e.g. "nvdisasm --print-line-info on the cubin"
  int sampling_period_log2 = 0;  // gpu: a sample every 2^N SM cycles per sub-partition
  std::string experiment;        // experiment path as given, and its --set values
  std::vector<std::string> set;
  std::vector<KernelLineStalls> kernels;

  const KernelLineStalls* kernel(std::string_view name, int launch = -1) const;
};

// The model's warp-state name for a CUPTI PC-sampling stall reason, or the CUPTI name itself when
// the model has no such state. Accepts the full name ("smsp__pcsamp_warps_issue_stalled_wait")
// or its tail ("wait").
std::string model_reason_for_cupti(std::string_view cupti_name);
// True for CUPTI's "..._not_issued" variants: the same samples again, restricted to cycles where
// the scheduler issued nothing. They are not collected, so that no sample counts twice.
bool is_cupti_not_issued_reason(std::string_view cupti_name);

// The model's per-line warp states of one launch as a KernelLineStalls (unit warp_cycles). The
// model charges an exited warp's wait for its stores (stall_drain) to no line; the GPU samples it
// at the EXIT instruction. When `kernel` has a single ret/exit, those cycles go to its line (else
// they stay in `unmapped`).
KernelLineStalls kernel_stalls_from_timing(const timing::TimingResult& r, const ptx::Module& module,
                                           const std::string& kernel, int launch);

// Builds the per-line view of GPU samples already mapped to PTX lines: `ptx_samples` maps a PTX
// line (0 = no line) to its mix; source lines come from the module's .loc information (the
// kernel's own line, inlined functions resolved to their call site, as the model does).
KernelLineStalls kernel_stalls_from_ptx_lines(const std::map<int32_t, StallMix>& ptx_samples,
                                              const ptx::Module& module, const std::string& kernel,
                                              int launch);

nlohmann::json to_json(const LineStalls& s);
nlohmann::json to_json(const KernelLineStalls& k);
// Errors name `where` (a file, or "report") and the JSON path that is wrong.
Expected<LineStalls> line_stalls_from_json(const nlohmann::json& j, const std::string& where);
Expected<KernelLineStalls> kernel_line_stalls_from_json(const nlohmann::json& j,
                                                        const std::string& where,
                                                        const std::string& path = "kernel");

// How well the model's per-line mix matches the GPU's, over the lines both have: CUDA source
// lines when both sides have any, else PTX lines. Shares, not counts, are compared (warp-cycles
// against samples). Lines are weighted by their GPU samples, so a line the GPU barely visits
// barely counts.
//   top_agreement: the share of those samples on lines whose largest reason is the same on both
//                  sides (1 = every line's main reason agrees);
//   distance:      the sample-weighted mean, over lines, of the total variation distance between
//                  the two mixes (half the sum of |share_gpu - share_model| over reasons; 0 = the
//                  same mix, 1 = no reason in common). GPU reasons the model has no state for
//                  count fully against it.
struct StallAgreement {
  std::string lines;             // "source" or "ptx"
  int lines_compared = 0;        // lines with GPU samples and model warp-cycles
  uint64_t samples_compared = 0;  // GPU samples on those lines
  uint64_t samples_total = 0;     // every GPU sample of the kernel (lines with none, too)
  double top_agreement = 0;
  double distance = 0;
};
// Empty when no line has data on both sides.
std::optional<StallAgreement> compare_line_stalls(const KernelLineStalls& model,
                                                  const KernelLineStalls& gpu);

// A data file: {"schema": "warplab.line-stalls/1", "runs": [LineStalls, ...]}.
Status write_line_stalls_file(const std::string& path, const std::vector<LineStalls>& runs);
Expected<std::vector<LineStalls>> read_line_stalls_file(const std::string& path);

}  // namespace warplab::lab
