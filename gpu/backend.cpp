#include "gpu/backend.h"

#include <cstdlib>
#include <cstring>
#include <optional>

#include "gpu/driver_api.h"
#include "gpu/session.h"

namespace warplab::gpu {

#if WARPLAB_HAVE_CUDA_HEADERS

namespace {

// One block of 32 threads that only returns: what a launch costs when the kernel does nothing.
constexpr const char* kEmptyKernelPtx =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry warplab_empty()\n"
    "{\n"
    "  ret;\n"
    "}\n";

// The L2 flush: every thread reads 16-byte words of a buffer twice the L2's size (grid-stride)
// and writes only when the XOR of its reads is a value the buffer never holds, so nothing is
// written and the loads stay. Reading, not writing (Triton's do_bench memsets its flush buffer),
// leaves the L2 full of *unmodified* lines: the timed kernel evicts them for free, as from an
// empty L2. After a memset the L2 is full of modified lines that the timed kernel must write
// back to DRAM as it evicts them: on an H100, a 32 MiB read took 19.9 us after a memset against
// 15.0 us after this flush (scripts/microbench/coldstart.cu, h100-coldstart-2026-11-24.tsv).
constexpr const char* kFlushKernelPtx =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry warplab_l2_flush(.param .u64 p_x, .param .u64 p_n, .param .u64 p_out)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<12>;\n"
    "  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [p_x];\n"
    "  ld.param.u64 %rd2, [p_n];\n"
    "  ld.param.u64 %rd3, [p_out];\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mov.u32 %r4, %nctaid.x;\n"
    "  mul.wide.u32 %rd4, %r1, %r2;\n"
    "  cvt.u64.u32 %rd5, %r3;\n"
    "  add.u64 %rd4, %rd4, %rd5;\n"
    "  mul.wide.u32 %rd6, %r4, %r2;\n"
    "  mov.u32 %r10, 0;\n"
    "  setp.ge.u64 %p1, %rd4, %rd2;\n"
    "  @%p1 bra DONE;\n"
    "LOOP:\n"
    "  shl.b64 %rd7, %rd4, 4;\n"
    "  add.u64 %rd8, %rd1, %rd7;\n"
    "  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd8];\n"
    "  xor.b32 %r10, %r10, %r5;\n"
    "  xor.b32 %r10, %r10, %r6;\n"
    "  xor.b32 %r10, %r10, %r7;\n"
    "  xor.b32 %r10, %r10, %r8;\n"
    "  add.u64 %rd4, %rd4, %rd6;\n"
    "  setp.lt.u64 %p2, %rd4, %rd2;\n"
    "  @%p2 bra LOOP;\n"
    "DONE:\n"
    "  setp.ne.u32 %p1, %r10, -1640531527;\n"
    "  @%p1 bra END;\n"
    "  mul.wide.u32 %rd9, %r1, 4;\n"
    "  add.u64 %rd10, %rd3, %rd9;\n"
    "  st.global.u32 [%rd10], %r10;\n"
    "END:\n"
    "  ret;\n"
    "}\n";
constexpr unsigned kFlushBlocks = 1056, kFlushThreads = 512;

// The launch's CUtensorMap arguments, built by the driver (cuTensorMapEncodeTiled) for the
// buffers' device addresses and written over the simulator's encoding in the parameter block.
Status encode_tensor_maps(DriverApi& api, const GpuLaunch& launch,
                          const std::vector<uint64_t>& addresses, std::vector<uint8_t>& params) {
  for (const TensorMapPatch& t : launch.tensor_maps) {
    if (t.buffer >= addresses.size() || uint64_t{t.param_offset} + 128 > params.size())
      return Error{"", 0, "kernel " + launch.kernel + ": a tensor-map argument lies outside the "
                          "launch's buffers or parameter block"};
    alignas(64) CUtensorMap map;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], es[5];
    for (int i = 0; i < 5; ++i) dims[i] = t.dims[i], box[i] = t.box[i], es[i] = t.element_strides[i];
    for (int i = 0; i < 4; ++i) strides[i] = t.strides[i];
    void* base = reinterpret_cast<void*>(addresses[t.buffer] + t.byte_offset);
    const CUresult r = api.cuTensorMapEncodeTiled(
        &map, static_cast<CUtensorMapDataType>(t.data_type), t.rank, base, dims, strides, box, es,
        CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(t.swizzle),
        CU_TENSOR_MAP_L2_PROMOTION_NONE, static_cast<CUtensorMapFloatOOBfill>(t.oob_fill));
    if (r != CUDA_SUCCESS)
      return api.error(r, "kernel " + launch.kernel + ": cuTensorMapEncodeTiled at parameter offset " +
                              std::to_string(t.param_offset));
    std::memcpy(params.data() + t.param_offset, &map, 128);
  }
  return Ok{};
}

// "ptxas application ptx input, line 12; error : ..." -> 12 (0 when the log names no line).
int first_error_line(const std::string& log) {
  const size_t p = log.find(", line ");
  if (p == std::string::npos) return 0;
  return std::atoi(log.c_str() + p + 7);
}

// The parameter block as cuLaunchKernel's kernelParams: a pointer to each parameter's bytes in
// `params` (at the PTX's offsets, launch.param_offsets; their sizes from cuFuncGetParamInfo).
// The driver lays the parameters out itself, and not always at the PTX's offsets: a
// `.align 64` CUtensorMap goes where its constant-bank address is 64-byte aligned (the two maps
// of tma_copy_f32 at offsets 48 and 176, not 0 and 128). So the block cannot be passed whole
// (CU_LAUNCH_PARAM_BUFFER_POINTER): its maps would be misaligned, and the kernel faults with
// CUDA_ERROR_ILLEGAL_INSTRUCTION at its first TMA copy (H100, driver 580.159.04:
// scripts/microbench/tma_launch_paths.cu, 2026-11-26).
Expected<std::vector<void*>> kernel_params(const DriverApi& api, CUfunction f,
                                           const GpuLaunch& launch, std::vector<uint8_t>& params) {
  std::vector<void*> out;
  uint64_t next = 0;
  for (size_t i = 0;; ++i) {
    size_t driver_offset = 0, size = 0;
    const CUresult r = api.cuFuncGetParamInfo(f, i, &driver_offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
    if (r != CUDA_SUCCESS) return api.error(r, "cuFuncGetParamInfo(" + launch.kernel + ")");
    uint64_t offset = 0;
    if (!launch.param_offsets.empty()) {
      if (i >= launch.param_offsets.size())
        return Error{"", 0, "kernel " + launch.kernel + ": the driver reports more parameters (" +
                                std::to_string(i + 1) + ") than the PTX declares (" +
                                std::to_string(launch.param_offsets.size()) + ")"};
      offset = launch.param_offsets[i];
    } else {
      const uint64_t align = std::min<uint64_t>(std::max<uint64_t>(size, 1), 8);
      offset = (next + align - 1) / align * align;
    }
    next = offset + size;
    if (offset + size > params.size())
      return Error{"", 0, "kernel " + launch.kernel + ": parameter " + std::to_string(i) + " ends at byte " +
                              std::to_string(offset + size) + " but the launch's parameter block has " +
                              std::to_string(params.size())};
    out.push_back(params.data() + offset);
  }
  return out;
}

// Launches `f` as `launch` says: cuLaunchKernel, or cuLaunchKernelEx with the cluster-dimension
// attribute when the launch has a cluster shape (sim/func/cluster.h). `args`: kernel_params().
CUresult launch_kernel(const DriverApi& api, CUfunction f, const GpuLaunch& launch, void** args) {
  if (launch.cluster.x == 0)
    return api.cuLaunchKernel(f, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x,
                              launch.block.y, launch.block.z, launch.dynamic_shared_bytes, nullptr,
                              args, nullptr);
  if (launch.cluster_nonportable)
    if (CUresult r =
            api.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        r != CUDA_SUCCESS)
      return r;
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = launch.cluster.x;
  attr.value.clusterDim.y = launch.cluster.y;
  attr.value.clusterDim.z = launch.cluster.z;
  CUlaunchConfig cfg{};
  cfg.gridDimX = launch.grid.x;
  cfg.gridDimY = launch.grid.y;
  cfg.gridDimZ = launch.grid.z;
  cfg.blockDimX = launch.block.x;
  cfg.blockDimY = launch.block.y;
  cfg.blockDimZ = launch.block.z;
  cfg.sharedMemBytes = launch.dynamic_shared_bytes;
  cfg.hStream = nullptr;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return api.cuLaunchKernelEx(&cfg, f, args, nullptr);
}

}  // namespace

struct Backend::State {
  std::shared_ptr<detail::Session> session;
  std::shared_ptr<detail::Profiler> profiler;  // opened on the first counter read
  std::optional<GpuModule> empty_module;       // for launch_overhead()
  std::optional<LaunchOverhead> overhead;
  detail::DeviceMemory l2_flush;       // 2x L2, allocated on the first cold run
  detail::DeviceMemory l2_flush_sink;  // the flush kernel's (never written) output
  std::optional<GpuModule> flush_module;
  CUfunction flush_kernel = nullptr;

  ~State() {
    // The profiler and module hold the session; release them before it.
    profiler.reset();
    empty_module.reset();
    flush_module.reset();
    l2_flush = detail::DeviceMemory();
    l2_flush_sink = detail::DeviceMemory();
  }
};

Backend::Backend(std::unique_ptr<State> state) : state_(std::move(state)) {}
Backend::~Backend() = default;
Backend::Backend(Backend&&) noexcept = default;
Backend& Backend::operator=(Backend&&) noexcept = default;

Expected<Backend> Backend::open(int device, const OpenOptions& options) {
  auto api = DriverApi::load(options.driver_library);
  if (!api) return api.error();
  DriverApi& a = **api;
  if (CUresult r = a.cuInit(0); r != CUDA_SUCCESS) {
    return Error{"", 0, "no CUDA device (cuInit: " + a.describe(r) + ")"};
  }
  int count = 0;
  if (CUresult r = a.cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0) {
    return Error{"", 0, "no CUDA device (the driver reports none)"};
  }
  if (device < 0 || device >= count) {
    return Error{"", 0,
                 "no CUDA device " + std::to_string(device) + " (the driver reports " +
                     std::to_string(count) + ")"};
  }
  int version = 0;
  a.cuDriverGetVersion(&version);
  const int needed =
      driver_needed_for_ptx_isa(options.min_ptx_isa_major, options.min_ptx_isa_minor);
  if (version < needed) {
    return Error{"", 0,
                 "driver too old for PTX ISA " + std::to_string(options.min_ptx_isa_major) + "." +
                     std::to_string(options.min_ptx_isa_minor) + " (driver " +
                     format_cuda_version(version) + ", needs " + format_cuda_version(needed) + ")"};
  }

  auto session = std::make_shared<detail::Session>();
  session->api = *api;
  if (CUresult r = a.cuDeviceGet(&session->device, device); r != CUDA_SUCCESS) {
    return a.error(r, "cuDeviceGet");
  }
  if (CUresult r = a.cuDevicePrimaryCtxRetain(&session->ctx, session->device); r != CUDA_SUCCESS) {
    session->ctx = nullptr;
    return a.error(r, "cuDevicePrimaryCtxRetain");
  }
  if (Status st = session->make_current(); !st) return st.error();
  auto info = detail::query_device_info(a, session->device, device);
  if (!info) return info.error();
  session->info = std::move(*info);

  auto state = std::make_unique<State>();
  state->session = std::move(session);
  return Backend(std::move(state));
}

const DeviceInfo& Backend::device() const { return state_->session->info; }

Expected<GpuModule> Backend::load_ptx(std::string_view ptx, std::string path) {
  detail::Session& s = *state_->session;
  if (Status st = s.make_current(); !st) return st.error();
  auto version = read_ptx_version(ptx, path);
  if (!version) return version.error();
  const int needed = driver_needed_for_ptx_isa(version->major, version->minor);
  if (s.info.driver_version < needed) {
    return Error{path, 0,
                 "driver too old for PTX ISA " + std::to_string(version->major) + "." +
                     std::to_string(version->minor) + " (driver " +
                     format_cuda_version(s.info.driver_version) + ", needs " +
                     format_cuda_version(needed) + ")"};
  }

  // 1. JIT with both logs captured; the PTX must be NUL-terminated.
  const std::string text(ptx);
  std::vector<char> info_log(64 * 1024, 0), error_log(64 * 1024, 0);
  CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_LOG_VERBOSE};
  void* values[] = {info_log.data(), reinterpret_cast<void*>(uintptr_t{info_log.size() - 1}),
                    error_log.data(), reinterpret_cast<void*>(uintptr_t{error_log.size() - 1}),
                    reinterpret_cast<void*>(uintptr_t{1})};
  CUmodule mod = nullptr;
  CUresult r = s.api->cuModuleLoadDataEx(&mod, text.c_str(), 5, opts, values);
  const std::string errors(error_log.data());
  if (r != CUDA_SUCCESS) {
    std::string msg = "the CUDA driver could not compile this PTX: " + s.api->describe(r);
    if (!errors.empty()) msg += "\n" + errors;
    return Error{path, first_error_line(errors), msg};
  }

  // 2. Wrap it: unloaded when the last GpuModule copy goes.
  auto loaded = std::make_shared<detail::LoadedModule>();
  loaded->session = state_->session;
  loaded->module = mod;
  GpuModule m;
  m.loaded_ = std::move(loaded);
  m.path_ = std::move(path);
  m.info_log_ = info_log.data();
  m.isa_major_ = version->major;
  m.isa_minor_ = version->minor;
  return m;
}

// Per buffer: the device address of the module variable it stands for (launch.symbols), or 0.
Expected<std::vector<uint64_t>> Backend::module_symbols(const GpuModule& module,
                                                        const GpuLaunch& launch,
                                                        const std::vector<GpuBuffer>& buffers) {
  DriverApi& api = *state_->session->api;
  std::vector<uint64_t> out(buffers.size(), 0);
  for (const SymbolBuffer& sb : launch.symbols) {
    if (sb.buffer >= buffers.size()) {
      return Error{module.path(), 0,
                   "symbol " + sb.symbol + ": no buffer " + std::to_string(sb.buffer)};
    }
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
    if (CUresult r = api.cuModuleGetGlobal(&ptr, &bytes, module.loaded_->module, sb.symbol.c_str());
        r != CUDA_SUCCESS) {
      if (!sb.required) continue;
      return api.error(r, "cuModuleGetGlobal(" + sb.symbol + ")");
    }
    if (bytes != buffers[sb.buffer].bytes.size()) {
      return Error{module.path(), 0,
                   "buffer " + buffers[sb.buffer].name + " has " +
                       std::to_string(buffers[sb.buffer].bytes.size()) +
                       " bytes but the module's " + sb.symbol + " has " + std::to_string(bytes)};
    }
    out[sb.buffer] = ptr;
  }
  return out;
}

// The L2 flush kernel and its buffer (2x L2), made on first use.
Status Backend::prepare_l2_flush() {
  detail::Session& s = *state_->session;
  DriverApi& api = *s.api;
  if (!state_->flush_kernel) {
    auto m = load_ptx(kFlushKernelPtx, "<warplab_l2_flush>");
    if (!m) return m.error();
    state_->flush_module = std::move(*m);
    if (CUresult r = api.cuModuleGetFunction(&state_->flush_kernel,
                                             state_->flush_module->loaded_->module,
                                             "warplab_l2_flush");
        r != CUDA_SUCCESS) {
      return api.error(r, "cuModuleGetFunction(warplab_l2_flush)");
    }
    detail::DeviceMemory flush(&api), sink(&api);
    if (Status st = flush.allocate(2 * static_cast<size_t>(std::max(s.info.l2_bytes, 1 << 20)));
        !st) {
      return st.error();
    }
    if (Status st = sink.allocate(kFlushBlocks * 4); !st) return st.error();
    if (CUresult r = api.cuMemsetD32(flush.ptr(), 0, flush.size() / 4); r != CUDA_SUCCESS) {
      return api.error(r, "clearing the L2 flush buffer");
    }
    state_->l2_flush = std::move(flush);
    state_->l2_flush_sink = std::move(sink);
  }
  return Ok{};
}

// Queues one L2 flush (see kFlushKernelPtx).
Status Backend::launch_l2_flush() {
  DriverApi& api = *state_->session->api;
  if (Status st = prepare_l2_flush(); !st) return st;
  CUdeviceptr x = state_->l2_flush.ptr(), out = state_->l2_flush_sink.ptr();
  uint64_t words = state_->l2_flush.size() / 16;
  void* args[] = {&x, &words, &out};
  if (CUresult r = api.cuLaunchKernel(state_->flush_kernel, kFlushBlocks, 1, 1, kFlushThreads, 1,
                                      1, 0, nullptr, args, nullptr);
      r != CUDA_SUCCESS) {
    return api.error(r, "flushing L2");
  }
  return Ok{};
}

Expected<GpuLaunchResult> Backend::run(const GpuModule& module, const GpuLaunch& launch,
                                       std::vector<GpuBuffer>& buffers, const TimingOptions& timing,
                                       bool read_counters) {
  detail::Session& s = *state_->session;
  DriverApi& api = *s.api;
  if (Status st = s.make_current(); !st) return st.error();
  if (!module.loaded_) return Error{module.path(), 0, "module not loaded"};
  if (Status st = validate_launch(launch); !st) return st.error();

  GpuLaunchResult result;
  // 1. The kernel and what the JIT made of it.
  CUfunction f = nullptr;
  if (CUresult r = api.cuModuleGetFunction(&f, module.loaded_->module, launch.kernel.c_str());
      r != CUDA_SUCCESS) {
    return Error{module.path(), 0, "no kernel `" + launch.kernel + "` in the module"};
  }
  auto attrs = module.kernel_attributes(launch.kernel);
  if (!attrs) return attrs.error();
  result.attributes = *attrs;
  if (launch.dynamic_shared_bytes > 48 * 1024) {
    if (CUresult r = api.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            static_cast<int>(launch.dynamic_shared_bytes));
        r != CUDA_SUCCESS) {
      return api.error(r, "kernel " + launch.kernel + ": " +
                              std::to_string(launch.dynamic_shared_bytes) +
                              " bytes of dynamic shared memory");
    }
  }

  // 2. Buffers: allocate, copy the initial contents in, keep pristine copies if asked to.
  //    A buffer that is a module variable (launch.symbols) lives in the module instead.
  std::vector<detail::DeviceMemory> dev, pristine;
  std::vector<uint64_t> addresses;
  auto symbols = module_symbols(module, launch, buffers);
  if (!symbols) return symbols.error();
  for (size_t i = 0; i < buffers.size(); ++i) {
    const GpuBuffer& b = buffers[i];
    dev.emplace_back(&api);
    if ((*symbols)[i] != 0) {
      addresses.push_back((*symbols)[i]);
    } else {
      if (Status st = dev.back().allocate(b.bytes.size()); !st) {
        return Error{"", 0, "buffer " + b.name + ": " + st.error().message};
      }
      addresses.push_back(dev.back().ptr());
    }
    if (!b.bytes.empty()) {
      if (CUresult r = api.cuMemcpyHtoD(addresses.back(), b.bytes.data(), b.bytes.size());
          r != CUDA_SUCCESS) {
        return api.error(r, "copying buffer " + b.name + " to the GPU");
      }
    }
    if (timing.restore_buffers) {
      pristine.emplace_back(&api);
      if (Status st = pristine.back().allocate(b.bytes.size()); !st) return st.error();
      if (!b.bytes.empty()) {
        api.cuMemcpyDtoD(pristine.back().ptr(), addresses.back(), b.bytes.size());
      }
    }
  }
  auto params = patch_params(launch, addresses);
  if (!params) return params.error();
  if (Status st = encode_tensor_maps(api, launch, addresses, *params); !st) return st.error();
  auto args = kernel_params(api, f, launch, *params);
  if (!args) return args.error();
  auto do_launch = [&]() -> Status {
    CUresult r = launch_kernel(api, f, launch, args->empty() ? nullptr : args->data());
    if (r != CUDA_SUCCESS)
      return api.error(r, std::string(launch.cluster.x ? "cuLaunchKernelEx(" : "cuLaunchKernel(") +
                              launch.kernel + ")");
    return Ok{};
  };
  auto restore = [&]() -> Status {
    for (size_t i = 0; i < pristine.size(); ++i) {
      if (!buffers[i].bytes.empty()) {
        if (CUresult r = api.cuMemcpyDtoD(addresses[i], pristine[i].ptr(), buffers[i].bytes.size());
            r != CUDA_SUCCESS) {
          return api.error(r, "restoring buffer " + buffers[i].name);
        }
      }
    }
    return Ok{};
  };

  // The flush kernel and its buffer, made before the first launch of the kernel under test, so
  // that a fault of that kernel is never reported as the flush module's.
  auto prepare_flush = [&]() -> Status { return prepare_l2_flush(); };
  auto flush_l2 = [&]() -> Status { return launch_l2_flush(); };
  if (timing.flush_l2 && (timing.repeats > 0 || read_counters)) {
    if (Status st = prepare_flush(); !st) return st.error();
  }

  // 3. The correctness launch, on fresh buffers; its results go back to the caller.
  if (Status st = do_launch(); !st) return st.error();
  if (CUresult r = api.cuCtxSynchronize(); r != CUDA_SUCCESS) {
    s.fault = "kernel " + launch.kernel + " failed: " + api.describe(r);
    return Error{module.path(), 0, s.fault};
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].bytes.empty()) continue;
    if (CUresult r =
            api.cuMemcpyDtoH(buffers[i].bytes.data(), addresses[i], buffers[i].bytes.size());
        r != CUDA_SUCCESS) {
      return api.error(r, "copying buffer " + buffers[i].name + " back from the GPU");
    }
  }

  // 4. Timed launches; the flush and the restore run outside the timed events.
  std::function<Status()> before_each;
  if (timing.flush_l2 || timing.restore_buffers) {
    before_each = [&]() -> Status {
      if (timing.restore_buffers) {
        if (Status st = restore(); !st) return st;
      }
      if (timing.flush_l2) return flush_l2();
      return Ok{};
    };
  }
  if (timing.repeats > 0) {
    auto t = detail::time_launches(s, do_launch, before_each, timing.warmup, timing.repeats);
    if (!t) {
      s.fault = "kernel " + launch.kernel + ": " + t.error().message;
      return Error{module.path(), 0, s.fault};
    }
    result.timing = std::move(*t);
    result.timing.l2_flushed = timing.flush_l2;
    result.timing.buffers_restored = timing.restore_buffers;
  }

  // 5. Counters: one more launch under the range profiler. Warm (no flush): kernel replay, which
  //    restores memory between its passes, so one launch gives every metric. Cold: the passes
  //    are ours (user replay), each on the same memory contents and after its own L2 flush, so
  //    that DRAM bytes and the L2 hit rate describe the same cold start the timed launches had.
  if (read_counters) {
    if (!state_->profiler) state_->profiler = detail::open_profiler(state_->session);
    if (timing.restore_buffers) {
      if (Status st = restore(); !st) return st.error();
    }
    auto profiled = [&]() -> Status {
      if (Status st = do_launch(); !st) return st;
      if (CUresult r = api.cuCtxSynchronize(); r != CUDA_SUCCESS) {
        return api.error(r, "kernel under the profiler");
      }
      return Ok{};
    };
    std::vector<detail::DeviceMemory> snapshot;
    std::function<Status()> before_pass;
    if (timing.flush_l2) {
      for (size_t i = 0; i < buffers.size(); ++i) {
        snapshot.emplace_back(&api);
        if (buffers[i].bytes.empty()) continue;
        if (Status st = snapshot.back().allocate(buffers[i].bytes.size()); !st) return st.error();
        if (CUresult r = api.cuMemcpyDtoD(snapshot.back().ptr(), addresses[i],
                                          buffers[i].bytes.size());
            r != CUDA_SUCCESS) {
          return api.error(r, "saving buffer " + buffers[i].name + " for the profiler's passes");
        }
      }
      before_pass = [&]() -> Status {
        for (size_t i = 0; i < buffers.size(); ++i) {
          if (buffers[i].bytes.empty()) continue;
          if (CUresult r = api.cuMemcpyDtoD(addresses[i], snapshot[i].ptr(),
                                            buffers[i].bytes.size());
              r != CUDA_SUCCESS) {
            return api.error(r, "restoring buffer " + buffers[i].name);
          }
        }
        if (Status st = flush_l2(); !st) return st;
        if (CUresult r = api.cuCtxSynchronize(); r != CUDA_SUCCESS) {
          return api.error(r, "flushing L2 before a profiler pass");
        }
        return Ok{};
      };
    }
    result.counters = detail::read_counters(*state_->profiler, profiled, before_pass);
    result.counters.l2_flushed = timing.flush_l2;
  } else {
    result.counters.reason = "not requested";
  }
  return result;
}

Expected<PcSampling> Backend::sample_pcs(const std::vector<uint8_t>& cubin, const std::string& path,
                                         const GpuLaunch& launch,
                                         const std::vector<GpuBuffer>& buffers, bool flush_l2,
                                         const PcSamplingOptions& options) {
  detail::Session& s = *state_->session;
  DriverApi& api = *s.api;
  if (!s.fault.empty()) return Error{path, 0, s.fault};
  if (Status st = validate_launch(launch); !st) return st.error();
  if (cubin.empty()) return Error{path, 0, "no machine code to sample"};
  if (flush_l2) {
    if (Status st = prepare_l2_flush(); !st) return st.error();
  }
  // What prepare() makes lives until the samples are read.
  GpuModule module;
  CUfunction f = nullptr;
  std::vector<detail::DeviceMemory> dev;
  std::vector<uint8_t> params;
  Status failed = Ok{};  // an error of ours (not CUPTI's) in prepare or launch
  auto prepare = [&]() -> Status {
    // 1. The cubin, loaded after sampling was enabled so that CUPTI sees the module load.
    CUmodule mod = nullptr;
    if (CUresult r = api.cuModuleLoadDataEx(&mod, cubin.data(), 0, nullptr, nullptr);
        r != CUDA_SUCCESS) {
      failed = Error{path, 0, "the driver could not load the sampled cubin: " + api.describe(r)};
      return failed;
    }
    auto loaded = std::make_shared<detail::LoadedModule>();
    loaded->session = state_->session;
    loaded->module = mod;
    module.loaded_ = std::move(loaded);
    module.path_ = path;
    if (CUresult r = api.cuModuleGetFunction(&f, mod, launch.kernel.c_str()); r != CUDA_SUCCESS) {
      failed = Error{path, 0, "no kernel `" + launch.kernel + "` in the sampled cubin"};
      return failed;
    }
    if (launch.dynamic_shared_bytes > 48 * 1024) {
      if (CUresult r = api.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              static_cast<int>(launch.dynamic_shared_bytes));
          r != CUDA_SUCCESS) {
        failed = api.error(r, "kernel " + launch.kernel + ": dynamic shared memory");
        return failed;
      }
    }
    // 2. Buffers, as run() stages them: module variables in the sampled module, the rest fresh.
    auto symbols = module_symbols(module, launch, buffers);
    if (!symbols) return failed = symbols.error();
    std::vector<uint64_t> addresses;
    for (size_t i = 0; i < buffers.size(); ++i) {
      dev.emplace_back(&api);
      if ((*symbols)[i] != 0) {
        addresses.push_back((*symbols)[i]);
      } else {
        if (Status st = dev.back().allocate(buffers[i].bytes.size()); !st) return failed = st;
        addresses.push_back(dev.back().ptr());
      }
      if (!buffers[i].bytes.empty()) {
        if (CUresult r = api.cuMemcpyHtoD(addresses.back(), buffers[i].bytes.data(),
                                          buffers[i].bytes.size());
            r != CUDA_SUCCESS) {
          return failed = api.error(r, "copying buffer " + buffers[i].name + " to the GPU");
        }
      }
    }
    auto p = patch_params(launch, addresses);
    if (!p) return failed = p.error();
    if (Status st = encode_tensor_maps(api, launch, addresses, *p); !st) return failed = st;
    params = std::move(*p);
    // 3. The same cold start as the timed launches.
    if (flush_l2) {
      if (Status st = launch_l2_flush(); !st) return failed = st;
    }
    if (CUresult r = api.cuCtxSynchronize(); r != CUDA_SUCCESS)
      return failed = api.error(r, "before the sampled launch");
    return Ok{};
  };
  auto sampled = [&]() -> Status {
    auto args = kernel_params(api, f, launch, params);
    if (!args) return failed = args.error();
    if (CUresult r = launch_kernel(api, f, launch, args->empty() ? nullptr : args->data());
        r != CUDA_SUCCESS) {
      return failed = api.error(r, "cuLaunchKernel(" + launch.kernel + ", sampled)");
    }
    if (CUresult r = api.cuCtxSynchronize(); r != CUDA_SUCCESS) {
      s.fault = "kernel " + launch.kernel + " failed under PC sampling: " + api.describe(r);
      return failed = Error{path, 0, s.fault};
    }
    return Ok{};
  };
  PcSampling out = detail::sample_pcs(s, prepare, sampled, options);
  if (!failed) return failed.error();
  return out;
}

Expected<LaunchOverhead> Backend::launch_overhead() {
  if (state_->overhead) return *state_->overhead;
  detail::Session& s = *state_->session;
  DriverApi& api = *s.api;
  if (!state_->empty_module) {
    auto m = load_ptx(kEmptyKernelPtx, "<warplab_empty>");
    if (!m) return m.error();
    state_->empty_module = std::move(*m);
  }
  if (Status st = s.make_current(); !st) return st.error();
  CUfunction f = nullptr;
  if (CUresult r =
          api.cuModuleGetFunction(&f, state_->empty_module->loaded_->module, "warplab_empty");
      r != CUDA_SUCCESS) {
    return api.error(r, "cuModuleGetFunction(warplab_empty)");
  }
  auto launch = [&]() -> Status {
    if (CUresult r = api.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
        r != CUDA_SUCCESS) {
      return api.error(r, "cuLaunchKernel(warplab_empty)");
    }
    return Ok{};
  };
  // 1. Single launches, each between its own events.
  auto single = detail::time_launches(s, launch, nullptr, 10, 50);
  if (!single) return single.error();
  // 2. Back to back: 100 launches between one pair of events.
  detail::Event start(&api), stop(&api);
  if (Status st = start.create(); !st) return st.error();
  if (Status st = stop.create(); !st) return st.error();
  constexpr int kBackToBack = 100;
  api.cuEventRecord(start.get(), nullptr);
  for (int i = 0; i < kBackToBack; ++i) {
    if (Status st = launch(); !st) return st.error();
  }
  api.cuEventRecord(stop.get(), nullptr);
  if (CUresult r = api.cuEventSynchronize(stop.get()); r != CUDA_SUCCESS) {
    return api.error(r, "cuEventSynchronize");
  }
  float ms = 0;
  api.cuEventElapsedTime(&ms, start.get(), stop.get());
  LaunchOverhead o;
  o.empty_kernel_us = single->median_us;
  o.back_to_back_us = ms * 1000.0 / kBackToBack;
  o.samples = static_cast<int>(single->samples_us.size());
  state_->overhead = o;
  return o;
}

#else  // !WARPLAB_HAVE_CUDA_HEADERS

struct Backend::State {};
Backend::Backend(std::unique_ptr<State> state) : state_(std::move(state)) {}
Backend::~Backend() = default;
Backend::Backend(Backend&&) noexcept = default;
Backend& Backend::operator=(Backend&&) noexcept = default;

namespace {
Error no_headers() {
  return Error{"", 0,
               "WarpLab was built without the CUDA headers (/usr/local/cuda/include): no GPU "
               "backend"};
}
}  // namespace

Expected<Backend> Backend::open(int, const OpenOptions& options) {
  if (Status st = probe_library(options.driver_library); !st) return st.error();
  return no_headers();
}
const DeviceInfo& Backend::device() const {
  static const DeviceInfo kNone;  // unreachable: no Backend can be opened
  return kNone;
}
Expected<GpuModule> Backend::load_ptx(std::string_view, std::string) { return no_headers(); }
Expected<GpuLaunchResult> Backend::run(const GpuModule&, const GpuLaunch&, std::vector<GpuBuffer>&,
                                       const TimingOptions&, bool) {
  return no_headers();
}
Expected<LaunchOverhead> Backend::launch_overhead() { return no_headers(); }
Expected<PcSampling> Backend::sample_pcs(const std::vector<uint8_t>&, const std::string&,
                                         const GpuLaunch&, const std::vector<GpuBuffer>&, bool,
                                         const PcSamplingOptions&) {
  return no_headers();
}

#endif

}  // namespace warplab::gpu
