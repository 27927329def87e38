#include "gpu/counters.h"

#include "gpu/session.h"

#if WARPLAB_HAVE_CUDA_HEADERS
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>
#endif

namespace warplab::gpu {

const std::vector<CounterSpec>& counter_specs() {
  static const std::vector<CounterSpec> kSpecs = {
      {"elapsed_cycles", "sm__cycles_elapsed.max", "cycles",
       "SM clock cycles from the kernel's start to its end (busiest SM)"},
      {"gpu_time_ns", "gpu__time_duration.sum", "ns", "kernel duration measured by the GPU"},
      {"warp_instructions", "smsp__inst_executed.sum", "instructions",
       "warp instructions executed (SASS, not PTX)"},
      {"global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests",
       "global load instructions reaching L1 (one per warp instruction)"},
      {"global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sectors",
       "32-byte sectors those loads touched"},
      {"global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests",
       "global store instructions reaching L1"},
      {"global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sectors",
       "32-byte sectors those stores touched"},
      {"l1_hit_rate_pct", "l1tex__t_sector_hit_rate.pct", "%", "L1/TEX sector hit rate"},
      {"l2_hit_rate_pct", "lts__t_sector_hit_rate.pct", "%", "L2 sector hit rate"},
      {"dram_bytes_read", "dram__bytes_read.sum", "bytes", "bytes read from device memory"},
      {"dram_bytes_written", "dram__bytes_write.sum", "bytes", "bytes written to device memory"},
      {"shared_bank_conflicts_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       "conflicts", "extra shared-memory wavefronts caused by bank conflicts on loads"},
      {"shared_bank_conflicts_st", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       "conflicts", "extra shared-memory wavefronts caused by bank conflicts on stores"},
      {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
       "average resident warps over the maximum, while the SM was active"},
  };
  return kSpecs;
}

std::optional<double> GpuCounters::get(std::string_view key) const {
  for (const CounterValue& v : values) {
    if (v.key == key) return v.value;
  }
  return std::nullopt;
}

#if WARPLAB_HAVE_CUDA_HEADERS
namespace detail {

#define WARPLAB_CUPTI_FUNCTIONS(X)                \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)

// A CUPTI parameter struct, zeroed, with its structSize set.
template <class P>
P params(size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}
#define WARPLAB_CUPTI_PARAMS(T) params<T>(T##_STRUCT_SIZE)

// The CUPTI library, the host object that knows the chip's metrics, and the config image
// (which counters to wire up, in how many passes) for the metrics this chip supports.
struct Profiler {
#define WARPLAB_DECLARE_PFN(name) decltype(&::name) name = nullptr;
  WARPLAB_CUPTI_FUNCTIONS(WARPLAB_DECLARE_PFN)
#undef WARPLAB_DECLARE_PFN
  std::shared_ptr<Session> session;
  void* handle = nullptr;
  bool initialized = false;
  CUpti_Profiler_Host_Object* host = nullptr;
  std::string unavailable;  // non-empty: why no counters can be read
  std::string chip;
  std::vector<const char*> metrics;  // the supported subset, in counter_specs() order
  std::vector<std::string> missing;  // metric names this chip does not know
  std::vector<uint8_t> config;
  size_t passes = 0;

  std::string describe(CUptiResult r) const {
    const char* s = nullptr;
    if (cuptiGetResultString) cuptiGetResultString(r, &s);
    return std::string(s ? s : "CUPTI error") + " (" + std::to_string(static_cast<int>(r)) + ")";
  }
  ~Profiler() {
    if (host) {
      auto p = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      p.pHostObject = host;
      cuptiProfilerHostDeinitialize(&p);
    }
    if (initialized) {
      auto p = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
      cuptiProfilerDeInitialize(&p);
    }
    // No dlclose: CUPTI registers callbacks with the driver and worker threads that outlive
    // its deinitialisation; unloading it while they exist crashes the process.
  }
};

#define WARPLAB_STR2(x) #x
#define WARPLAB_STR(x) WARPLAB_STR2(x)

namespace {

// libcupti ships with the toolkit, not the driver: try the loader's path, then the toolkit's.
constexpr const char* kCuptiLibraries[] = {
    "libcupti.so.13",
    "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
    "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13",
};

// Fills p.unavailable on the first failure; returns false then.
bool setup(Profiler& p) {
  std::string tried;
  for (const char* lib : kCuptiLibraries) {
    p.handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (p.handle) break;
    const char* e = dlerror();
    if (tried.empty()) tried = e ? e : lib;
  }
  if (!p.handle) {
    p.unavailable = "CUPTI library not found (libcupti.so.13): " + tried;
    return false;
  }
#define WARPLAB_RESOLVE(name)                                                                     \
  p.name = reinterpret_cast<decltype(p.name)>(dlsym(p.handle, WARPLAB_STR(name)));                \
  if (!p.name) {                                                                                  \
    p.unavailable = std::string("CUPTI library lacks ") + WARPLAB_STR(name) + " (needs CUDA 13)"; \
    return false;                                                                                 \
  }
  WARPLAB_CUPTI_FUNCTIONS(WARPLAB_RESOLVE)
#undef WARPLAB_RESOLVE

  Session& s = *p.session;
  if (Status st = s.make_current(); !st) {
    p.unavailable = st.error().message;
    return false;
  }
  auto fail = [&](const char* what, CUptiResult r) {
    p.unavailable = std::string(what) + ": " + p.describe(r);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
      p.unavailable +=
          " -- the driver restricts profiling to administrators "
          "(NVreg_RestrictProfilingToAdminUsers=1); run as root or change that "
          "module option";
    }
    return false;
  };
  // 1. The profiler, the chip's name and which counters this context may read.
  auto init = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  if (CUptiResult r = p.cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerInitialize", r);
  }
  p.initialized = true;
  auto chip = WARPLAB_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = static_cast<size_t>(s.info.ordinal);
  if (CUptiResult r = p.cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
    return fail("cuptiDeviceGetChipName", r);
  }
  p.chip = chip.pChipName ? chip.pChipName : "";
  auto avail = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  avail.ctx = s.ctx;
  if (CUptiResult r = p.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerGetCounterAvailability", r);
  }
  std::vector<uint8_t> avail_image(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = avail_image.data();
  if (CUptiResult r = p.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerGetCounterAvailability", r);
  }

  // 2. The host object: metric names -> counters for this chip.
  auto host = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = p.chip.c_str();
  host.pCounterAvailabilityImage = avail_image.data();
  if (CUptiResult r = p.cuptiProfilerHostInitialize(&host); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerHostInitialize", r);
  }
  p.host = host.pHostObject;

  // 3. Keep the metrics the chip knows; a missing one is reported, not fatal.
  for (const CounterSpec& spec : counter_specs()) {
    auto props = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
    props.pHostObject = p.host;
    props.pMetricName = spec.metric;
    if (p.cuptiProfilerHostGetMetricProperties(&props) == CUPTI_SUCCESS) {
      p.metrics.push_back(spec.metric);
    } else {
      p.missing.push_back(spec.metric);
    }
  }
  if (p.metrics.empty()) {
    p.unavailable = "CUPTI knows none of WarpLab's metrics on chip " + p.chip;
    return false;
  }
  auto add = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = p.host;
  add.ppMetricNames = p.metrics.data();
  add.numMetrics = p.metrics.size();
  if (CUptiResult r = p.cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerHostConfigAddMetrics", r);
  }
  auto size = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = p.host;
  if (CUptiResult r = p.cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerHostGetConfigImageSize", r);
  }
  p.config.resize(size.configImageSize);
  auto image = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  image.pHostObject = p.host;
  image.configImageSize = p.config.size();
  image.pConfigImage = p.config.data();
  if (CUptiResult r = p.cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerHostGetConfigImage", r);
  }
  auto passes = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  passes.configImageSize = p.config.size();
  passes.pConfigImage = p.config.data();
  if (CUptiResult r = p.cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerHostGetNumOfPasses", r);
  }
  p.passes = passes.numOfPasses;
  return true;
}

}  // namespace

std::shared_ptr<Profiler> open_profiler(const std::shared_ptr<Session>& s) {
  auto p = std::make_shared<Profiler>();
  p->session = s;
  setup(*p);
  return p;
}

GpuCounters read_counters(Profiler& p, const std::function<Status()>& launch,
                          const std::function<Status()>& before_pass) {
  GpuCounters out;
  out.chip = p.chip;
  if (!p.unavailable.empty()) {
    out.reason = p.unavailable;
    return out;
  }
  Session& s = *p.session;
  if (Status st = s.make_current(); !st) {
    out.reason = st.error().message;
    return out;
  }
  auto fail = [&](const char* what, CUptiResult r) {
    out.reason = std::string(what) + ": " + p.describe(r);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
      out.reason += " -- the driver restricts profiling to administrators";
    }
    return out;
  };

  // 1. Enable the range profiler on the context only for this launch, so that timed launches
  //    never run with profiling hooks in place.
  auto enable = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = s.ctx;
  if (CUptiResult r = p.cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS) {
    return fail("cuptiRangeProfilerEnable", r);
  }
  CUpti_RangeProfiler_Object* obj = enable.pRangeProfilerObject;
  struct Disable {
    Profiler& p;
    CUpti_RangeProfiler_Object* obj;
    ~Disable() {
      auto d = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
      d.pRangeProfilerObject = obj;
      p.cuptiRangeProfilerDisable(&d);
    }
  } disable{p, obj};

  // 2. A counter-data image for one range (one kernel, auto range mode).
  auto size = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = obj;
  size.pMetricNames = p.metrics.data();
  size.numMetrics = p.metrics.size();
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  if (CUptiResult r = p.cuptiRangeProfilerGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
    return fail("cuptiRangeProfilerGetCounterDataSize", r);
  }
  std::vector<uint8_t> data(size.counterDataSize);
  auto init = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = obj;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  if (CUptiResult r = p.cuptiRangeProfilerCounterDataImageInitialize(&init); r != CUPTI_SUCCESS) {
    return fail("cuptiRangeProfilerCounterDataImageInitialize", r);
  }
  auto config = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  config.pRangeProfilerObject = obj;
  config.configSize = p.config.size();
  config.pConfig = p.config.data();
  config.counterDataImageSize = data.size();
  config.pCounterDataImage = data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = before_pass ? CUPTI_UserReplay : CUPTI_KernelReplay;
  config.maxRangesPerPass = 1;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  if (CUptiResult r = p.cuptiRangeProfilerSetConfig(&config); r != CUPTI_SUCCESS) {
    return fail("cuptiRangeProfilerSetConfig", r);
  }

  // 3. The profiled launch. Kernel replay runs every pass inside it; user replay needs one
  //    launch per pass, each after before_pass().
  bool all_passes = false;
  for (size_t pass = 0; !all_passes; ++pass) {
    if (pass > static_cast<size_t>(p.passes) + 1) {
      out.reason = "CUPTI did not complete all " + std::to_string(p.passes) + " replay passes";
      return out;
    }
    if (before_pass) {
      if (Status st = before_pass(); !st) {
        out.reason = "before a profiler pass: " + st.error().message;
        return out;
      }
    }
    auto start = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = obj;
    if (CUptiResult r = p.cuptiRangeProfilerStart(&start); r != CUPTI_SUCCESS) {
      return fail("cuptiRangeProfilerStart", r);
    }
    Status launched = launch();
    auto stop = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = obj;
    CUptiResult stop_result = p.cuptiRangeProfilerStop(&stop);
    if (!launched) {
      out.reason = "profiled launch failed: " + launched.error().message;
      return out;
    }
    if (stop_result != CUPTI_SUCCESS) return fail("cuptiRangeProfilerStop", stop_result);
    all_passes = stop.isAllPassSubmitted != 0;
    if (!before_pass && !all_passes) {
      out.reason = "CUPTI did not complete all " + std::to_string(p.passes) + " replay passes";
      return out;
    }
  }

  // 4. Decode and evaluate the one range.
  auto decode = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = obj;
  if (CUptiResult r = p.cuptiRangeProfilerDecodeData(&decode); r != CUPTI_SUCCESS) {
    return fail("cuptiRangeProfilerDecodeData", r);
  }
  auto info = WARPLAB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (CUptiResult r = p.cuptiRangeProfilerGetCounterDataInfo(&info); r != CUPTI_SUCCESS) {
    return fail("cuptiRangeProfilerGetCounterDataInfo", r);
  }
  if (info.numTotalRanges < 1) {
    out.reason = "the profiler recorded no range for the launch";
    return out;
  }
  std::vector<double> values(p.metrics.size(), 0.0);
  auto eval = WARPLAB_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  eval.pHostObject = p.host;
  eval.pCounterDataImage = data.data();
  eval.counterDataImageSize = data.size();
  eval.rangeIndex = 0;
  eval.ppMetricNames = p.metrics.data();
  eval.numMetrics = p.metrics.size();
  eval.pMetricValues = values.data();
  if (CUptiResult r = p.cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
    return fail("cuptiProfilerHostEvaluateToGpuValues", r);
  }

  // 5. One value per spec, in report order; metrics the chip lacks say so.
  out.available = true;
  out.passes = static_cast<int>(p.passes);
  size_t next = 0;
  for (const CounterSpec& spec : counter_specs()) {
    CounterValue v{spec.key, spec.metric, std::nullopt, ""};
    if (next < p.metrics.size() && std::string_view(p.metrics[next]) == spec.metric) {
      v.value = values[next++];
    } else {
      v.note = "metric not available on " + p.chip;
    }
    out.values.push_back(std::move(v));
  }
  return out;
}

}  // namespace detail
#endif  // WARPLAB_HAVE_CUDA_HEADERS

}  // namespace warplab::gpu
