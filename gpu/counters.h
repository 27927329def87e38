// Hardware performance counters, read per launch through CUPTI's range profiler (CUDA 13).
//
// Every SM, L1/TEX unit, L2 slice and DRAM controller has counters that the driver can sample.
// CUPTI turns raw counters into named metrics ("smsp__inst_executed.sum": warp instructions
// issued, summed over all SM sub-partitions). Reading many metrics may need several passes over
// the same kernel, because only so many counters can be wired up at once; CUPTI's kernel replay
// saves device memory, runs the kernel once per pass and restores memory in between, so the
// kernel's results are those of a single run.
//
// Each metric below corresponds to something the simulator counts, under the same key, so a
// report can print them side by side. Counters are often not accessible: the driver may restrict
// profiling to administrators (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), a sandbox may hide the
// performance monitor, or libcupti may be missing. Then GpuCounters says why, and times are still
// reported.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::gpu {

struct CounterSpec {
  const char* key;     // WarpLab's name, shared with the simulator's metrics
  const char* metric;  // CUPTI metric name
  const char* unit;    // "cycles", "instructions", "requests", "sectors", "%", "bytes", ...
  const char* description;
};

// The metrics WarpLab reads, in report order.
const std::vector<CounterSpec>& counter_specs();

struct CounterValue {
  std::string key;
  std::string metric;
  std::optional<double> value;  // empty: this metric could not be read (see note)
  std::string note;
};

struct GpuCounters {
  bool available = false;  // false: nothing was read; `reason` says why
  std::string reason;
  std::string chip;                  // CUPTI's chip name ("GH100")
  int passes = 0;                    // replay passes CUPTI needed
  bool l2_flushed = false;           // every pass started after an L2 flush (cold), else warm
  std::vector<CounterValue> values;  // one per counter_specs() entry when available

  // The value under a WarpLab key ("warp_instructions"), if read.
  std::optional<double> get(std::string_view key) const;
};

}  // namespace warplab::gpu
