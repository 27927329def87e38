// The real-GPU backend: run the simulator's PTX on an NVIDIA GPU, time it and read its counters.
//
// The entry point for the lab and the CLI. Typical use:
//
//   auto gpu = gpu::Backend::open();                  // fails cleanly without driver or GPU
//   if (!gpu) { print(gpu.error().to_string()); return 2; }
//   auto mod = gpu->load_ptx(ptx_text, "vec_add.ptx");  // JIT errors name the PTX line
//   gpu::GpuLaunch launch{...};                         // grid, block, parameter block
//   std::vector<gpu::GpuBuffer> bufs = {...};           // initial contents, as the simulator's
//   auto res = gpu->run(*mod, launch, bufs, {}, /*read_counters=*/true);
//   // bufs now hold the results of the first (untimed) launch; res->timing has the times.
//
// How a run goes, and why:
//   1. allocate every buffer and copy its initial contents in;
//   2. the correctness launch: launch once, wait, copy every buffer back. These are the results
//      compared with the simulator's: a single launch on fresh inputs, like the simulator's;
//   3. warm-up launches, then timed launches (timing.h), optionally flushing L2 and/or restoring
//      the initial contents before each, so that kernels that update their buffers in place do
//      not change what is measured;
//   4. with read_counters, one more launch under CUPTI's range profiler (counters.h).
// A kernel that faults (illegal address, trap) leaves the CUDA context unusable: run() reports
// it and every later call on this Backend fails with the same reason.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/counters.h"
#include "gpu/device.h"
#include "gpu/launcher.h"
#include "gpu/module.h"
#include "gpu/pc_sampling.h"
#include "gpu/timing.h"
#include "sim/common/error.h"

namespace warplab::gpu {

struct GpuLaunchResult {
  TimingResult timing;
  GpuCounters counters;         // available == false with a reason when not read
  KernelAttributes attributes;  // registers, shared and local memory of the kernel
};

struct OpenOptions {
  std::string driver_library = "libcuda.so.1";       // tests point this at a missing name
  int min_ptx_isa_major = 9, min_ptx_isa_minor = 0;  // the driver must JIT this ISA
};

class Backend {
 public:
  // Loads the driver, picks the device and makes its primary context current. Errors:
  // "no CUDA driver library (libcuda.so.1): <dlerror>", "no CUDA device (<reason>)",
  // "driver too old for PTX ISA 9.0 (driver 12.4, needs 13.0)", "built without CUDA headers".
  static Expected<Backend> open(int device = 0, const OpenOptions& options = {});

  const DeviceInfo& device() const;

  // JIT-compiles PTX. `path` names it in errors ("vec_add.ptx: ptxas fatal: ... line 12").
  Expected<GpuModule> load_ptx(std::string_view ptx, std::string path);

  // One launch: correctness run, timed runs, counters (see the header comment).
  // `buffers`: in, initial contents; out, contents after the correctness launch.
  Expected<GpuLaunchResult> run(const GpuModule& module, const GpuLaunch& launch,
                                std::vector<GpuBuffer>& buffers, const TimingOptions& timing = {},
                                bool read_counters = false);

  // Warp-state sampling (pc_sampling.h): one more launch of `launch.kernel`, from `cubin` (the
  // same PTX built by ptxas with its line table, sass_lines.h) instead of the JIT's code, under
  // CUPTI PC sampling; on fresh device buffers holding `buffers`' contents (left unchanged),
  // after an L2 flush when `flush_l2`. Errors: the cubin does not load or lacks the kernel, or
  // the launch faults. Sampling that is unavailable is no error: PcSampling::reason says why.
  Expected<PcSampling> sample_pcs(const std::vector<uint8_t>& cubin, const std::string& path,
                                  const GpuLaunch& launch, const std::vector<GpuBuffer>& buffers,
                                  bool flush_l2, const PcSamplingOptions& options = {});

  // The empty kernel's launch overhead, measured on first use and kept.
  Expected<LaunchOverhead> launch_overhead();

  ~Backend();
  Backend(Backend&&) noexcept;
  Backend& operator=(Backend&&) noexcept;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

 private:
  struct State;
  explicit Backend(std::unique_ptr<State> state);
  // Per buffer: the device address of the module variable it is (launch.symbols), else 0.
  Expected<std::vector<uint64_t>> module_symbols(const GpuModule& module, const GpuLaunch& launch,
                                                 const std::vector<GpuBuffer>& buffers);
  Status prepare_l2_flush();  // the flush kernel and its buffer, made on first use
  Status launch_l2_flush();   // queues one L2 flush
  std::unique_ptr<State> state_;
};

}  // namespace warplab::gpu
