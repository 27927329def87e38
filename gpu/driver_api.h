// The CUDA driver API, loaded at run time.
//
// A real GPU is driven through libcuda.so.1, the user-space half of the NVIDIA driver. WarpLab
// never links it: every binary must start, and simulate, on a machine without a GPU. So this unit
// dlopen()s the library and resolves, by name, the few driver functions the backend calls. The
// names are the ones cuda.h maps its functions to (cuMemAlloc is really cuMemAlloc_v2, and so
// on): the table below takes the exported name from the header's own macro, so the ABI always
// matches the prototype we call through.
//
// Internal to gpu/: it includes cuda.h. The public headers (backend.h and the plain structs) do
// not, so the lab and the CLI compile without the CUDA toolkit.
#pragma once

#include <memory>
#include <string>

#include "sim/common/error.h"

#if WARPLAB_HAVE_CUDA_HEADERS
#include <cuda.h>

namespace warplab::gpu {

// One entry per driver function: X(name used in code, as cuda.h spells it).
#define WARPLAB_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                              \
  X(cuDriverGetVersion)                  \
  X(cuGetErrorString)                    \
  X(cuGetErrorName)                      \
  X(cuDeviceGetCount)                    \
  X(cuDeviceGet)                         \
  X(cuDeviceGetName)                     \
  X(cuDeviceGetAttribute)                \
  X(cuDeviceTotalMem)                    \
  X(cuDevicePrimaryCtxRetain)            \
  X(cuDevicePrimaryCtxRelease)           \
  X(cuCtxSetCurrent)                     \
  X(cuCtxSynchronize)                    \
  X(cuModuleLoadDataEx)                  \
  X(cuModuleUnload)                      \
  X(cuModuleGetFunction)                 \
  X(cuModuleGetGlobal)                   \
  X(cuFuncGetAttribute)                  \
  X(cuFuncSetAttribute)                  \
  X(cuFuncGetParamInfo)                  \
  X(cuMemAlloc)                          \
  X(cuMemFree)                           \
  X(cuMemcpyHtoD)                        \
  X(cuMemcpyDtoH)                        \
  X(cuMemcpyDtoD)                        \
  X(cuMemsetD8)                          \
  X(cuMemsetD32)                         \
  X(cuLaunchKernel)                      \
  X(cuTensorMapEncodeTiled)              \
  X(cuLaunchKernelEx)                    \
  X(cuEventCreate)                       \
  X(cuEventDestroy)                      \
  X(cuEventRecord)                       \
  X(cuEventSynchronize)                  \
  X(cuEventElapsedTime)

// The dlopen handle and the resolved function pointers. Create with load(). The library stays
// loaded for the life of the process (see the destructor). Not copyable: share it via shared_ptr.
class DriverApi {
 public:
#define WARPLAB_DECLARE_PFN(name) decltype(&::name) name = nullptr;
  WARPLAB_CUDA_DRIVER_FUNCTIONS(WARPLAB_DECLARE_PFN)
#undef WARPLAB_DECLARE_PFN

  // dlopen(library) and resolve every function above. Errors: "no CUDA driver library
  // (<library>): <dlerror>", or the name of a function the library lacks (driver too old).
  static Expected<std::shared_ptr<DriverApi>> load(const std::string& library = "libcuda.so.1");

  ~DriverApi();
  DriverApi(const DriverApi&) = delete;
  DriverApi& operator=(const DriverApi&) = delete;

  // "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
  std::string describe(CUresult r) const;
  // Error{"", 0, "<what>: <describe(r)>"}.
  Error error(CUresult r, const std::string& what) const;

 private:
  DriverApi() = default;
  void* handle_ = nullptr;
};

}  // namespace warplab::gpu

#endif  // WARPLAB_HAVE_CUDA_HEADERS

namespace warplab::gpu {

// dlopen() a library and report why it failed, without resolving anything. The missing-driver
// path, testable on any machine: probe_library("libcuda.so.1") on a machine without a driver.
Status probe_library(const std::string& library);

// The driver (CUDA_VERSION-style number, 13000 = CUDA 13.0) needed to JIT a PTX ISA version.
int driver_needed_for_ptx_isa(int major, int minor);
// "13.0" from 13000.
std::string format_cuda_version(int version);

}  // namespace warplab::gpu
