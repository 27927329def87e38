#include "gpu/session.h"

#if WARPLAB_HAVE_CUDA_HEADERS

namespace warplab::gpu::detail {

Session::~Session() {
  if (ctx && api) api->cuDevicePrimaryCtxRelease(device);
}

Status Session::make_current() {
  if (!fault.empty())
    return Error{"", 0, "the GPU context is unusable after an earlier fault: " + fault};
  if (CUresult r = api->cuCtxSetCurrent(ctx); r != CUDA_SUCCESS) {
    return api->error(r, "cuCtxSetCurrent");
  }
  return Ok{};
}

LoadedModule::~LoadedModule() {
  if (module && session && session->fault.empty()) {
    session->api->cuCtxSetCurrent(session->ctx);
    session->api->cuModuleUnload(module);
  }
}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  if (this != &o) {
    if (ptr_ && api_) api_->cuMemFree(ptr_);
    api_ = o.api_;
    ptr_ = o.ptr_;
    size_ = o.size_;
    o.ptr_ = 0;
    o.size_ = 0;
  }
  return *this;
}

DeviceMemory::~DeviceMemory() {
  if (ptr_ && api_) api_->cuMemFree(ptr_);
}

Status DeviceMemory::allocate(size_t bytes) {
  // Zero-sized buffers still get a distinct address, as the simulator gives them.
  if (CUresult r = api_->cuMemAlloc(&ptr_, bytes ? bytes : 16); r != CUDA_SUCCESS) {
    ptr_ = 0;
    return api_->error(r, "cuMemAlloc of " + std::to_string(bytes) + " bytes");
  }
  size_ = bytes;
  return Ok{};
}

Event::~Event() {
  if (ev_) api_->cuEventDestroy(ev_);
}

Status Event::create() {
  if (CUresult r = api_->cuEventCreate(&ev_, CU_EVENT_DEFAULT); r != CUDA_SUCCESS) {
    return api_->error(r, "cuEventCreate");
  }
  return Ok{};
}

Expected<DeviceInfo> query_device_info(DriverApi& api, CUdevice dev, int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  char name[256] = {};
  if (CUresult r = api.cuDeviceGetName(name, sizeof name - 1, dev); r != CUDA_SUCCESS) {
    return api.error(r, "cuDeviceGetName");
  }
  d.name = name;
  size_t total = 0;
  if (CUresult r = api.cuDeviceTotalMem(&total, dev); r != CUDA_SUCCESS) {
    return api.error(r, "cuDeviceTotalMem");
  }
  d.total_memory_bytes = total;
  api.cuDriverGetVersion(&d.driver_version);
  struct Attr {
    CUdevice_attribute attr;
    int* field;
    const char* name;
  };
  const Attr attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d.cc_major, "compute capability major"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d.cc_minor, "compute capability minor"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d.sm_count, "multiprocessor count"},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &d.sm_clock_khz, "clock rate"},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &d.memory_clock_khz, "memory clock rate"},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &d.memory_bus_bits, "memory bus width"},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &d.l2_bytes, "L2 size"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &d.shared_per_sm_bytes,
       "shared memory per SM"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &d.shared_per_block_bytes,
       "shared memory per block"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &d.shared_per_block_optin_bytes,
       "shared memory per block (opt-in)"},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &d.registers_per_sm,
       "registers per SM"},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &d.registers_per_block, "registers per block"},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &d.max_threads_per_sm, "threads per SM"},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d.max_threads_per_block, "threads per block"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &d.max_blocks_per_sm, "blocks per SM"},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &d.warp_size, "warp size"},
  };
  for (const Attr& a : attrs) {
    if (CUresult r = api.cuDeviceGetAttribute(a.field, a.attr, dev); r != CUDA_SUCCESS) {
      return api.error(r, std::string("cuDeviceGetAttribute(") + a.name + ")");
    }
  }
  return d;
}

}  // namespace warplab::gpu::detail

#endif  // WARPLAB_HAVE_CUDA_HEADERS
