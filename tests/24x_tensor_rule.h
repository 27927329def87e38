// The tensor tests' (24x) reference for the H100's f32 accumulation, written from the
// microbenchmark's findings (scripts/microbench/mma_numerics.cu, wgmma_numerics.cu), independent
// of the simulator's code.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>

// The H100's rule for f32 accumulators: products and c aligned to the largest exponent (of a
// product: the sum of its operands' exponents; of c: its own), truncated toward zero to
// multiples of 2^(emax - 25), summed exactly (the test's terms span few bits: exact in double),
// the sum rounded toward zero to f32. The test's operands are normal numbers.
inline float h100_rule(const double* a, const double* b, int k, double c) {
  int emax = INT_MIN;
  for (int i = 0; i < k; ++i)
    if (a[i] * b[i] != 0) emax = std::max(emax, std::ilogb(a[i]) + std::ilogb(b[i]));
  if (c != 0) emax = std::max(emax, std::ilogb(c));
  if (emax == INT_MIN) return 0.0f;
  const double unit = std::ldexp(1.0, emax - 25);
  double s = std::trunc(c / unit) * unit;
  for (int i = 0; i < k; ++i) s += std::trunc(a[i] * b[i] / unit) * unit;
  float f = static_cast<float>(s);
  if (std::fabs(static_cast<double>(f)) > std::fabs(s)) f = std::nextafter(f, 0.0f);
  return f;
}
