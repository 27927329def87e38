// What a launch on the real GPU is made of: buffers, grid and block, and the parameter block.
//
// A CUDA kernel receives its arguments as one block of bytes (the ".param" space in PTX), each
// parameter at an offset aligned to its size. Scalars are copied in as they are; a pointer
// argument holds a device address, which only exists once the buffer is allocated on the GPU.
// So a GpuLaunch carries the parameter block with placeholders and a list of "buffer patches":
// at offset O, write the device address of buffer B (plus a byte offset). The backend allocates
// the buffers, writes the addresses and passes the whole block to cuLaunchKernel
// (CU_LAUNCH_PARAM_BUFFER_POINTER), which is exactly the layout the simulator reads.
//
// Plain structs: usable without the CUDA headers.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/common/error.h"

namespace warplab::gpu {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// One device buffer. In: its initial contents. Out (after Backend::run): its contents after the
// correctness launch.
struct GpuBuffer {
  std::string name;
  std::vector<uint8_t> bytes;
};

// "Write the device address of buffers[buffer] + byte_offset at params[param_offset]" (8 bytes).
struct BufferPatch {
  uint32_t param_offset = 0;
  uint32_t buffer = 0;
  uint64_t byte_offset = 0;
};

// "Write at params[param_offset] the 128-byte CUtensorMap that cuTensorMapEncodeTiled builds for
// the tensor at buffers[buffer] + byte_offset" (a `const __grid_constant__ CUtensorMap` argument;
// the fields are the driver's, innermost dimension first; data_type is a CUtensorMapDataType).
struct TensorMapPatch {
  uint32_t param_offset = 0;
  uint32_t buffer = 0;
  uint64_t byte_offset = 0;
  uint32_t data_type = 0, rank = 1;
  uint64_t dims[5] = {1, 1, 1, 1, 1};
  uint64_t strides[4] = {0, 0, 0, 0};  // bytes, dimensions 1..rank-1
  uint32_t box[5] = {1, 1, 1, 1, 1};
  uint32_t element_strides[5] = {1, 1, 1, 1, 1};
  uint32_t swizzle = 0;   // CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B
  uint32_t oob_fill = 0;  // CUtensorMapFloatOOBfill: 0 zeros, 1 NaN
};

// "buffers[buffer] is the module's variable `symbol` (a __constant__ or __device__ variable, by
// its PTX name)": Backend::run does not allocate it but finds the variable (cuModuleGetGlobal),
// copies the buffer's contents there before the launch and back after it, as it does for the
// other buffers. Its size must equal the variable's.
struct SymbolBuffer {
  std::string symbol;
  uint32_t buffer = 0;
  // false: a variable the module may not expose by name (not .visible): when cuModuleGetGlobal
  // cannot find it, the buffer is allocated like any other and the variable left alone.
  bool required = true;
};

struct GpuLaunch {
  std::string kernel;  // entry name in the module
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<uint8_t> params;             // the parameter block, laid out as the PTX declares it
  // Each parameter's offset in `params` (the PTX's layout), in order; empty: each at the next
  // offset aligned to its size (at most 8), as ParamBlock lays out scalars and pointers.
  std::vector<uint32_t> param_offsets;
  std::vector<BufferPatch> buffer_params;  // pointer arguments, filled in once buffers exist
  std::vector<TensorMapPatch> tensor_maps;  // CUtensorMap arguments, encoded once buffers exist
  std::vector<SymbolBuffer> symbols;       // buffers that are module variables
  // Thread-block cluster shape (x == 0: none; launched with cuLaunchKernel), and the opt-in to
  // clusters of more than 8 blocks (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
  Dim3 cluster{0, 0, 0};
  bool cluster_nonportable = false;
};

// Builds a parameter block in PTX order: each value at the next offset aligned to its alignment
// (a PTX .param's alignment is its size unless declared with .align).
class ParamBlock {
 public:
  template <class T>
  uint32_t add(const T& value, uint32_t align = sizeof(T)) {
    static_assert(std::is_trivially_copyable_v<T>);
    const uint32_t offset = align_to(align);
    bytes_.resize(offset + sizeof(T));
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
    return offset;
  }
  // A pointer argument: 8 zero bytes now, the device address of `buffer` at launch.
  uint32_t add_buffer(uint32_t buffer, uint64_t byte_offset = 0) {
    const uint32_t offset = add(uint64_t{0});
    patches_.push_back({offset, buffer, byte_offset});
    return offset;
  }
  // Raw bytes (a struct passed by value), aligned to `align`.
  uint32_t add_bytes(const void* data, uint32_t size, uint32_t align);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  const std::vector<BufferPatch>& patches() const { return patches_; }
  // Moves the block and its patches into a launch.
  void fill(GpuLaunch& launch) const {
    launch.params = bytes_;
    launch.buffer_params = patches_;
  }

 private:
  uint32_t align_to(uint32_t align);
  std::vector<uint8_t> bytes_;
  std::vector<BufferPatch> patches_;
};

// The parameter block with every patch applied: `addresses[b]` is buffer b's device address.
// Errors name the patch that points outside the block or at a buffer that does not exist.
Expected<std::vector<uint8_t>> patch_params(const GpuLaunch& launch,
                                            const std::vector<uint64_t>& addresses);

// Checks a launch before it reaches the driver: non-empty kernel name, grid and block at least
// 1 in every dimension, at most 1024 threads per block, block.z <= 64, grid.y/z <= 65535.
Status validate_launch(const GpuLaunch& launch);

}  // namespace warplab::gpu
