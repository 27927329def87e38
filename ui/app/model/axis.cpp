#include "ui/app/model/axis.h"

#include <cmath>
#include <cstdio>

namespace warplab::app {

std::string format_si(double v, const std::string& unit) {
  static const char* kBig[] = {"", "K", "M", "G", "T", "P"};
  static const char* kSmall[] = {"", "m", "u", "n", "p"};
  const std::string sep = unit.empty() ? "" : " ";
  if (v == 0 || !std::isfinite(v)) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b + sep + unit;
  }
  double a = std::fabs(v);
  int k = 0;
  const char* prefix = "";
  if (a >= 1000) {
    while (a >= 999.5 && k < 5) {
      a /= 1000;
      ++k;
    }
    prefix = kBig[k];
  } else if (a < 1) {
    while (a < 0.9995 && k < 4) {
      a *= 1000;
      ++k;
    }
    prefix = kSmall[k];
  }
  char b[48];
  std::snprintf(b, sizeof b, "%.3g", v < 0 ? -a : a);
  // SI units take the prefix ("3.35 TB/s", "12 us"); counts keep it on the number ("1.53K cycles").
  const bool si = unit == "B" || unit == "B/s" || unit == "s" || unit == "Hz";
  if (si) return std::string(b) + sep + prefix + unit;
  return std::string(b) + prefix + sep + unit;
}

std::vector<AxisTick> linear_ticks(double lo, double hi, int target, const std::string& unit) {
  std::vector<AxisTick> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return out;
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double v = first; v <= hi + step * 1e-9; v += step) {
    const double r = std::fabs(v) < step * 1e-9 ? 0.0 : v;  // no "-0" or 1e-17
    out.push_back({r, format_si(r, unit)});
  }
  return out;
}

std::vector<AxisTick> log_ticks(double lo, double hi, const std::string& unit) {
  std::vector<AxisTick> out;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return out;
  const int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const bool fine = d1 - d0 < 3;
  for (int d = d0; d <= d1; ++d)
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !fine) continue;
      const double v = m * std::pow(10.0, d);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back({v, format_si(v, unit)});
    }
  return out;
}

double AxisScale::to_unit(double v) const {
  if (log) {
    if (v <= 0 || lo <= 0 || hi <= lo) return 0;
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  }
  return hi > lo ? (v - lo) / (hi - lo) : 0;
}

double AxisScale::from_unit(double u) const {
  if (log) {
    if (lo <= 0 || hi <= lo) return lo;
    return std::pow(10.0, std::log10(lo) + u * (std::log10(hi) - std::log10(lo)));
  }
  return lo + u * (hi - lo);
}

}  // namespace warplab::app
