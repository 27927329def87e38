// Warp-state sampling on the GPU: CUPTI's PC Sampling API (CUDA 12+).
//
// Every SM sub-partition (one warp scheduler) has a sampler: every 2^N cycles it picks one of its
// resident warps, in turn, and records that warp's program counter and its state in that cycle:
// "selected" if it issued, else why not (long scoreboard, barrier, math pipe throttle, ...). The
// driver streams these records into a hardware buffer; CUPTI decodes them into counts per
// (function, PC offset, reason). It is what Nsight Compute's source view shows as warp stall
// sampling. The counts are samples: a line's share of them estimates its share of the kernel's
// warp-cycles, with the noise of any sample (a line with 10 samples has a rough mix).
//
// What is collected here: one separate launch of the kernel, after the timed ones and never
// during them (sampling adds little overhead, but none is better), in kernel-serialized mode with
// start/stop control around that launch only. The "_not_issued" reasons are left out: they repeat
// the same samples restricted to cycles where the scheduler issued nothing, and would count each
// such sample twice. Which module is sampled and how PCs become lines: gpu/sass_lines.h.
//
// Like the counters (counters.h), sampling may be unavailable: libcupti missing, profiling
// restricted to administrators, or a device without the API. Then PcSampling says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warplab::gpu {

struct PcSample {
  std::string function;    // mangled kernel name, as CUPTI reports it
  uint64_t pc_offset = 0;  // bytes from the function's first SASS instruction
  std::string reason;      // CUPTI's name ("smsp__pcsamp_warps_issue_stalled_long_scoreboard")
  uint64_t samples = 0;
};

struct PcSampling {
  bool available = false;  // false: nothing was sampled; `reason` says why
  std::string reason;
  std::string note;                 // available but worth saying (no samples at all)
  int period_log2 = 0;              // a sample every 2^period_log2 cycles per sub-partition
  uint64_t total_samples = 0;       // CUPTI's count over the sampled range
  uint64_t dropped_samples = 0;     // lost to a full hardware buffer
  bool hardware_buffer_full = false;
  std::vector<std::string> reasons_collected;  // CUPTI names
  std::vector<PcSample> samples;               // one per (function, pc, reason) with samples > 0
};

struct PcSamplingOptions {
  // log2 of the sampling interval in cycles, 5..31. At 2^10 = 1024 cycles, 132 SMs x 4
  // sub-partitions at 1.7 GHz take about 90,000 samples per 100 us of kernel: plenty per line,
  // and far from filling the hardware buffer.
  int period_log2 = 10;
};

}  // namespace warplab::gpu
