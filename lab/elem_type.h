// Element types of experiment buffers, and how their bytes convert to and from doubles.
//
// Buffers hold raw little-endian bytes exactly as device memory does; checks, reports and the
// random initialiser go through double, which is exact for every value of these types except
// 64-bit integers beyond 2^53 (checks on those compare the integers themselves).
//
// The tensor-core types bf16, e4m3 and e5m2 have no numpy dtype: in .npy files they are their raw
// bits, bf16 as '<u2' and e4m3/e5m2 as '|u1' (lessons/FORMAT.md, "Element types"). A '<u2' file
// given to a bf16 buffer (a '|u1' file to an e4m3/e5m2 buffer) is read as those bits; a float file
// is converted, rounding to nearest even.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warplab::lab {

enum class ElemType : uint8_t {
  F16,
  F32,
  F64,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  BF16,  // bfloat16: 8 exponent bits, 7 fraction bits
  E4M3,  // FP8 e4m3 (no infinities, largest 448)
  E5M2,  // FP8 e5m2 (IEEE-like, largest 57344)
};

std::string_view elem_type_name(ElemType t);                     // "f32"
std::optional<ElemType> parse_elem_type(std::string_view name);  // "f32", also "float", "int"...
std::string elem_type_names();                                   // "f16 f32 f64 i8 ..." for errors
uint32_t elem_size(ElemType t);                                  // bytes
bool elem_is_float(ElemType t);
bool elem_is_signed(ElemType t);
std::string_view npy_descr(ElemType t);  // "<f4"
std::optional<ElemType> elem_type_from_npy(std::string_view descr);
// The integer type whose .npy files hold t's raw bits (bf16: U16, e4m3/e5m2: U8), or t itself.
ElemType npy_bits_type(ElemType t);

// Reads element `index` of `data` as a double / writes a double into it (rounded to nearest for
// floats, truncated toward zero and wrapped for integers).
double load_elem(ElemType t, const uint8_t* data, uint64_t index);
void store_elem(ElemType t, uint8_t* data, uint64_t index, double value);
// The exact integer for integer types (bit pattern reinterpreted for u64 > INT64_MAX).
int64_t load_elem_int(ElemType t, const uint8_t* data, uint64_t index);

// IEEE binary16 conversions (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);

}  // namespace warplab::lab
