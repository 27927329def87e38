// Comparing the GPU's buffers with the simulator's, element by element.
//
// For exact operations (integer arithmetic, IEEE add/mul/fma/div with a rounding mode,
// conversions) PTX defines one correct result, so the GPU and the simulator must agree bit for
// bit: any difference is a simulator bug (or a race in the kernel). Approximate functions
// (sin.approx, ex2.approx, rsqrt.approx, ...) are only specified within an error bound, so there
// the comparison allows an absolute error, a relative error or a distance in ULPs (units in the
// last place: how many representable floats lie between the two values). Either way a mismatch
// is reported with its index and both values, bits included for floats.
//
// Pure C++: no GPU needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/common/error.h"

namespace warplab::gpu {

enum class ElemType { U8, I8, U16, I16, U32, I32, U64, I64, F16, BF16, F32, F64 };

// "f32" -> F32 (also "float", "u32", "int32", ...); nullopt for an unknown name.
std::optional<ElemType> parse_elem_type(std::string_view name);
std::string_view elem_type_name(ElemType t);
size_t elem_size(ElemType t);

struct Tolerance {
  bool exact = true;  // true: bit-exact. false: an element passes when ANY bound below holds
  double abs = 0;     // |gpu - sim| <= abs
  double rel = 0;     // |gpu - sim| <= rel * |sim|
  uint64_t ulps = 0;  // floats: at most this many representable values apart
  static Tolerance bit_exact() { return {}; }
  static Tolerance within(double abs, double rel = 0, uint64_t ulps = 0) {
    return {false, abs, rel, ulps};
  }
};

struct Mismatch {
  size_t index = 0;      // element index
  std::string gpu, sim;  // both values, formatted ("1.5 (0x3fc00000)" for floats)
  double abs_error = 0;
};

struct CompareResult {
  bool passed = true;
  size_t elements = 0;
  size_t mismatches = 0;        // how many elements differ beyond the tolerance
  double max_abs_error = 0;     // over all elements (NaN/Inf pairs that match count as 0)
  uint64_t max_ulp_error = 0;   // floats only
  std::vector<Mismatch> worst;  // the first `max_reports` mismatches, in index order
  std::string size_note;        // set when the buffers differ in size (then passed = false)

  // "buffer z: 3 of 1024 elements differ (max abs error 0.5); [17] gpu 1.5 (0x3fc00000) sim ..."
  std::string summary(std::string_view buffer_name) const;
};

// Compares two buffers holding elements of type `t`.
CompareResult compare_buffers(std::span<const uint8_t> gpu, std::span<const uint8_t> sim,
                              ElemType t, const Tolerance& tol, size_t max_reports = 8);

// Number of representable values between two floats of the same type (0 when bit-equal or both
// zero; max when either is NaN and the other is not).
uint64_t ulp_distance_f32(float a, float b);
uint64_t ulp_distance_f64(double a, double b);

}  // namespace warplab::gpu
