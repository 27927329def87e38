// NumPy .npy files: the way buffers enter and leave WarpLab.
//
// Format (numpy.lib.format, versions 1.0 to 3.0): the magic "\x93NUMPY", a major and minor version
// byte, the header length (2 bytes little-endian in 1.0, 4 bytes in 2.0/3.0), then a Python dict
// literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (1024,), } padded with spaces
// and a newline to a multiple of 64 bytes, then the raw C-order data. WarpLab writes version 1.0
// little-endian; it reads any C-order little-endian array of the types in elem_type.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/elem_type.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct NpyArray {
  ElemType type = ElemType::F32;
  std::vector<uint64_t> shape;  // empty = a scalar (one element)
  std::vector<uint8_t> data;    // count() * elem_size(type) bytes, little-endian, C order

  uint64_t count() const {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    return n;
  }
};

Expected<NpyArray> read_npy(const std::string& path);
Expected<NpyArray> parse_npy(const std::vector<uint8_t>& bytes, const std::string& path);
std::vector<uint8_t> encode_npy(const NpyArray& array);
Status write_npy(const std::string& path, const NpyArray& array);

}  // namespace warplab::lab
