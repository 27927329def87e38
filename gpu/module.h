// A PTX module loaded onto the real GPU.
//
// The driver does not run PTX: it compiles ("JITs") it to the GPU's machine code (SASS) when the
// module is loaded, with the same ptxas the toolkit ships. Its error log names the PTX line of
// any problem; its info log reports each kernel's registers and shared memory, the figures that
// decide occupancy. After loading, cuFuncGetAttribute gives the same figures per kernel.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "sim/common/error.h"

namespace warplab::gpu {

namespace detail {
struct Session;
struct LoadedModule;
}  // namespace detail

// What the JIT made of one kernel (cuFuncGetAttribute).
struct KernelAttributes {
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int local_bytes_per_thread = 0;  // spills and local arrays
  int const_bytes = 0;
  int max_threads_per_block = 0;  // for this kernel, given its registers
  int ptx_version = 0;            // 90 = PTX ISA 9.0
  int binary_version = 0;         // 90 = sm_90
};

class GpuModule {
 public:
  const std::string& path() const { return path_; }
  const std::string& info_log() const { return info_log_; }  // JIT info log ("" when quiet)
  int ptx_isa_major() const { return isa_major_; }
  int ptx_isa_minor() const { return isa_minor_; }
  // Attributes of an entry, or an error naming the kernel when the module has none by that name.
  Expected<KernelAttributes> kernel_attributes(const std::string& kernel) const;

 private:
  friend class Backend;
  std::shared_ptr<detail::LoadedModule> loaded_;  // unloads the module when the last copy goes
  std::string path_, info_log_;
  int isa_major_ = 0, isa_minor_ = 0;
};

// The ".version X.Y" of a PTX text (first directive); an error with the line when absent or bad.
struct PtxVersion {
  int major = 0, minor = 0;
};
Expected<PtxVersion> read_ptx_version(std::string_view ptx, const std::string& path);

}  // namespace warplab::gpu
