// Internal to gpu/: the driver, the device and its context, shared by everything loaded on it.
//
// A CUDA context is the GPU-side process: its address space, loaded modules and streams. We use
// the device's primary context (the one the CUDA runtime would use too), retained on open and
// released when the last user (Backend, module, profiler) is gone. Includes cuda.h: never include
// this from a public header.
#pragma once

#if WARPLAB_HAVE_CUDA_HEADERS

#include <cuda.h>

#include <functional>
#include <memory>
#include <string>

#include "gpu/counters.h"
#include "gpu/device.h"
#include "gpu/driver_api.h"
#include "gpu/pc_sampling.h"
#include "gpu/timing.h"
#include "sim/common/error.h"

namespace warplab::gpu::detail {

struct Session {
  std::shared_ptr<DriverApi> api;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  DeviceInfo info;
  std::string fault;  // set once a kernel faulted: the context is unusable from then on

  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();
  // Makes the context current on the calling thread.
  Status make_current();
};

struct LoadedModule {
  std::shared_ptr<Session> session;
  CUmodule module = nullptr;
  ~LoadedModule();
};

// Device memory, freed on destruction.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(DriverApi* api) : api_(api) {}
  DeviceMemory(DeviceMemory&& o) noexcept { *this = std::move(o); }
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  ~DeviceMemory();
  Status allocate(size_t bytes);
  CUdeviceptr ptr() const { return ptr_; }
  size_t size() const { return size_; }

 private:
  DriverApi* api_ = nullptr;
  CUdeviceptr ptr_ = 0;
  size_t size_ = 0;
};

// A CUDA event, destroyed on destruction.
class Event {
 public:
  explicit Event(DriverApi* api) : api_(api) {}
  Event(Event&& o) noexcept : api_(o.api_), ev_(o.ev_) { o.ev_ = nullptr; }
  Event(const Event&) = delete;
  ~Event();
  Status create();
  CUevent get() const { return ev_; }

 private:
  DriverApi* api_;
  CUevent ev_ = nullptr;
};

// Reads every DeviceInfo field through cuDeviceGetAttribute.
Expected<DeviceInfo> query_device_info(DriverApi& api, CUdevice device, int ordinal);

// The timing loop of timing.h: `before_each` runs untimed before every warm-up and timed launch
// (restoring buffers, L2 flush), `launch` queues one launch. A launch's fault, noticed by a later
// call, is reported as the kernel's.
Expected<TimingResult> time_launches(Session& s, const std::function<Status()>& launch,
                                     const std::function<Status()>& before_each, int warmup,
                                     int repeats);

// CUPTI range profiler state for one context (counters.cpp). open_profiler never fails: when
// counters cannot be read, the state says why and read_counters returns that reason.
struct Profiler;
std::shared_ptr<Profiler> open_profiler(const std::shared_ptr<Session>& s);
// `launch` runs the kernel once and waits for it. Without `before_pass`, CUPTI replays that
// launch itself (kernel replay, memory restored between passes); with it, the passes are the
// caller's (user replay): before_pass() runs before each, outside the profiled range.
GpuCounters read_counters(Profiler& p, const std::function<Status()>& launch,
                          const std::function<Status()>& before_pass = nullptr);

// CUPTI PC sampling of one launch (pc_sampling.cpp): enables sampling on the context, calls
// `prepare` (load the sampled module, stage its buffers, flush L2), then `launch` (launch once
// and wait) between start and stop, and returns the samples. Never fails: when sampling is
// unavailable, PcSampling::reason says why.
PcSampling sample_pcs(Session& s, const std::function<Status()>& prepare,
                      const std::function<Status()>& launch, const PcSamplingOptions& options);

}  // namespace warplab::gpu::detail

#endif  // WARPLAB_HAVE_CUDA_HEADERS
