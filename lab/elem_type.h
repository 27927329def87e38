// Element types of experiment buffers, and how their bytes convert to and from doubles.
//
// Buffers hold raw little-endian bytes exactly as device memory does; checks, reports and the
// random initialiser go through double, which is exact for every value of these types except
// 64-bit integers beyond 2^53 (checks on those compare the integers themselves).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warplab::lab {

enum class ElemType : uint8_t { F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64 };

std::string_view elem_type_name(ElemType t);                     // "f32"
std::optional<ElemType> parse_elem_type(std::string_view name);  // "f32", also "float", "int"...
std::string elem_type_names();                                   // "f16 f32 f64 i8 ..." for errors
uint32_t elem_size(ElemType t);                                  // bytes
bool elem_is_float(ElemType t);
bool elem_is_signed(ElemType t);
std::string_view npy_descr(ElemType t);  // "<f4"
std::optional<ElemType> elem_type_from_npy(std::string_view descr);

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
