#include "lab/elem_type.h"

#include <cmath>
#include <cstring>

#include "sim/func/numeric.h"

namespace warplab::lab {
namespace {

struct TypeInfo {
  ElemType type;
  std::string_view name;
  std::string_view npy;
  uint32_t size;
};
constexpr TypeInfo kTypes[] = {
    {ElemType::F16, "f16", "<f2", 2},
    {ElemType::F32, "f32", "<f4", 4},
    {ElemType::F64, "f64", "<f8", 8},
    {ElemType::I8, "i8", "|i1", 1},
    {ElemType::I16, "i16", "<i2", 2},
    {ElemType::I32, "i32", "<i4", 4},
    {ElemType::I64, "i64", "<i8", 8},
    {ElemType::U8, "u8", "|u1", 1},
    {ElemType::U16, "u16", "<u2", 2},
    {ElemType::U32, "u32", "<u4", 4},
    {ElemType::U64, "u64", "<u8", 8},
    // Tensor-core types: numpy has no dtype for them, so their .npy files hold the raw bits.
    {ElemType::BF16, "bf16", "<u2", 2},
    {ElemType::E4M3, "e4m3", "|u1", 1},
    {ElemType::E5M2, "e5m2", "|u1", 1},
};
const TypeInfo& info(ElemType t) { return kTypes[static_cast<int>(t)]; }

template <class T>
T read_as(const uint8_t* data, uint64_t index) {
  T v;
  std::memcpy(&v, data + index * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void write_as(uint8_t* data, uint64_t index, T v) {
  std::memcpy(data + index * sizeof(T), &v, sizeof(T));
}
// double -> integer type: truncate toward zero, then wrap modulo 2^bits (as a C cast through
// int64 would on the GPU's cvt.rzi for in-range values); NaN becomes 0, values from 2^64 up
// (+inf too) all ones, as cvt.rzi.u64 saturates (a C cast of them is undefined behaviour).
template <class T>
T to_int(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 18446744073709551616.0) return static_cast<T>(~uint64_t{0});
  if (v >= 9.2e18) return static_cast<T>(static_cast<uint64_t>(v));
  if (v <= -9.2e18) return static_cast<T>(INT64_MIN);
  return static_cast<T>(static_cast<int64_t>(v));
}

}  // namespace

std::string_view elem_type_name(ElemType t) { return info(t).name; }
uint32_t elem_size(ElemType t) { return info(t).size; }
std::string_view npy_descr(ElemType t) { return info(t).npy; }
bool elem_is_float(ElemType t) {
  return t == ElemType::F16 || t == ElemType::F32 || t == ElemType::F64 || t == ElemType::BF16 ||
         t == ElemType::E4M3 || t == ElemType::E5M2;
}
ElemType npy_bits_type(ElemType t) {
  if (t == ElemType::BF16) return ElemType::U16;
  if (t == ElemType::E4M3 || t == ElemType::E5M2) return ElemType::U8;
  return t;
}
bool elem_is_signed(ElemType t) {
  return t == ElemType::I8 || t == ElemType::I16 || t == ElemType::I32 || t == ElemType::I64;
}

std::optional<ElemType> parse_elem_type(std::string_view name) {
  for (const TypeInfo& ti : kTypes)
    if (ti.name == name) return ti.type;
  // The C spellings instructors reach for.
  if (name == "float" || name == "float32") return ElemType::F32;
  if (name == "double" || name == "float64") return ElemType::F64;
  if (name == "half" || name == "float16") return ElemType::F16;
  if (name == "bfloat16") return ElemType::BF16;
  if (name == "float8_e4m3" || name == "float8_e4m3fn") return ElemType::E4M3;
  if (name == "float8_e5m2") return ElemType::E5M2;
  if (name == "int" || name == "int32" || name == "s32") return ElemType::I32;
  if (name == "uint" || name == "uint32") return ElemType::U32;
  if (name == "int64" || name == "s64") return ElemType::I64;
  if (name == "uint64") return ElemType::U64;
  if (name == "uint8" || name == "byte") return ElemType::U8;
  return std::nullopt;
}

std::string elem_type_names() {
  std::string out;
  for (const TypeInfo& ti : kTypes) out += (out.empty() ? "" : " ") + std::string(ti.name);
  return out;
}

std::optional<ElemType> elem_type_from_npy(std::string_view descr) {
  for (const TypeInfo& ti : kTypes) {
    if (ti.npy == descr) return ti.type;
    // One-byte types may be written with any byte-order mark; "=" means native (little here).
    std::string_view body = ti.npy.substr(1);
    if (descr.size() == 3 && descr.substr(1) == body &&
        (descr[0] == '=' || descr[0] == '|' || descr[0] == '<'))
      return ti.type;
  }
  if (descr == "|b1") return ElemType::U8;  // numpy bool: one byte 0/1
  return std::nullopt;
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    int shift = 14 - e;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // may carry into exponent: fine
  return static_cast<uint16_t>(sign | half);
}

double load_elem(ElemType t, const uint8_t* d, uint64_t i) {
  switch (t) {
    case ElemType::F16:
      return half_to_float(read_as<uint16_t>(d, i));
    case ElemType::F32:
      return read_as<float>(d, i);
    case ElemType::F64:
      return read_as<double>(d, i);
    case ElemType::I8:
      return read_as<int8_t>(d, i);
    case ElemType::I16:
      return read_as<int16_t>(d, i);
    case ElemType::I32:
      return read_as<int32_t>(d, i);
    case ElemType::I64:
      return static_cast<double>(read_as<int64_t>(d, i));
    case ElemType::U8:
      return read_as<uint8_t>(d, i);
    case ElemType::U16:
      return read_as<uint16_t>(d, i);
    case ElemType::U32:
      return read_as<uint32_t>(d, i);
    case ElemType::U64:
      return static_cast<double>(read_as<uint64_t>(d, i));
    case ElemType::BF16:
      return func::num::bf16_to_f32(read_as<uint16_t>(d, i));
    case ElemType::E4M3:
      return func::num::e4m3_to_double(read_as<uint8_t>(d, i));
    case ElemType::E5M2:
      return func::num::e5m2_to_double(read_as<uint8_t>(d, i));
  }
  return 0;
}

int64_t load_elem_int(ElemType t, const uint8_t* d, uint64_t i) {
  switch (t) {
    case ElemType::I8:
      return read_as<int8_t>(d, i);
    case ElemType::I16:
      return read_as<int16_t>(d, i);
    case ElemType::I32:
      return read_as<int32_t>(d, i);
    case ElemType::I64:
      return read_as<int64_t>(d, i);
    case ElemType::U8:
      return read_as<uint8_t>(d, i);
    case ElemType::U16:
      return read_as<uint16_t>(d, i);
    case ElemType::U32:
      return read_as<uint32_t>(d, i);
    case ElemType::U64:
      return static_cast<int64_t>(read_as<uint64_t>(d, i));
    default:
      return static_cast<int64_t>(load_elem(t, d, i));
  }
}

void store_elem(ElemType t, uint8_t* d, uint64_t i, double v) {
  switch (t) {
    case ElemType::F16:
      write_as<uint16_t>(d, i, float_to_half(static_cast<float>(v)));
      break;
    case ElemType::F32:
      write_as<float>(d, i, static_cast<float>(v));
      break;
    case ElemType::F64:
      write_as<double>(d, i, v);
      break;
    case ElemType::I8:
      write_as<int8_t>(d, i, to_int<int8_t>(v));
      break;
    case ElemType::I16:
      write_as<int16_t>(d, i, to_int<int16_t>(v));
      break;
    case ElemType::I32:
      write_as<int32_t>(d, i, to_int<int32_t>(v));
      break;
    case ElemType::I64:
      write_as<int64_t>(d, i, to_int<int64_t>(v));
      break;
    case ElemType::U8:
      write_as<uint8_t>(d, i, to_int<uint8_t>(v));
      break;
    case ElemType::U16:
      write_as<uint16_t>(d, i, to_int<uint16_t>(v));
      break;
    case ElemType::U32:
      write_as<uint32_t>(d, i, to_int<uint32_t>(v));
      break;
    case ElemType::U64:
      write_as<uint64_t>(d, i, to_int<uint64_t>(v));
      break;
    // Round to nearest even, straight from the double (no detour through f32). Too large a value
    // becomes infinity (bf16, e5m2) or NaN (e4m3, which has no infinity), as cvt.rn does.
    case ElemType::BF16:
      write_as<uint16_t>(
          d, i, static_cast<uint16_t>(func::num::round_to_format(v, 7, 8, ptx::Rounding::Rn)));
      break;
    case ElemType::E4M3:
      write_as<uint8_t>(d, i, func::num::double_to_e4m3(v, false));
      break;
    case ElemType::E5M2:
      write_as<uint8_t>(d, i, func::num::double_to_e5m2(v, false));
      break;
  }
}

}  // namespace warplab::lab
