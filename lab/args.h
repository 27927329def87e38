// Binding a launch to its kernel: finding the PTX entry, type-checking the arguments against the
// kernel's PTX signature, and laying out the parameter block the way the CUDA driver does.
//
// A kernel's parameters live in a small constant buffer (cmem[0] on the real GPU; the .param space
// in PTX). The driver copies each argument to its parameter's offset (ptx::Param::offset), with the
// parameter's own size: pointers are 8 bytes (.u64), `int n` is 4 bytes (.u32/.s32) and so on.
// Passing the wrong kind silently corrupts a real launch; here it is an error naming file:line:
//   - a buffer (a 64-bit device pointer) may only go to a 64-bit integer parameter;
//   - a scalar goes to a parameter of any scalar type: integers must fit the type's range, floats
//     are rounded to f32/f16, a float value to an integer parameter is an error;
//   - the argument count must equal the parameter count.
//   - a buffer plus an offset ("x + 1024", in elements of x's type) passes that element's
//     address; the offset must stay within the buffer (0 to its count);
//   - a struct passed by value (PTX: `.param .align A .b8 name[S]`) is built field by field from
//     { struct = [ { f32 = "alpha" }, { i32 = "N" }, { ptr = "x" } ] }, laid out as the C++ ABI
//     lays out a plain struct: each field at the next offset aligned to its own alignment (its
//     size for scalars, 8 for pointers, the largest member's for nested structs, raised by a
//     declared `align`), the struct's size rounded up to its alignment. Size and alignment must
//     match the PTX parameter's; when they do not, the error shows the layout field by field.
#pragma once

#include <string>
#include <vector>

#include "lab/experiment.h"
#include "sim/func/launch.h"
#include "sim/ptx/ir.h"

namespace warplab::lab {

// The entry `name` refers to: the exact PTX name, a C++ kernel's unmangled name ("vec_add" finds
// "_Z7vec_addPKfS0_Pfi") or a template instance's C++ name ("MatrixMulCUDA<16>"; spaces and the
// spelling of the arguments as the demangler writes them). Ambiguous or unknown names are errors
// listing the kernels of the module, demangled.
Expected<const ptx::Function*> find_kernel(const ptx::Module& module, const std::string& name);
// The C++ name of a mangled entry ("_Z7vec_addPKfS0_Pfi" -> "vec_add", "ns::k" for nested names);
// the input itself when it is not a mangled name.
std::string demangled_base_name(const std::string& entry);
// The full C++ signature of a mangled entry ("_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii" ->
// "void MatrixMulCUDA<16>(float*, float*, float*, int, int)"); the input when not mangled.
std::string demangle(const std::string& entry);
// The name with template arguments, without return type and parameters ("MatrixMulCUDA<16>").
std::string demangled_template_name(const std::string& entry);

struct BoundLaunch {
  size_t index = 0;  // in Experiment::launches
  const ptx::Function* kernel = nullptr;
  func::LaunchConfig config;  // grid, block, dynamic shared, params (sim addresses)
  int64_t repeat = 1;
  // Parameters (or struct fields) that hold a buffer's device address. Other backends (the real
  // GPU) rewrite these with their own addresses.
  struct PointerParam {
    uint64_t param_offset = 0;  // byte offset in config.params
    int buffer = 0;             // index in Experiment::buffers
    uint64_t byte_offset = 0;   // "x + 1024": 1024 * the element size
    bool operator==(const PointerParam&) const = default;
  };
  std::vector<PointerParam> pointer_params;
  // `const __grid_constant__ CUtensorMap` arguments ({ tensormap = "x", ... }): the map as
  // WarpLab encodes it for the simulator (sim/func/tensormap.h) is in the parameter block at
  // param_offset; the GPU backend writes the driver's encoding there instead, from the same
  // fields (cuda_data_type is its CUtensorMapDataType).
  struct TensorMapParam {
    uint64_t param_offset = 0;
    int buffer = 0;
    uint32_t cuda_data_type = 0, rank = 1;
    uint64_t dims[5] = {1, 1, 1, 1, 1}, strides[4] = {0, 0, 0, 0};
    uint32_t box[5] = {1, 1, 1, 1, 1}, element_strides[5] = {1, 1, 1, 1, 1};
    uint32_t swizzle = 0, oob_fill = 0;
  };
  std::vector<TensorMapParam> tensor_maps;
  std::vector<std::string> arg_text;  // each argument as "x" (buffer) or "N=1024"
};

// Checks launch `index` against `kernel`'s signature: count, and buffer vs scalar kind. Called once
// right after compiling, before anything runs.
Status check_signature(const Experiment& exp, size_t index, const ptx::Function& kernel);

// Evaluates grid/block/shared/repeat and the arguments for `env`, packs the parameter block.
// `buffer_addresses[i]` is the device address of Experiment::buffers[i], `buffer_counts[i]` its
// element count (pointer offsets are checked against it; when empty, the count expressions are
// evaluated for `env`).
Expected<BoundLaunch> bind_launch(const Experiment& exp, size_t index, const ptx::Function& kernel,
                                  const Env& env, const std::vector<uint64_t>& buffer_addresses,
                                  const std::vector<uint64_t>& buffer_counts = {});

// The C++ layout of a struct argument: size and alignment in bytes, and a one-line description
// ("{f32 @0, i32 @4, ptr @8} = 16 bytes, align 8").
struct StructLayout {
  uint64_t size = 0, align = 1;
  std::string text;
};
StructLayout struct_layout(const ArgDef& s);

}  // namespace warplab::lab
