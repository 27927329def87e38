#include "gpu/driver_api.h"

#include <dlfcn.h>

namespace warplab::gpu {

namespace {

std::string dl_error_text() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

Status probe_library(const std::string& library) {
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return Error{"", 0, "no CUDA driver library (" + library + "): " + dl_error_text()};
  dlclose(h);
  return Ok{};
}

int driver_needed_for_ptx_isa(int major, int minor) {
  // From the PTX ISA release notes: the CUDA release that introduced each ISA version.
  if (major >= 9) return 13000 + (major - 9) * 1000 + minor * 10;
  if (major == 8) {
    static constexpr int kIsa8[] = {12000, 12010, 12020, 12030, 12040, 12050, 12070, 12080, 12090};
    return minor >= 0 && minor <= 8 ? kIsa8[minor] : 12090;
  }
  if (major == 7) return minor <= 8 ? 11000 + minor * 10 : 11080;
  return 10000;  // ISA 6.x and older: any driver WarpLab can talk to
}

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

#if WARPLAB_HAVE_CUDA_HEADERS

// The exported symbol of a driver function: cuda.h #defines most of them to versioned names.
#define WARPLAB_STR2(x) #x
#define WARPLAB_STR(x) WARPLAB_STR2(x)

Expected<std::shared_ptr<DriverApi>> DriverApi::load(const std::string& library) {
  std::shared_ptr<DriverApi> api(new DriverApi());
  dlerror();
  api->handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!api->handle_) {
    return Error{"", 0, "no CUDA driver library (" + library + "): " + dl_error_text()};
  }
#define WARPLAB_RESOLVE(name)                                                                      \
  api->name = reinterpret_cast<decltype(api->name)>(dlsym(api->handle_, WARPLAB_STR(name)));       \
  if (!api->name) {                                                                                \
    return Error{"", 0,                                                                            \
                 std::string("CUDA driver library (") + library + ") lacks " + WARPLAB_STR(name) + \
                     ": driver too old for this WarpLab (needs CUDA 13)"};                         \
  }
  WARPLAB_CUDA_DRIVER_FUNCTIONS(WARPLAB_RESOLVE)
#undef WARPLAB_RESOLVE
  return api;
}

// The handle stays open: libcuda is never unloaded once initialised (the CUDA runtime does not
// either), and CUPTI, once loaded, keeps callbacks into it until the process exits.
DriverApi::~DriverApi() = default;

std::string DriverApi::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(r));
  if (text) out += std::string(" (") + text + ")";
  return out;
}

Error DriverApi::error(CUresult r, const std::string& what) const {
  return Error{"", 0, what + ": " + describe(r)};
}

#endif  // WARPLAB_HAVE_CUDA_HEADERS

}  // namespace warplab::gpu
