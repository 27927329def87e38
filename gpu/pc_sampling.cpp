#include "gpu/pc_sampling.h"

#include "gpu/session.h"

#if WARPLAB_HAVE_CUDA_HEADERS
#include <cupti_pcsampling.h>
#include <cupti_result.h>
#include <dlfcn.h>

#include <functional>
#include <map>
#include <memory>
#endif

namespace warplab::gpu {

#if WARPLAB_HAVE_CUDA_HEADERS
namespace detail {
namespace {

#define WARPLAB_PCSAMPLING_FUNCTIONS(X)     \
  X(cuptiGetResultString)                   \
  X(cuptiPCSamplingEnable)                  \
  X(cuptiPCSamplingDisable)                 \
  X(cuptiPCSamplingSetConfigurationAttribute) \
  X(cuptiPCSamplingGetNumStallReasons)      \
  X(cuptiPCSamplingGetStallReasons)         \
  X(cuptiPCSamplingStart)                   \
  X(cuptiPCSamplingStop)                    \
  X(cuptiPCSamplingGetData)

#define WARPLAB_PCS_STR2(x) #x
#define WARPLAB_PCS_STR(x) WARPLAB_PCS_STR2(x)

// The same library the counters load (counters.cpp); dlopen counts references, so both units
// share one copy.
constexpr const char* kCuptiLibraries[] = {
    "libcupti.so.13",
    "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
    "/usr/local/cuda/targets/x86_64-linux/lib/libcupti.so.13",
};

struct Cupti {
#define WARPLAB_DECLARE_PFN(name) decltype(&::name) name = nullptr;
  WARPLAB_PCSAMPLING_FUNCTIONS(WARPLAB_DECLARE_PFN)
#undef WARPLAB_DECLARE_PFN
  std::string unavailable;

  std::string describe(CUptiResult r) const {
    const char* s = nullptr;
    if (cuptiGetResultString) cuptiGetResultString(r, &s);
    std::string out = std::string(s ? s : "CUPTI error") + " (" +
                      std::to_string(static_cast<int>(r)) + ")";
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
      out += " -- the driver restricts profiling to administrators "
             "(NVreg_RestrictProfilingToAdminUsers=1); run as root or change that module option";
    return out;
  }
};

// No dlclose, as in counters.cpp: CUPTI's worker threads outlive its use.
Cupti load_cupti() {
  Cupti c;
  void* handle = nullptr;
  std::string tried;
  for (const char* lib : kCuptiLibraries) {
    handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle) break;
    const char* e = dlerror();
    if (tried.empty()) tried = e ? e : lib;
  }
  if (!handle) {
    c.unavailable = "CUPTI library not found (libcupti.so.13): " + tried;
    return c;
  }
#define WARPLAB_RESOLVE(name)                                                                   \
  c.name = reinterpret_cast<decltype(c.name)>(dlsym(handle, WARPLAB_PCS_STR(name)));            \
  if (!c.name) {                                                                                \
    c.unavailable = std::string("CUPTI library lacks ") + WARPLAB_PCS_STR(name) +               \
                    " (the PC Sampling API needs CUDA 12 or later)";                            \
    return c;                                                                                   \
  }
  WARPLAB_PCSAMPLING_FUNCTIONS(WARPLAB_RESOLVE)
#undef WARPLAB_RESOLVE
  return c;
}

template <class P>
P pcs_params(size_t size, CUcontext ctx) {
  P p{};
  p.size = size;
  p.ctx = ctx;
  return p;
}

// A parsed-data buffer for `pcs` PCs of up to `reasons` reasons each. Holds pointers into
// itself: never moved (held by unique_ptr).
struct SampleBuffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  SampleBuffer(size_t n, size_t r) : pcs(n), reasons(n * r) {
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = n;
    data.pPcData = pcs.data();
    for (size_t i = 0; i < n; ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = reasons.data() + i * r;
    }
  }
  SampleBuffer(const SampleBuffer&) = delete;
  SampleBuffer& operator=(const SampleBuffer&) = delete;
};

}  // namespace

PcSampling sample_pcs(Session& s, const std::function<Status()>& prepare,
                      const std::function<Status()>& launch, const PcSamplingOptions& options) {
  PcSampling out;
  out.period_log2 = options.period_log2;
  if (options.period_log2 < 5 || options.period_log2 > 31) {
    out.reason = "sampling period 2^" + std::to_string(options.period_log2) +
                 " cycles: CUPTI takes 2^5 to 2^31";
    return out;
  }
  const Cupti c = load_cupti();
  if (!c.unavailable.empty()) {
    out.reason = c.unavailable;
    return out;
  }
  if (Status st = s.make_current(); !st) {
    out.reason = st.error().message;
    return out;
  }
  auto fail = [&](const char* what, CUptiResult r) {
    out.reason = std::string(what) + ": " + c.describe(r);
    return out;
  };

  // 1. Enable sampling on the context; every other PC sampling call needs it first.
  auto enable = pcs_params<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize, s.ctx);
  if (CUptiResult r = c.cuptiPCSamplingEnable(&enable); r != CUPTI_SUCCESS)
    return fail("cuptiPCSamplingEnable", r);
  // Disabled on every path out; Disable's last flush of records goes into `buffer`, which is
  // declared first so that it outlives the disabling.
  std::unique_ptr<SampleBuffer> buffer;
  struct Disable {
    const Cupti& c;
    CUcontext ctx;
    bool done = false;
    void now() {
      if (done) return;
      done = true;
      auto d = pcs_params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize, ctx);
      c.cuptiPCSamplingDisable(&d);
    }
    ~Disable() { now(); }
  } disable{c, s.ctx};

  // 2. The reasons this device reports; keep all but the "_not_issued" repeats.
  size_t count = 0;
  auto num = pcs_params<CUpti_PCSamplingGetNumStallReasonsParams>(
      CUpti_PCSamplingGetNumStallReasonsParamsSize, s.ctx);
  num.numStallReasons = &count;
  if (CUptiResult r = c.cuptiPCSamplingGetNumStallReasons(&num); r != CUPTI_SUCCESS)
    return fail("cuptiPCSamplingGetNumStallReasons", r);
  if (count == 0) {
    out.reason = "CUPTI reports no stall reasons for this device";
    return out;
  }
  std::vector<uint32_t> index(count);
  std::vector<std::vector<char>> name_storage(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> names(count);
  for (size_t i = 0; i < count; ++i) names[i] = name_storage[i].data();
  auto get = pcs_params<CUpti_PCSamplingGetStallReasonsParams>(
      CUpti_PCSamplingGetStallReasonsParamsSize, s.ctx);
  get.numStallReasons = count;
  get.stallReasonIndex = index.data();
  get.stallReasons = names.data();
  if (CUptiResult r = c.cuptiPCSamplingGetStallReasons(&get); r != CUPTI_SUCCESS)
    return fail("cuptiPCSamplingGetStallReasons", r);
  std::map<uint32_t, std::string> name_of;
  std::vector<uint32_t> wanted;
  for (size_t i = 0; i < count; ++i) {
    std::string n(names[i]);
    name_of[index[i]] = n;
    if (n.size() >= 11 && n.compare(n.size() - 11, 11, "_not_issued") == 0) continue;
    wanted.push_back(index[i]);
    out.reasons_collected.push_back(n);
  }

  // 3. Configuration: period, reasons, one kernel at a time, start/stop around our launch only,
  //    parsed records into `buffer` (room for 10,000 PCs; the rest comes through GetData).
  constexpr size_t kPcs = 10000;
  buffer = std::make_unique<SampleBuffer>(kPcs, wanted.size());
  std::vector<CUpti_PCSamplingConfigurationInfo> cfg(6);
  cfg[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  cfg[0].attributeData.samplingPeriodData.samplingPeriod = static_cast<uint32_t>(options.period_log2);
  cfg[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  cfg[1].attributeData.stallReasonData.stallReasonCount = wanted.size();
  cfg[1].attributeData.stallReasonData.pStallReasonIndex = wanted.data();
  cfg[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  cfg[2].attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
  cfg[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  cfg[3].attributeData.enableStartStopControlData.enableStartStopControl = 1;
  cfg[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  cfg[4].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  cfg[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  cfg[5].attributeData.samplingDataBufferData.samplingDataBuffer = &buffer->data;
  auto set = pcs_params<CUpti_PCSamplingConfigurationInfoParams>(
      CUpti_PCSamplingConfigurationInfoParamsSize, s.ctx);
  set.numAttributes = cfg.size();
  set.pPCSamplingConfigurationInfo = cfg.data();
  if (CUptiResult r = c.cuptiPCSamplingSetConfigurationAttribute(&set); r != CUPTI_SUCCESS) {
    for (const auto& a : cfg)
      if (a.attributeStatus != CUPTI_SUCCESS)
        return fail(("cuptiPCSamplingSetConfigurationAttribute (attribute " +
                     std::to_string(static_cast<int>(a.attributeType)) + ")")
                        .c_str(),
                    a.attributeStatus);
    return fail("cuptiPCSamplingSetConfigurationAttribute", r);
  }

  // 4. The sampled launch: prepare (load, stage, flush) unsampled; start, launch and wait, stop.
  if (Status st = prepare(); !st) {
    out.reason = "before the sampled launch: " + st.error().message;
    return out;
  }
  auto start = pcs_params<CUpti_PCSamplingStartParams>(CUpti_PCSamplingStartParamsSize, s.ctx);
  if (CUptiResult r = c.cuptiPCSamplingStart(&start); r != CUPTI_SUCCESS)
    return fail("cuptiPCSamplingStart", r);
  Status ran = launch();
  auto stop = pcs_params<CUpti_PCSamplingStopParams>(CUpti_PCSamplingStopParamsSize, s.ctx);
  CUptiResult stopped = c.cuptiPCSamplingStop(&stop);
  if (!ran) {
    out.reason = "sampled launch: " + ran.error().message;
    return out;
  }
  if (stopped != CUPTI_SUCCESS) return fail("cuptiPCSamplingStop", stopped);

  // 5. Records: what Stop flushed into the configured buffer, then the rest through GetData.
  auto consume = [&](const CUpti_PCSamplingData& d) {
    if (d.totalNumPcs == 0) return;
    out.total_samples += d.totalSamples;
    out.dropped_samples += d.droppedSamples;
    out.hardware_buffer_full = out.hardware_buffer_full || d.hardwareBufferFull;
    for (size_t i = 0; i < d.totalNumPcs && i < d.collectNumPcs; ++i) {
      const CUpti_PCSamplingPCData& pc = d.pPcData[i];
      // functionName is CUPTI's, possibly shared by later records: copied, never freed here.
      const std::string fn = pc.functionName ? pc.functionName : "";
      for (size_t j = 0; j < pc.stallReasonCount && j < wanted.size(); ++j) {
        const CUpti_PCSamplingStallReason& sr = pc.stallReason[j];
        if (!sr.samples) continue;
        auto n = name_of.find(sr.pcSamplingStallReasonIndex);
        out.samples.push_back({fn, pc.pcOffset,
                               n == name_of.end()
                                   ? "reason_" + std::to_string(sr.pcSamplingStallReasonIndex)
                                   : n->second,
                               sr.samples});
      }
    }
  };
  //    Where CUPTI puts them is not the same in every version: Stop may flush into the configured
  //    buffer, GetData hands out what CUPTI holds, and Disable flushes the rest into the
  //    configured buffer. Each buffer is consumed once and emptied, so no record counts twice.
  auto drain_config = [&] {
    if (buffer->data.totalNumPcs == 0) return;
    consume(buffer->data);
    buffer->data.totalNumPcs = 0;
  };
  drain_config();
  auto more = std::make_unique<SampleBuffer>(kPcs, wanted.size());
  std::string get_data_error;
  for (int round = 0; round < 1000; ++round) {
    more->data.totalNumPcs = 0;
    more->data.remainingNumPcs = 0;
    auto g = pcs_params<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize, s.ctx);
    g.pcSamplingData = &more->data;
    if (CUptiResult r = c.cuptiPCSamplingGetData(&g); r != CUPTI_SUCCESS) {
      get_data_error = "cuptiPCSamplingGetData: " + c.describe(r);
      if (r == CUPTI_ERROR_OUT_OF_MEMORY) out.hardware_buffer_full = true;
      break;
    }
    consume(more->data);
    if (more->data.totalNumPcs == 0 || more->data.remainingNumPcs == 0) break;
  }
  disable.now();
  drain_config();
  if (out.samples.empty() && !get_data_error.empty()) {
    out.reason = get_data_error;
    return out;
  }
  out.available = true;
  if (out.samples.empty())
    out.note = "CUPTI returned no samples (a kernel shorter than one sampling period?)";
  return out;
}

}  // namespace detail
#endif  // WARPLAB_HAVE_CUDA_HEADERS

}  // namespace warplab::gpu
