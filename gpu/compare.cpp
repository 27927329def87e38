#include "gpu/compare.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace warplab::gpu {

namespace {

struct NameEntry {
  std::string_view name;
  ElemType type;
};
constexpr NameEntry kNames[] = {
    {"u8", ElemType::U8},       {"uint8", ElemType::U8}, {"i8", ElemType::I8},
    {"s8", ElemType::I8},       {"int8", ElemType::I8},  {"u16", ElemType::U16},
    {"i16", ElemType::I16},     {"s16", ElemType::I16},  {"u32", ElemType::U32},
    {"uint32", ElemType::U32},  {"i32", ElemType::I32},  {"s32", ElemType::I32},
    {"int32", ElemType::I32},   {"int", ElemType::I32},  {"u64", ElemType::U64},
    {"uint64", ElemType::U64},  {"i64", ElemType::I64},  {"s64", ElemType::I64},
    {"int64", ElemType::I64},   {"f16", ElemType::F16},  {"half", ElemType::F16},
    {"bf16", ElemType::BF16},   {"f32", ElemType::F32},  {"float", ElemType::F32},
    {"float32", ElemType::F32}, {"f64", ElemType::F64},  {"double", ElemType::F64},
    {"float64", ElemType::F64},
};

bool is_float(ElemType t) {
  return t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32 || t == ElemType::F64;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

// Raw bits of element i, zero-extended.
uint64_t raw_bits(const uint8_t* p, size_t size) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, size);  // little-endian host, as the GPU
  return bits;
}

double value_of(uint64_t bits, ElemType t) {
  switch (t) {
    case ElemType::U8:
    case ElemType::U16:
    case ElemType::U32:
    case ElemType::U64:
      return static_cast<double>(bits);
    case ElemType::I8:
      return static_cast<int8_t>(bits);
    case ElemType::I16:
      return static_cast<int16_t>(bits);
    case ElemType::I32:
      return static_cast<int32_t>(bits);
    case ElemType::I64:
      return static_cast<double>(static_cast<int64_t>(bits));
    case ElemType::F16:
      return half_to_float(static_cast<uint16_t>(bits));
    case ElemType::BF16:
      return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
    case ElemType::F32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case ElemType::F64:
      return std::bit_cast<double>(bits);
  }
  return 0;
}

// Maps float bits of `width` bits onto a line where adjacent floats are adjacent integers.
int64_t ordered(uint64_t bits, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t mag = bits & (sign - 1);
  return (bits & sign) ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
}

int float_width(ElemType t) {
  switch (t) {
    case ElemType::F16:
    case ElemType::BF16:
      return 16;
    case ElemType::F32:
      return 32;
    default:
      return 64;
  }
}

uint64_t ulp_distance_bits(uint64_t a, uint64_t b, ElemType t, double va, double vb) {
  const bool na = std::isnan(va), nb = std::isnan(vb);
  if (na && nb) return 0;
  if (na || nb) return std::numeric_limits<uint64_t>::max();
  const int w = float_width(t);
  const int64_t oa = ordered(a, w), ob = ordered(b, w);
  return oa > ob ? static_cast<uint64_t>(oa - ob) : static_cast<uint64_t>(ob - oa);
}

std::string format_value(uint64_t bits, ElemType t) {
  char buf[96];
  const double v = value_of(bits, t);
  switch (t) {
    case ElemType::F16:
    case ElemType::BF16:
      std::snprintf(buf, sizeof buf, "%.5g (0x%04x)", v, static_cast<unsigned>(bits));
      break;
    case ElemType::F32:
      std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", v, static_cast<unsigned>(bits));
      break;
    case ElemType::F64:
      std::snprintf(buf, sizeof buf, "%.17g (0x%016llx)", v, static_cast<unsigned long long>(bits));
      break;
    case ElemType::I64:
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(bits));
      break;
    case ElemType::U64:
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(bits));
      break;
    default:
      std::snprintf(buf, sizeof buf, "%.0f", v);
      break;
  }
  return buf;
}

}  // namespace

std::optional<ElemType> parse_elem_type(std::string_view name) {
  for (const auto& e : kNames) {
    if (e.name == name) return e.type;
  }
  return std::nullopt;
}

std::string_view elem_type_name(ElemType t) {
  switch (t) {
    case ElemType::U8:
      return "u8";
    case ElemType::I8:
      return "i8";
    case ElemType::U16:
      return "u16";
    case ElemType::I16:
      return "i16";
    case ElemType::U32:
      return "u32";
    case ElemType::I32:
      return "i32";
    case ElemType::U64:
      return "u64";
    case ElemType::I64:
      return "i64";
    case ElemType::F16:
      return "f16";
    case ElemType::BF16:
      return "bf16";
    case ElemType::F32:
      return "f32";
    case ElemType::F64:
      return "f64";
  }
  return "?";
}

size_t elem_size(ElemType t) {
  switch (t) {
    case ElemType::U8:
    case ElemType::I8:
      return 1;
    case ElemType::U16:
    case ElemType::I16:
    case ElemType::F16:
    case ElemType::BF16:
      return 2;
    case ElemType::U32:
    case ElemType::I32:
    case ElemType::F32:
      return 4;
    default:
      return 8;
  }
}

uint64_t ulp_distance_f32(float a, float b) {
  return ulp_distance_bits(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b), ElemType::F32, a,
                           b);
}

uint64_t ulp_distance_f64(double a, double b) {
  return ulp_distance_bits(std::bit_cast<uint64_t>(a), std::bit_cast<uint64_t>(b), ElemType::F64, a,
                           b);
}

CompareResult compare_buffers(std::span<const uint8_t> gpu, std::span<const uint8_t> sim,
                              ElemType t, const Tolerance& tol, size_t max_reports) {
  CompareResult r;
  const size_t es = elem_size(t);
  if (gpu.size() != sim.size()) {
    r.passed = false;
    r.size_note = "sizes differ: gpu " + std::to_string(gpu.size()) + " bytes, sim " +
                  std::to_string(sim.size()) + " bytes";
  }
  const size_t n = std::min(gpu.size(), sim.size()) / es;
  r.elements = n;
  const bool fp = is_float(t);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t a = raw_bits(gpu.data() + i * es, es);
    const uint64_t b = raw_bits(sim.data() + i * es, es);
    if (a == b) continue;
    const double va = value_of(a, t), vb = value_of(b, t);
    double err = std::fabs(va - vb);
    if (fp && ((std::isnan(va) && std::isnan(vb)) || va == vb)) err = 0;  // NaN payloads, +-0
    uint64_t ulps = 0;
    if (fp) {
      ulps = ulp_distance_bits(a, b, t, va, vb);
      if (ulps > r.max_ulp_error) r.max_ulp_error = ulps;
    }
    bool ok = false;
    if (!tol.exact) {
      if (fp && (std::isnan(va) || std::isnan(vb) || std::isinf(va) || std::isinf(vb))) {
        ok = (std::isnan(va) && std::isnan(vb)) || va == vb;
      } else {
        ok = err <= tol.abs || err <= tol.rel * std::fabs(vb) || (fp && ulps <= tol.ulps);
      }
    }
    if (!std::isnan(err) && err > r.max_abs_error) r.max_abs_error = err;
    if (fp && !ok && (std::isnan(va) != std::isnan(vb))) {
      r.max_abs_error = std::numeric_limits<double>::infinity();
    }
    if (ok) continue;
    ++r.mismatches;
    r.passed = false;
    if (r.worst.size() < max_reports) {
      r.worst.push_back({i, format_value(a, t), format_value(b, t), err});
    }
  }
  return r;
}

std::string CompareResult::summary(std::string_view buffer_name) const {
  std::string s = "buffer " + std::string(buffer_name) + ": ";
  if (!size_note.empty()) s += size_note + "; ";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", max_abs_error);
  if (mismatches == 0) {
    s += std::to_string(elements) + " elements match";
    if (max_abs_error > 0) s += std::string(" (max abs error ") + buf + ")";
    return s;
  }
  s += std::to_string(mismatches) + " of " + std::to_string(elements) +
       " elements differ (max abs error " + buf;
  if (max_ulp_error > 0) s += ", max " + std::to_string(max_ulp_error) + " ulp";
  s += ")";
  for (const Mismatch& m : worst) {
    s += "; [" + std::to_string(m.index) + "] gpu " + m.gpu + " sim " + m.sim;
  }
  return s;
}

}  // namespace warplab::gpu
