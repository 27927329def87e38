#include "gpu/module.h"

#include <cctype>

#include "gpu/session.h"

namespace warplab::gpu {

Expected<PtxVersion> read_ptx_version(std::string_view ptx, const std::string& path) {
  int line = 1;
  size_t pos = 0;
  while (pos < ptx.size()) {
    size_t end = ptx.find('\n', pos);
    if (end == std::string_view::npos) end = ptx.size();
    std::string_view l = ptx.substr(pos, end - pos);
    size_t i = l.find_first_not_of(" \t\r");
    if (i != std::string_view::npos && l.substr(i, 2) != "//") {
      l = l.substr(i);
      if (l.substr(0, 8) != ".version") {
        return Error{path, line, "expected `.version X.Y` as the first PTX directive"};
      }
      PtxVersion v;
      size_t j = 8;
      while (j < l.size() && (l[j] == ' ' || l[j] == '\t')) ++j;
      auto num = [&](int& out) {
        size_t start = j;
        out = 0;
        while (j < l.size() && std::isdigit(static_cast<unsigned char>(l[j]))) {
          out = out * 10 + (l[j++] - '0');
        }
        return j > start;
      };
      if (!num(v.major) || j >= l.size() || l[j++] != '.' || !num(v.minor)) {
        return Error{path, line, "malformed `.version` directive (expected `.version X.Y`)"};
      }
      return v;
    }
    pos = end + 1;
    ++line;
  }
  return Error{path, 0, "no `.version` directive: not a PTX module"};
}

Expected<KernelAttributes> GpuModule::kernel_attributes(const std::string& kernel) const {
#if WARPLAB_HAVE_CUDA_HEADERS
  if (!loaded_) return Error{path_, 0, "module not loaded"};
  detail::Session& s = *loaded_->session;
  if (Status st = s.make_current(); !st) return st.error();
  CUfunction f = nullptr;
  if (CUresult r = s.api->cuModuleGetFunction(&f, loaded_->module, kernel.c_str());
      r != CUDA_SUCCESS) {
    return Error{path_, 0, "no kernel `" + kernel + "` in the module (" + s.api->describe(r) + ")"};
  }
  KernelAttributes a;
  struct Attr {
    CUfunction_attribute attr;
    int* field;
  };
  const Attr attrs[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, &a.registers_per_thread},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &a.static_shared_bytes},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &a.local_bytes_per_thread},
      {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &a.const_bytes},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a.max_threads_per_block},
      {CU_FUNC_ATTRIBUTE_PTX_VERSION, &a.ptx_version},
      {CU_FUNC_ATTRIBUTE_BINARY_VERSION, &a.binary_version},
  };
  for (const Attr& at : attrs) {
    if (CUresult r = s.api->cuFuncGetAttribute(at.field, at.attr, f); r != CUDA_SUCCESS) {
      return s.api->error(r, "cuFuncGetAttribute for " + kernel);
    }
  }
  return a;
#else
  return Error{path_, 0, "WarpLab was built without the CUDA headers: no GPU backend"};
#endif
}

}  // namespace warplab::gpu
